/**
 * Test helper: small WebAssembly plugin modules, assembled byte by byte, that
 * follow NRI's WASM plugin ABI and do exactly what a test asks of each export
 * (answer given bytes, fail with a text, trap, loop, exit, log the request).
 * Real Go plugins (compiled with GOOS=wasip1) are tested in
 * packages/conformance; these need no Go and take microseconds to load.
 */
import { PluginDefinition } from "@nri-ts/api";
import type { PluginMethod } from "../transport/plugin-transport.js";
import { exportName } from "../transport/wasm/wasm-transport.js";

/** What one export does when called. */
export type ExportBehaviour =
  /** Answers with these bytes as the encoded response. */
  | { answer: Uint8Array }
  /** Answers with this error text. */
  | { error: string }
  /** Answers with an error text of this many bytes (NULs) at 1 MiB into its memory, which it grows to hold them. */
  | { errorBytes: number }
  /** Passes the request bytes to the host's log function as if they were a LogRequest, then answers. */
  | { logRequest: true; answer?: Uint8Array }
  /** Passes each of these (encoded LogRequests, or anything) to the host's log function, then answers. */
  | { log: Uint8Array[]; answer?: Uint8Array }
  /** Passes this (an encoded LogRequest) to the host's log function over and over, `times` times or forever. */
  | { logLoop: Uint8Array; times?: number }
  /** Executes `unreachable` in a helper function it calls (two frames on the stack). */
  | "trap"
  /** Loops forever. */
  | "spin"
  /** Calls WASI proc_exit(7). */
  | "exit"
  /** Answers with a pointer past the end of memory. */
  | "bad-pointer";

export interface TestModuleOptions {
  /** By export name (`plugin_create_container`, ...); the others answer an empty message. */
  exports?: Partial<Record<string, ExportBehaviour>>;
  /** What `plugin_api_version` returns (default 1). */
  apiVersion?: bigint;
  /** Exports to leave out. */
  omit?: string[];
  /** What `_initialize` does (default nothing). */
  initialize?: "trap" | "spin" | "exit" | "exit0";
  /** Leave out the name section. */
  anonymous?: boolean;
}

const I32 = 0x7f;
const I64 = 0x7e;

function u32(value: number): number[] {
  const out: number[] = [];
  do {
    let byte = value & 0x7f;
    value >>>= 7;
    if (value !== 0) byte |= 0x80;
    out.push(byte);
  } while (value !== 0);
  return out;
}

function s64(value: bigint): number[] {
  const out: number[] = [];
  for (;;) {
    const byte = Number(value & 0x7fn);
    value >>= 7n;
    const done = (value === 0n && (byte & 0x40) === 0) || (value === -1n && (byte & 0x40) !== 0);
    out.push(done ? byte : byte | 0x80);
    if (done) return out;
  }
}

function name(text: string): number[] {
  const bytes = [...Buffer.from(text, "utf8")];
  return [...u32(bytes.length), ...bytes];
}

function vector(items: number[][]): number[] {
  return [...u32(items.length), ...items.flat()];
}

function section(id: number, body: number[]): number[] {
  return [id, ...u32(body.length), ...body];
}

/** Function types, by their index in the type section. */
const TYPES = {
  call: 0, // (i32, i32) -> i64: plugin exports, env.log
  malloc: 1, // (i32) -> i32
  free: 2, // (i32) -> (): free, proc_exit
  version: 3, // () -> i64
  void: 4, // () -> ()
} as const;

const TYPE_SECTION = vector([
  [0x60, ...vector([[I32], [I32]]), ...vector([[I64]])],
  [0x60, ...vector([[I32]]), ...vector([[I32]])],
  [0x60, ...vector([[I32]]), 0],
  [0x60, 0, ...vector([[I64]])],
  [0x60, 0, 0],
]);

