/**
 * The text of a WASM call that trapped, as the Go adaptation reports it:
 * wazero's `wasm error: <what>` followed by the module's stack, one
 * `<module>.<function>(<params>) <results>` line per frame, innermost first.
 */
import type { ModuleNames } from "./wasm-module.js";

/** A trap as the worker saw it: V8's error and the indices of the WASM functions on the stack. */
export interface Trap {
  /** The error's class: `RuntimeError` for a trap, `RangeError` for stack exhaustion, else a host function's error. */
  name: string;
  message: string;
  /** Function indices, innermost first. */
  frames: number[];
}

/** wazero's words for V8's trap messages. */
const WAZERO_TRAPS: ReadonlyMap<string, string> = new Map([
  ["unreachable", "unreachable"],
  ["memory access out of bounds", "out of bounds memory access"],
  ["divide by zero", "integer divide by zero"],
  ["remainder by zero", "integer divide by zero"],
  ["divide result unrepresentable", "integer overflow"],
  ["float unrepresentable in integer range", "invalid conversion to integer"],
  ["table index is out of bounds", "invalid table access"],
  ["null function or function signature mismatch", "indirect call type mismatch"],
  ["operation does not support unaligned accesses", "unaligned atomic"],
  ["Maximum call stack size exceeded", "stack overflow"],
]);

/** wazero lists this many frames at most, then says that more may follow. */
const MAX_FRAMES = 30;

function frameText(names: ModuleNames | undefined, index: number): string {
  const signature = names?.functions[index];
  const module = names?.module ?? "";
  if (!signature) return `${module}.$${index}`;
  const { params, results } = signature;
  const returns = results.length === 0 ? "" : results.length === 1 ? ` ${results[0]}` : ` (${results.join(",")})`;
  return `${module}.${signature.name || `$${index}`}(${params.join(",")})${returns}`;
}

/** The error text of a trapped call, e.g. `wasm error: unreachable\nwasm stack trace:\n\t.runtime.abort(i32) i32...`. */
export function trapText(trap: Trap, names: ModuleNames | undefined): string {
  const lines = trap.frames.slice(0, MAX_FRAMES).map((index) => frameText(names, index));
  if (trap.frames.length >= MAX_FRAMES) lines.push("... maybe followed by omitted frames");
  const wasmTrap = trap.name === "RuntimeError" || (trap.name === "RangeError" && WAZERO_TRAPS.has(trap.message));
  const what = wasmTrap ? `wasm error: ${WAZERO_TRAPS.get(trap.message) ?? trap.message}` : trap.message;
  return `${what}\nwasm stack trace:\n\t${lines.join("\n\t")}`;
}
