import { execFileSync } from "node:child_process";
import { mkdir, mkdtemp, rm, symlink, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { type HookSet, MAX_HOOK_FILE_BYTES, readHooksDir, readHooksDirs, startupError } from "./hook-dirs.js";

let root: string;
let low: string;
let high: string;

beforeEach(async () => {
  root = await mkdtemp(join(tmpdir(), "nri-hook-dirs-"));
  [low, high] = [join(root, "usr"), join(root, "etc")];
  await Promise.all([mkdir(low), mkdir(high)]);
});

afterEach(() => rm(root, { recursive: true, force: true }));

const good = (path = "/bin/true") =>
  JSON.stringify({ version: "1.0.0", hook: { path }, when: { always: true }, stages: ["poststop"] });

describe("readHooksDir", () => {
  it("reads the .json files, and skips other files, directories and dangling links", async () => {
    await writeFile(join(low, "a.json"), good());
    await writeFile(join(low, "b.txt"), "not json");
    await mkdir(join(low, "sub"));
    await symlink(join(root, "gone.json"), join(low, "dangling.json"));
    const hooks: HookSet = new Map();
    expect(await readHooksDir(low, hooks)).toBeUndefined();
    expect([...hooks.keys()]).toEqual(["a.json"]);
  });

  it("reports a missing directory as Go does, as something missing", async () => {
    const hooks: HookSet = new Map();
    const error = await readHooksDir(join(root, "nope"), hooks);
    expect(error?.message).toBe(`open ${join(root, "nope")}: no such file or directory`);
    expect(startupError({ hooks, errors: [{ dir: "x", error: error as Error }] })).toBeUndefined();
  });

  it("chains the errors of several bad files, the last one read first, and keeps the good ones", async () => {
    await writeFile(join(low, "1.json"), '{"version": "9"}');
    await writeFile(join(low, "2.json"), good());
    await writeFile(join(low, "3.json"), "{");
    await mkdir(join(low, "4.json"));
    const hooks: HookSet = new Map();
    const error = await readHooksDir(low, hooks);
    expect(error?.message).toBe(
      `read ${join(low, "4.json")}: is a directory: parsing hook "${join(low, "3.json")}": version check: unexpected end of JSON input: parsing hook "${join(low, "1.json")}": unrecognized hook version: "9"`,
    );
    expect([...hooks.keys()]).toEqual(["2.json"]);
  });

  it("reads only regular files, without blocking, up to a size, and keeps the good ones", async () => {
    await writeFile(join(low, "1.json"), good());
    execFileSync("mkfifo", [join(low, "2-pipe.json")]);
    await symlink("/dev/zero", join(low, "3-zero.json"));
    await writeFile(join(low, "4-big.json"), Buffer.alloc(MAX_HOOK_FILE_BYTES + 1, " "));
    const hooks: HookSet = new Map();
    const error = await readHooksDir(low, hooks);
    expect(error?.message).toBe(
      [
        `read ${join(low, "4-big.json")}: larger than 1048576 bytes`,
        `read ${join(low, "3-zero.json")}: not a regular file: a character device`,
        `read ${join(low, "2-pipe.json")}: not a regular file: a named pipe`,
      ].join(": "),
    );
    expect([...hooks.keys()]).toEqual(["1.json"]);
  });
});

describe("readHooksDirs", () => {
  it("lets a later directory's file replace the same-named one", async () => {
    await writeFile(join(low, "a.json"), good("/bin/true"));
    await writeFile(join(low, "b.json"), good("/bin/true"));
    await writeFile(join(high, "a.json"), good("/bin/sh"));
    const read = await readHooksDirs([low, high]);
    expect(read.errors).toEqual([]);
    expect([...read.hooks].map(([name, hook]) => [name, hook.hook.path])).toEqual([
      ["a.json", "/bin/sh"],
      ["b.json", "/bin/true"],
    ]);
  });

  it("keeps the lower file when the one meant to replace it is bad", async () => {
    await writeFile(join(low, "a.json"), good("/bin/true"));
    await writeFile(join(high, "a.json"), "[]");
    const read = await readHooksDirs([low, high]);
    expect(read.hooks.get("a.json")?.hook.path).toBe("/bin/true");
    expect(read.errors.map((e) => e.dir)).toEqual([high]);
  });
});

describe("startupError, as the library's New decides", () => {
  it("stops for a bad file", async () => {
    await writeFile(join(high, "a.json"), "[]");
    expect(startupError(await readHooksDirs([low, high]))?.message).toBe(
      `parsing hook "${join(high, "a.json")}": version check: json: cannot unmarshal array into Go value of type hooks.version`,
    );
  });

  it("goes on when a directory's first failure is a missing program, whatever follows", async () => {
    await writeFile(join(low, "a.json"), good("/does/not/exist"));
    await writeFile(join(low, "b.json"), "[]");
    const read = await readHooksDirs([low]);
    expect(read.errors[0].error.message).toMatch(
      /^parsing hook .*b\.json.*: faccessat \/does\/not\/exist: no such file or directory$/,
    );
    expect(startupError(read)).toBeUndefined();
    expect(read.hooks.size).toBe(0);
  });

  it("stops when the missing program comes after another failure", async () => {
    await writeFile(join(low, "a.json"), "[]");
    await writeFile(join(low, "b.json"), good("/does/not/exist"));
    expect(startupError(await readHooksDirs([low]))).toBeDefined();
  });

  it("stops for a path that is not a directory", async () => {
    await writeFile(join(root, "file"), "");
    expect(startupError(await readHooksDirs([join(root, "file")]))?.message).toBe(
      `open ${join(root, "file")}: not a directory`,
    );
  });
});
