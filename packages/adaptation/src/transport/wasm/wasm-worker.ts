/**
 * The thread a WASM plugin runs in. WebAssembly runs synchronously, so a
 * module that loops would stop the runtime's event loop, and no timer could
 * end its request; in a worker thread of its own, the adaptation terminates
 * it at the request's deadline instead, as wazero closes a module whose
 * context is done.
 *
 * The worker only moves bytes: it instantiates the module with WASI
 * (Node's node:wasi) and the host function `env.log`, runs its
 * `_initialize`, checks its exports as the Go host does, then for each call
 * copies the request into memory the module allocates, calls the export
 * and copies the answer out. Encoding, decoding and error texts are the
 * main thread's (wasm-transport.ts).
 *
 * What the module says is bounded here, before it is copied: of an error
 * text only the head is copied (the main thread gets its size), and of its
 * log messages only so many per call (and per load); the others are counted
 * and dropped, so that a module logging in a loop costs the runtime no
 * memory.
 */
import type { Trap } from "./wasm-trap.js";
import type { WasmInstance, WasmMemory, WasmModule, WebAssemblyApi } from "./webassembly.js";

/** What the worker starts with. */
export interface WorkerData {
  module: WasmModule;
  /** The exports a plugin must have, in the order the Go host checks them. */
  requiredExports: string[];
  /** The plugin API version the host speaks. */
  apiVersion: number;
  /** Where the module's standard streams go: a file descriptor open on /dev/null. */
  nullFd: number;
  /** How many bytes of an error text are copied out. */
  textLimit: number;
  /** How many log messages, of how many bytes in all, a call (or the load) passes on. */
  logLimit: LogLimit;
  /**
   * Two counters (`BigInt64Array`) of the log messages dropped in the
   * current call (or load), and of their bytes; the main thread reads them
   * when it ends the module in the middle of a call.
   */
  logDropped: SharedArrayBuffer;
}

/** How much of a module's log a call passes on. */
export interface LogLimit {
  messages: number;
  bytes: number;
}

/** Log messages of one call (or the load) that were over the limit. */
export interface DroppedLogs {
  messages: number;
  bytes: number;
}

/** A call of an export with a request already encoded. */
export interface WorkerCall {
  id: number;
  export: string;
  bytes: Uint8Array;
}

/** Why the module could not be loaded or a call did not return. */
export type WorkerFailure =
  /** The module trapped, or a host function failed; `start` names the start function it happened in. */
  | { kind: "trap"; trap: Trap; start?: string }
  /** The module called WASI's proc_exit: it is gone. */
  | { kind: "exit"; code: number }
  /** The module does not fit the plugin ABI (no such export, memory out of range, ...). */
  | { kind: "error"; message: string };

export type WorkerMessage =
  | { kind: "ready"; dropped: DroppedLogs }
  | { kind: "failed"; failure: WorkerFailure; dropped: DroppedLogs }
  | { kind: "log"; bytes: Uint8Array }
  /** `bytes` of an error text are its head (at most `textLimit`); `size` is its whole size. */
  | { kind: "answer"; id: number; bytes: Uint8Array; size: number; isError: boolean; dropped: DroppedLogs }
  | { kind: "fault"; id: number; failure: WorkerFailure; dropped: DroppedLogs };

/**
 * The worker's code. It runs from its source text (see
 * `wasmWorkerSource`), so it must not refer to anything outside itself.
 */
