/**
 * What a wait on a log file says when it fails: the next red run must
 * explain itself, even when the awaited process wrote nothing at all.
 */
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { LogFile } from "./log-file.js";

describe("LogFile.waitFor", () => {
  let dir: string;
  let log: LogFile;
  beforeEach(() => {
    dir = mkdtempSync(join(tmpdir(), "nri-e2e-log-"));
    log = new LogFile(join(dir, "containerd.log"));
  });
  afterEach(() => rmSync(dir, { recursive: true, force: true }));

  it("resolves to what the first matching line after the mark gives", async () => {
    writeFileSync(log.path, "a=1\n");
    const from = log.mark();
    writeFileSync(log.path, "a=1\na=2\na=3\n");
    expect(await log.waitFor("an a", (line) => line.startsWith("a=") && line.slice(2), { from })).toBe("2");
  });

  it("stops as soon as `abandon` gives a reason, and shows the lines before the mark when none came after", async () => {
    writeFileSync(log.path, "started\nimages imported\n");
    const from = log.mark();
    await expect(
      log.waitFor("the registration", (line) => line === "registered", { from, abandon: () => "the plugin exited" }),
    ).rejects.toThrow(
      `the plugin exited; gave up waiting for the registration in ${log.path}; nothing was written to it since the wait began; its last lines before:\nstarted\nimages imported`,
    );
  });

  it("a timeout shows the lines after the mark, or says the file is empty", async () => {
    writeFileSync(log.path, "old\n");
    const from = log.mark();
    writeFileSync(log.path, "old\nnew\n");
    await expect(log.waitFor("a line", () => false, { from, timeoutMs: 50 })).rejects.toThrow(
      /^timed out after 50 ms waiting for a line in .*; its last lines:\nnew$/,
    );
    rmSync(log.path);
    await expect(log.waitFor("a line", () => false, { timeoutMs: 50 })).rejects.toThrow(/; it is empty$/);
  });
});
