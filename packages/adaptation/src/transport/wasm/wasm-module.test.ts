import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import fc from "fast-check";
import { expect, test } from "vitest";
import { PLUGIN_EXPORTS, testWasmModule } from "../../testing/wasm-module.js";
import { isWasm, readModuleNames } from "./wasm-module.js";

test("a module's function names and signatures, imports first", () => {
  const names = readModuleNames(testWasmModule());
  expect(names?.module).toBe("");
  expect(names?.functions.slice(0, 7)).toEqual([
    { name: "env.log", params: ["i32", "i32"], results: ["i64"] },
    { name: "wasi_snapshot_preview1.proc_exit", params: ["i32"], results: [] },
    { name: "helper.crash", params: [], results: [] },
    { name: "malloc", params: ["i32"], results: ["i32"] },
    { name: "free", params: ["i32"], results: [] },
    { name: "plugin_api_version", params: [], results: ["i64"] },
    { name: "_initialize", params: [], results: [] },
  ]);
  expect(names?.functions.slice(7).map((f) => f.name)).toEqual(PLUGIN_EXPORTS);
});

test("without a name section, functions have signatures and no names", () => {
  const names = readModuleNames(testWasmModule({ anonymous: true }));
  expect(names?.functions[3]).toEqual({ name: "", params: ["i32"], results: ["i32"] });
});

test("any bytes: names or undefined, never an exception", () => {
  const module = testWasmModule();
  fc.assert(
    fc.property(fc.uint8Array({ maxLength: 256 }), fc.nat(module.length), (noise, at) => {
      readModuleNames(Uint8Array.from([0x00, 0x61, 0x73, 0x6d, 0x01, 0x00, 0x00, 0x00, ...noise]));
      const damaged = module.slice();
      damaged.set(noise.subarray(0, damaged.length - at), at);
      readModuleNames(damaged);
    }),
  );
});

test("a WASM plugin is told by its first eight bytes, as Go tells it", async () => {
  const dir = await mkdtemp(join(tmpdir(), "nri-wasm-module-"));
  try {
    const file = (name: string, bytes: Uint8Array) => writeFile(join(dir, name), bytes).then(() => join(dir, name));
    expect(await isWasm(await file("module", testWasmModule()))).toBe(true);
    expect(
      await isWasm(await file("version2", Uint8Array.from([0x00, 0x61, 0x73, 0x6d, 0x02, 0x00, 0x00, 0x00]))),
    ).toBe(false);
    expect(await isWasm(await file("short", Uint8Array.from([0x00, 0x61, 0x73, 0x6d])))).toBe(false);
    expect(await isWasm(await file("script", Buffer.from("#!/bin/sh\nexit 0\n")))).toBe(false);
    expect(await isWasm(join(dir, "missing"))).toBe(false);
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
});