function wasmWorkerMain(): void {
  // (a worker started from source text has require, not import)
  const { parentPort, workerData } = require("node:worker_threads") as typeof import("node:worker_threads");
  const { WASI } = require("node:wasi") as typeof import("node:wasi");
  const data = workerData as WorkerData;
  const { Instance, Memory } = (globalThis as unknown as { WebAssembly: WebAssemblyApi }).WebAssembly;
  const port = parentPort!;
  // deep enough for wazero's 30 frames plus this thread's own
  Error.stackTraceLimit = 64;

  /** Thrown by proc_exit: WebAssembly cannot catch it, so it unwinds the module to the caller. */
  class Exit {
    constructor(readonly code: number) {}
  }

  type Exports = Record<string, unknown> & { memory?: WasmMemory };
  let exports: Exports = {};
  /** Set once the module exited: every later call gets the same exit, as from a closed wazero module. */
  let exited: number | undefined;

  const post = (message: WorkerMessage) => {
    const transfer = "bytes" in message ? [message.bytes.buffer as ArrayBuffer] : [];
    port.postMessage(message, transfer);
  };

  const memory = (): Uint8Array => {
    if (!(exports.memory instanceof Memory)) throw new Error("memory is not exported");
    return new Uint8Array(exports.memory.buffer);
  };

  /** A copy of the first `keep` of `size` bytes at `ptr`; undefined when the `size` bytes are not all in memory. */
  const read = (ptr: number, size: number, keep = size): Uint8Array | undefined => {
    const bytes = memory();
    return ptr + size <= bytes.length ? bytes.slice(ptr, ptr + Math.min(size, keep)) : undefined;
  };

  const dropped = new BigInt64Array(data.logDropped);
  /** What the current call (or the load) has logged so far. */
  let logged = { messages: 0, bytes: 0 };
  const startLog = () => {
    logged = { messages: 0, bytes: 0 };
    Atomics.store(dropped, 0, 0n);
    Atomics.store(dropped, 1, 0n);
  };
  const droppedLogs = (): DroppedLogs => ({
    messages: Number(Atomics.load(dropped, 0)),
    bytes: Number(Atomics.load(dropped, 1)),
  });

  const failure = (error: unknown): WorkerFailure => {
    if (error instanceof Exit) {
      exited = error.code;
      return { kind: "exit", code: error.code };
    }
    const { name = "Error", message = String(error), stack = "" } = error as Partial<Error>;
    const frames = Array.from(String(stack).matchAll(/wasm-function\[(\d+)\]/g), (match) => Number(match[1]));
    return { kind: "trap", trap: { name, message, frames } };
  };

  const wasi = new WASI({
    version: "preview1",
    args: [],
    env: {},
    stdin: data.nullFd,
    stdout: data.nullFd,
    stderr: data.nullFd,
  });
  const imports = {
    wasi_snapshot_preview1: {
      ...wasi.wasiImport,
      proc_exit(code: number): never {
        throw new Exit(code >>> 0);
      },
    },
    env: {
      /** Log(LogRequest) Empty: the request is passed on; the empty answer takes no memory (0 as pointer and size). */
      log(ptr: number, size: number): bigint {
        const length = size >>> 0;
        const limit = data.logLimit;
        const within = logged.messages < limit.messages && logged.bytes + length <= limit.bytes;
        const bytes = read(ptr >>> 0, length, within ? length : 0);
        if (!bytes) throw new Error(`Memory.Read(${ptr >>> 0}, ${length}) out of range`);
        if (within) {
          logged.messages += 1;
          logged.bytes += length;
          post({ kind: "log", bytes });
        } else {
          Atomics.add(dropped, 0, 1n);
          Atomics.add(dropped, 1, BigInt(length));
        }
        return 0n;
      },
    },
  };

  const fn = (name: string) => exports[name] as ((...args: unknown[]) => unknown) | undefined;

  /** Frees what the module allocated; as in the Go host, a failure to free is no failure of the call. */
  const freeQuietly = (ptr: number) => {
    try {
      fn("free")!(ptr);
    } catch (error) {
      // the call's own outcome is the one to report, unless the module is gone now
      if (error instanceof Exit) exited = error.code;
    }
  };

  const load = (): WorkerFailure | undefined => {
    let instance: WasmInstance;
    try {
      instance = new Instance(data.module, imports);
    } catch (error) {
      return { kind: "error", message: (error as Error).message };
    }
    exports = instance.exports as Exports;
    try {
      // Only _initialize runs (a reactor's start); a command's _start never does, as with the Go host.
      wasi.initialize({ exports: { memory: exports.memory, _initialize: exports._initialize } });
    } catch (error) {
      if (error instanceof Exit) {
        if (error.code !== 0) return { kind: "error", message: `unexpected exit_code: ${error.code}` };
        // The Go host takes exit 0 for success and goes on, to find the module closed.
        exited = 0;
      } else {
        const reason = failure(error);
        // node:wasi refusing the instance (no memory) is no trap: no WASM frame was on the stack
        if (reason.kind !== "trap") return reason;
        if (reason.trap.frames.length > 0) return { ...reason, start: "_initialize" };
        return { kind: "error", message: reason.trap.message };
      }
    }
    const version = fn("plugin_api_version");
    if (typeof version !== "function") return { kind: "error", message: "plugin_api_version is not exported" };
    if (exited !== undefined) return { kind: "exit", code: exited };
    let result: unknown;
    try {
      result = version();
    } catch (error) {
      return failure(error);
    }
    if (typeof result !== "bigint" && typeof result !== "number") {
      return { kind: "error", message: "invalid plugin_api_version signature" };
    }
    const plugin = BigInt.asUintN(64, BigInt(result));
    if (plugin !== BigInt(data.apiVersion)) {
      return { kind: "error", message: `API version mismatch, host: ${data.apiVersion}, plugin: ${plugin}` };
    }
    const missing = data.requiredExports.find((name) => typeof fn(name) !== "function");
    if (missing) return { kind: "error", message: `${missing} is not exported` };
    return undefined;
  };

  /** One call of the plugin ABI: request into module memory, packed (pointer, size) answer out. */
  const call = ({ id, export: name, bytes }: WorkerCall): WorkerMessage => {
    startLog();
    const answer = answerOf(id, name, bytes);
    return { ...answer, dropped: droppedLogs() } as WorkerMessage;
  };

  type Answer =
    | Omit<Extract<WorkerMessage, { kind: "answer" }>, "dropped">
    | Omit<Extract<WorkerMessage, { kind: "fault" }>, "dropped">;

  const answerOf = (id: number, name: string, bytes: Uint8Array): Answer => {
    if (exited !== undefined) return { kind: "fault", id, failure: { kind: "exit", code: exited } };
    const malloc = fn("malloc")!;
    let dataPtr = 0;
    try {
      if (bytes.length > 0) {
        dataPtr = Number(malloc(bytes.length)) >>> 0;
        const target = memory();
        if (dataPtr + bytes.length > target.length) {
          const message = `Memory.Write(${dataPtr}, ${bytes.length}) out of range of memory size ${target.length}`;
          return { kind: "fault", id, failure: { kind: "error", message } };
        }
        target.set(bytes, dataPtr);
      }
      const result = fn(name)!(dataPtr, bytes.length);
      if (typeof result !== "bigint")
        return { kind: "fault", id, failure: { kind: "error", message: `invalid ${name} signature` } };
      const packed = BigInt.asUintN(64, result);
      const resPtr = Number(packed >> 32n);
      const sizeWord = Number(packed & 0xffffffffn);
      // bit 31 of the size marks an error text instead of a message
      const isError = sizeWord >= 0x80000000;
      const resSize = sizeWord & 0x7fffffff;
      try {
        // of an error text, the head is enough: it is all the main thread keeps
        const answer = read(resPtr, resSize, isError ? data.textLimit : resSize);
        if (!answer) {
          const message = `Memory.Read(${resPtr}, ${resSize}) out of range of memory size ${memory().length}`;
          return { kind: "fault", id, failure: { kind: "error", message } };
        }
        return { kind: "answer", id, bytes: answer, size: resSize, isError };
      } finally {
        if (resPtr !== 0 && exited === undefined) freeQuietly(resPtr);
      }
    } catch (error) {
      return { kind: "fault", id, failure: failure(error) };
    } finally {
      if (dataPtr !== 0 && exited === undefined) freeQuietly(dataPtr);
    }
  };

  startLog();
  const loadFailure = load();
  if (loadFailure) {
    post({ kind: "failed", failure: loadFailure, dropped: droppedLogs() });
    return;
  }
  port.on("message", (message: WorkerCall) => post(call(message)));
  post({ kind: "ready", dropped: droppedLogs() });
}

/**
 * The worker's source, for `new Worker(source, { eval: true })`. Loaders
 * that keep function names (tsx, esbuild's keepNames) wrap functions in
 * calls to a `__name` helper of the enclosing module; the worker gets a
 * harmless one of its own.
 */
export function wasmWorkerSource(): string {
  return `"use strict";\nconst __name = (target) => target;\n(${wasmWorkerMain.toString()})();\n`;
}
