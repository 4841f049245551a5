import { once } from "node:events";
import { mkdir, mkdtemp, rm, stat, unlink, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { Logger } from "@nri-ts/stub";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { HookSetupError, HookStore } from "./hook-store.js";

let root: string;
let lines: string[];
const logger: Logger = {
  debug: (msg: unknown) => void lines.push(`debug ${String(msg)}`),
  info: (msg: unknown) => void lines.push(`info ${String(msg)}`),
  warn: (msg: unknown) => void lines.push(`warn ${String(msg)}`),
  error: (msg: unknown) => void lines.push(`error ${String(msg)}`),
};
const good = (path: string) =>
  JSON.stringify({ version: "1.0.0", hook: { path }, when: { always: true }, stages: ["poststop"] });
const paths = (store: HookStore) => [...store.hooks].map(([name, hook]) => `${name}=${hook.hook.path}`);

beforeEach(async () => {
  root = await mkdtemp(join(tmpdir(), "nri-hook-store-"));
  lines = [];
});

afterEach(() => rm(root, { recursive: true, force: true }));

describe("HookStore", () => {
  it("refuses to start with a bad hook file, with the Go plugin's message", async () => {
    await writeFile(join(root, "bad.json"), "{]");
    await expect(HookStore.open([root], logger)).rejects.toThrow(
      new HookSetupError(
        `failed to set up hook manager: parsing hook "${join(root, "bad.json")}": version check: invalid character ']' looking for beginning of object key string`,
      ),
    );
  });

  it("starts without its directories, and creates them (0755) when it watches", async () => {
    const [low, high] = [join(root, "usr", "hooks.d"), join(root, "etc", "hooks.d")];
    const store = await HookStore.open([low, high], logger);
    expect(store.hooks.size).toBe(0);
    await store.watch();
    try {
      expect(((await stat(low)).mode & 0o777).toString(8)).toBe("755");
      expect((await stat(high)).isDirectory()).toBe(true);
      expect(lines).toContain(`debug monitoring "${high}" for hooks`);
    } finally {
      store.close();
    }
  });

  it("reloads when files are added, replaced, broken and removed, logging what fails", async () => {
    const [low, high] = [join(root, "low"), join(root, "high")];
    await Promise.all([mkdir(low), mkdir(high)]);
    await writeFile(join(low, "a.json"), good("/bin/true"));
    const store = await HookStore.open([low, high], logger);
    await store.watch();
    const change = async (action: () => Promise<void>) => {
      const reloaded = once(store, "reload");
      await action();
      await reloaded;
      // a burst of events may be followed by one more reload
      await store.reload("settle");
    };
    try {
      expect(paths(store)).toEqual(["a.json=/bin/true"]);
      await change(() => writeFile(join(high, "a.json"), good("/bin/sh")));
      expect(paths(store)).toEqual(["a.json=/bin/sh"]);
      await change(() => writeFile(join(high, "b.json"), good("/bin/true")));
      expect(paths(store)).toEqual(["a.json=/bin/sh", "b.json=/bin/true"]);
      await change(() => writeFile(join(high, "a.json"), "{"));
      expect(paths(store)).toEqual(["a.json=/bin/true", "b.json=/bin/true"]);
      expect(
        lines.some(
          (l) =>
            l.startsWith("error Failed loading hooks for ") &&
            l.endsWith(`parsing hook "${join(high, "a.json")}": version check: unexpected end of JSON input`),
        ),
      ).toBe(true);
      await change(() => unlink(join(high, "b.json")));
      expect(paths(store)).toEqual(["a.json=/bin/true"]);
    } finally {
      store.close();
    }
  });

  it("runs one more reload for changes made during a reload", async () => {
    await writeFile(join(root, "a.json"), good("/bin/true"));
    const store = await HookStore.open([root], logger);
    const reloads: number[] = [];
    store.on("reload", (read) => reloads.push(read.hooks.size));
    const first = store.reload("one");
    await writeFile(join(root, "b.json"), good("/bin/true"));
    const second = store.reload("two");
    await Promise.all([first, second]);
    expect(reloads.at(-1)).toBe(2);
    expect(reloads.length).toBeLessThanOrEqual(2);
  });
});
