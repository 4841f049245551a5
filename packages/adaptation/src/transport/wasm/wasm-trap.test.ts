import { expect, test } from "vitest";
import type { ModuleNames } from "./wasm-module.js";
import { trapText } from "./wasm-trap.js";

const names: ModuleNames = {
  module: "plugin",
  functions: [
    { name: "runtime.abort", params: ["i32"], results: ["i32"] },
    { name: "", params: ["i32", "i64"], results: [] },
    { name: "pair", params: [], results: ["i32", "f64"] },
  ],
};

test("a trap in wazero's words, one line per frame with the module's name and the function's signature", () => {
  expect(trapText({ name: "RuntimeError", message: "unreachable", frames: [0, 1, 2, 7] }, names)).toBe(
    "wasm error: unreachable\nwasm stack trace:\n\tplugin.runtime.abort(i32) i32\n\tplugin.$1(i32,i64)\n\tplugin.pair() (i32,f64)\n\tplugin.$7",
  );
});

test.each([
  ["RuntimeError", "memory access out of bounds", "wasm error: out of bounds memory access"],
  ["RuntimeError", "divide by zero", "wasm error: integer divide by zero"],
  ["RuntimeError", "float unrepresentable in integer range", "wasm error: invalid conversion to integer"],
  ["RuntimeError", "something new", "wasm error: something new"],
  ["RangeError", "Maximum call stack size exceeded", "wasm error: stack overflow"],
  ["Error", "Memory.Read(1, 2) out of range", "Memory.Read(1, 2) out of range"],
])("%s %s: %s", (name, message, first) => {
  expect(trapText({ name, message, frames: [0] }, names).split("\n")[0]).toBe(first);
});

test("at most 30 frames, then a line saying more may follow (as wazero says it at exactly 30 too)", () => {
  const lines = trapText({ name: "RuntimeError", message: "unreachable", frames: Array(45).fill(0) }, names).split(
    "\n",
  );
  expect(lines).toHaveLength(2 + 30 + 1);
  expect(lines.at(-1)).toBe("\t... maybe followed by omitted frames");
  expect(
    trapText({ name: "RuntimeError", message: "unreachable", frames: Array(29).fill(0) }, names).split("\n"),
  ).toHaveLength(31);
});

test("without names, frames are numbered", () => {
  expect(trapText({ name: "RuntimeError", message: "unreachable", frames: [3] }, undefined)).toBe(
    "wasm error: unreachable\nwasm stack trace:\n\t.$3",
  );
});