/** Imported functions come first in the function index space. */
const LOG = 0;
const PROC_EXIT = 1;
const IMPORTS = vector([
  [...name("env"), ...name("log"), 0x00, ...u32(TYPES.call)],
  [...name("wasi_snapshot_preview1"), ...name("proc_exit"), 0x00, ...u32(TYPES.free)],
]);

const op = {
  unreachable: 0x00,
  block: 0x02,
  loop: 0x03,
  br: 0x0c,
  brIf: 0x0d,
  end: 0x0b,
  call: 0x10,
  drop: 0x1a,
  localGet: 0x20,
  localSet: 0x21,
  globalGet: 0x23,
  globalSet: 0x24,
  i32Const: 0x41,
  i64Const: 0x42,
  i32Eqz: 0x45,
  i32Add: 0x6a,
} as const;

const VOID_BLOCK = 0x40;

/** A WebAssembly page, in bytes. */
const PAGE = 65536;
/** Where an `errorBytes` answer starts, after the data and what malloc hands out. */
const HUGE_AT = 16 << 20;
/** What malloc has to hand out. */
const HEAP = 32768;

/** Every Plugin method's export. */
export const PLUGIN_EXPORTS = (Object.keys(PluginDefinition.methods) as PluginMethod[]).map(exportName);

