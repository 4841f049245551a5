import { execFileSync } from "node:child_process";
import { mkdir, mkdtemp, rm, symlink, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { readRegularFile } from "./regular-file.js";

describe("readRegularFile", () => {
  let dir: string;
  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), "stub-regular-file-"));
    await writeFile(join(dir, "small"), "oom_kill 1\n");
    await writeFile(join(dir, "big"), Buffer.alloc(100_000, "x"));
    await mkdir(join(dir, "dir"));
    execFileSync("mkfifo", [join(dir, "fifo")]);
    await symlink("/dev/zero", join(dir, "zero"));
  });
  afterAll(() => rm(dir, { recursive: true, force: true }));

  const read = (name: string, maxBytes = 1024) => readRegularFile(join(dir, name), { maxBytes });

  it("reads a regular file, through a symbolic link too", async () => {
    expect((await read("small")).toString()).toBe("oom_kill 1\n");
    await symlink(join(dir, "small"), join(dir, "link"));
    expect((await read("link")).toString()).toBe("oom_kill 1\n");
    expect(await read("big", 100_000)).toEqual(Buffer.alloc(100_000, "x"));
  });

  it("refuses, without blocking, a named pipe nobody writes to, and a device that never ends", async () => {
    await expect(read("fifo")).rejects.toMatchObject({
      code: "ERR_NOT_REGULAR_FILE",
      path: join(dir, "fifo"),
      message: "not a regular file: a named pipe",
    });
    await expect(read("zero")).rejects.toMatchObject({
      code: "ERR_NOT_REGULAR_FILE",
      message: "not a regular file: a character device",
    });
  });

  it("refuses a directory as Node.js does, and a file longer than asked", async () => {
    await expect(read("dir")).rejects.toMatchObject({ code: "EISDIR", message: "is a directory" });
    await expect(read("big", 99_999)).rejects.toMatchObject({ code: "EFBIG", message: "larger than 99999 bytes" });
  });

  it("reads a kernel file whose size says nothing, up to the limit", async () => {
    // /proc files report size 0
    expect((await readRegularFile("/proc/self/status", { maxBytes: 64 * 1024 })).toString()).toMatch(/^Name:/);
    await expect(readRegularFile("/proc/self/status", { maxBytes: 10 })).rejects.toMatchObject({ code: "EFBIG" });
  });

  it("passes on the open's own errors, and stops when aborted", async () => {
    await expect(read("missing")).rejects.toMatchObject({ code: "ENOENT" });
    await expect(readRegularFile(join(dir, "small"), { maxBytes: 10, signal: AbortSignal.abort() })).rejects.toThrow(
      "This operation was aborted",
    );
  });
});
