/*
 * @nri-ts/common's tables of Go's Unicode classes (src/go-unicode-tables.ts)
 * are what cmd/go-unicode writes from the Go toolchain's own tables: a new
 * Go with a new Unicode version fails this test until they are regenerated
 * (`npm run go-unicode`).
 */
import { execFile } from "node:child_process";
import { readFile } from "node:fs/promises";
import { join } from "node:path";
import { promisify } from "node:util";
import { beforeAll, expect, it } from "vitest";
import { describeWithGo, goCommand, moduleDir } from "./go.js";

describeWithGo("Go's Unicode tables in @nri-ts/common", () => {
  let bin: string;

  beforeAll(async () => {
    bin = await goCommand("go-unicode");
  }, 180_000);

  it("are the Go toolchain's", async () => {
    const { stdout } = await promisify(execFile)(bin, [], { maxBuffer: 1 << 24 });
    expect(await readFile(join(moduleDir, "..", "common", "src", "go-unicode-tables.ts"), "utf8")).toBe(stdout);
  });
});