/** Assembles a plugin module. */
export function testWasmModule(options: TestModuleOptions = {}): Uint8Array {
  const omit = new Set(options.omit ?? []);
  const data: number[][] = [];
  // answers and error texts live in data segments from 4096 on; malloc hands out memory after them, from 32768 on
  let dataEnd = 4096;
  let pages = 1;
  const place = (bytes: Uint8Array): bigint => {
    const offset = dataEnd;
    data.push([0x00, op.i32Const, ...s64(BigInt(offset)), op.end, ...u32(bytes.length), ...bytes]);
    dataEnd += bytes.length;
    return (BigInt(offset) << 32n) | BigInt(bytes.length);
  };
  const returns = (packed: bigint) => [op.i64Const, ...s64(BigInt.asIntN(64, packed))];

  const functions: Array<{ name: string; type: number; locals?: number[]; body: number[]; exported: boolean }> = [];
  const define = (fname: string, type: number, body: number[], exported = true) => {
    functions.push({ name: fname, type, body, exported });
    return 2 + functions.length - 1;
  };
  const crash = define("helper.crash", TYPES.void, [op.unreachable], false);
  const spin = [op.loop, VOID_BLOCK, op.br, 0, op.end];
  const exit = (code: number) => [op.i32Const, ...s64(BigInt(code)), op.call, ...u32(PROC_EXIT)];

  define("malloc", TYPES.malloc, [op.globalGet, 0, op.globalGet, 0, op.localGet, 0, op.i32Add, op.globalSet, 0]);
  define("free", TYPES.free, []);
  define("plugin_api_version", TYPES.version, returns(options.apiVersion ?? 1n));
  const init = options.initialize;
  define(
    "_initialize",
    TYPES.void,
    init === "trap"
      ? [op.call, ...u32(crash)]
      : init === "spin"
        ? spin
        : init === "exit"
          ? exit(3)
          : init === "exit0"
            ? exit(0)
            : [],
  );
  for (const exported of PLUGIN_EXPORTS) {
    const behaviour = options.exports?.[exported];
    let body: number[];
    if (behaviour === undefined) body = returns(0n);
    else if (behaviour === "trap") body = [op.call, ...u32(crash), ...returns(0n)];
    else if (behaviour === "spin") body = [...spin, ...returns(0n)];
    else if (behaviour === "exit") body = [...exit(7), ...returns(0n)];
    else if (behaviour === "bad-pointer") body = returns((0x7fff0000n << 32n) | 16n);
    else if ("error" in behaviour) body = returns(place(Buffer.from(behaviour.error)) | (1n << 31n));
    else if ("errorBytes" in behaviour) {
      pages = Math.max(pages, Math.ceil((HUGE_AT + behaviour.errorBytes) / PAGE));
      body = returns((BigInt(HUGE_AT) << 32n) | BigInt(behaviour.errorBytes) | (1n << 31n));
    } else if ("logLoop" in behaviour) {
      const packed = place(behaviour.logLoop);
      const logOnce = [
        op.i32Const,
        ...s64(packed >> 32n),
        op.i32Const,
        ...s64(BigInt(behaviour.logLoop.length)),
        op.call,
        ...u32(LOG),
        op.drop,
      ];
      // the first parameter, the request's pointer, counts down the calls
      const loop =
        behaviour.times === undefined
          ? [op.loop, VOID_BLOCK, ...logOnce, op.br, 0, op.end]
          : [
              op.i32Const,
              ...s64(BigInt(behaviour.times)),
              op.localSet,
              0,
              op.block,
              VOID_BLOCK,
              op.loop,
              VOID_BLOCK,
              op.localGet,
              0,
              op.i32Eqz,
              op.brIf,
              1,
              ...logOnce,
              op.localGet,
              0,
              op.i32Const,
              ...s64(-1n),
              op.i32Add,
              op.localSet,
              0,
              op.br,
              0,
              op.end,
              op.end,
            ];
      body = [...loop, ...returns(0n)];
    } else if ("logRequest" in behaviour) {
      const answer = behaviour.answer ? place(behaviour.answer) : 0n;
      body = [op.localGet, 0, op.localGet, 1, op.call, ...u32(LOG), op.drop, ...returns(answer)];
    } else if ("log" in behaviour) {
      const calls = behaviour.log.flatMap((message) => {
        const packed = place(message);
        const ptr = Number(packed >> 32n);
        return [
          op.i32Const,
          ...s64(BigInt(ptr)),
          op.i32Const,
          ...s64(BigInt(message.length)),
          op.call,
          ...u32(LOG),
          op.drop,
        ];
      });
      body = [...calls, ...returns(behaviour.answer ? place(behaviour.answer) : 0n)];
    } else body = returns(place(behaviour.answer));
    define(exported, TYPES.call, body);
  }

  const heapStart = Math.max(32768, Math.ceil(dataEnd / 8) * 8);
  if (heapStart + HEAP > HUGE_AT) throw new RangeError("too much data for a test module");
  pages = Math.max(pages, Math.ceil((heapStart + HEAP) / PAGE));
  const kept = functions.map((f, i) => ({ ...f, index: 2 + i })).filter((f) => f.exported && !omit.has(f.name));
  const exports = [
    ...(omit.has("memory") ? [] : [[...name("memory"), 0x02, 0]]),
    ...kept.map((f) => [...name(f.name), 0x00, ...u32(f.index)]),
  ];
  const bytes = [
    0x00,
    0x61,
    0x73,
    0x6d,
    0x01,
    0x00,
    0x00,
    0x00,
    ...section(1, TYPE_SECTION),
    ...section(2, IMPORTS),
    ...section(3, vector(functions.map((f) => u32(f.type)))),
    ...section(5, vector([[0x00, ...u32(pages)]])),
    ...section(6, vector([[I32, 0x01, op.i32Const, ...s64(BigInt(heapStart)), op.end]])),
    ...section(7, vector(exports)),
    ...section(
      10,
      vector(
        functions.map((f) => {
          const body = [0, ...f.body, op.end];
          return [...u32(body.length), ...body];
        }),
      ),
    ),
    ...section(11, vector(data)),
  ];
  if (!options.anonymous) {
    const names = vector([
      [...u32(LOG), ...name("env.log")],
      [...u32(PROC_EXIT), ...name("wasi_snapshot_preview1.proc_exit")],
      ...functions.map((f, i) => [...u32(2 + i), ...name(f.name)]),
    ]);
    bytes.push(...section(0, [...name("name"), 1, ...u32(names.length), ...names]));
  }
  return new Uint8Array(bytes);
}
