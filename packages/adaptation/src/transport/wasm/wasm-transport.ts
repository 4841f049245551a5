/**
 * A WebAssembly plugin, hosted as the Go adaptation hosts one (through
 * github.com/knqyf263/go-plugin's ABI, as generated into NRI's pkg/api):
 *
 * - each Plugin method is an export `plugin_<method in snake case>(ptr, size)
 *   i64` that takes the encoded request in the module's own memory (the host
 *   allocates it with the module's `malloc` and frees it with its `free`) and
 *   answers `ptr << 32 | size`, the size's bit 31 marking an error text
 *   instead of an encoded response; the host frees the answer too;
 * - the module may call the host function `env.log(ptr, size) i64` with an
 *   encoded LogRequest (answered with an empty message);
 * - it gets WASI preview 1 with no arguments, no environment, no files, and
 *   its standard streams going nowhere, and only `_initialize` is run.
 *
 * What a module says is bounded, unlike in Go: an error text to its first
 * 64 KiB (PLUGIN_TEXT_LIMIT), its log to LOG_LIMIT per call, each message
 * to 64 KiB; what is left out is said once.
 *
 * The module runs in a worker thread of its own (see wasm-worker.ts), so that
 * the request timeout holds even for a module that never returns.
 */
import { type FileHandle, open, readFile } from "node:fs/promises";
import { Worker } from "node:worker_threads";
import { decodeMessage, LogRequest, LogRequest_Level, type MessageType, PluginDefinition } from "@nri-ts/api";
import { Status } from "nice-grpc-common";
import { errorText } from "../../error-text.js";
import { encodePluginRequest } from "../request-encoding.js";
import { boundedText, PLUGIN_TEXT_LIMIT, pluginText } from "@nri-ts/common";
import {
  abortedFailure,
  CallFailure,
  type LocalFailure,
  type PluginMethod,
  type PluginRequest,
  type PluginResponse,
  type PluginTransport,
} from "../plugin-transport.js";
import { type ModuleNames, readModuleNames } from "./wasm-module.js";
import { trapText } from "./wasm-trap.js";
import { type WasmModule, webAssembly } from "./webassembly.js";
import {
  type DroppedLogs,
  type LogLimit,
  type WorkerData,
  type WorkerFailure,
  type WorkerMessage,
  wasmWorkerSource,
} from "./wasm-worker.js";

/** The plugin API version of NRI's generated host (`PluginPluginAPIVersion`). */
const PLUGIN_API_VERSION = 1;

/**
 * How much of a module's log one call (or its loading) passes on: 1,000
 * messages of 1 MiB in all. A module's log calls do not wait for the
 * runtime, so a module logging in a loop would otherwise queue messages
 * faster than any logger writes them, until its request times out.
 */
export const LOG_LIMIT: Readonly<LogLimit> = { messages: 1000, bytes: 1024 * 1024 };

/** A Plugin method's export: `createContainer` → `plugin_create_container`. */
export function exportName(method: PluginMethod): string {
  return `plugin_${method.replace(/[A-Z]/g, (letter) => `_${letter.toLowerCase()}`)}`;
}

/** Every export a plugin must have, in the order the Go host looks for them. */
const REQUIRED_EXPORTS = [
  ...(Object.keys(PluginDefinition.methods) as PluginMethod[]).map(exportName),
  "malloc",
  "free",
];

/** The levels of the adaptation's logger, by the LogRequest level the Go host maps to each. */
export type WasmLogLevel = "debug" | "info" | "warn" | "error";

function logLevel(level: LogRequest_Level): WasmLogLevel {
  switch (level) {
    case LogRequest_Level.LEVEL_INFO:
      return "info";
    case LogRequest_Level.LEVEL_WARN:
      return "warn";
    case LogRequest_Level.LEVEL_ERROR:
      return "error";
    default:
      return "debug";
  }
}

/** A WASM plugin could not be loaded; the message names the file, as Go's does. */
export class WasmLoadError extends Error {
  override readonly name = "WasmLoadError";

  constructor(
    readonly path: string,
    reason: string,
    options?: ErrorOptions,
  ) {
    super(`load WASM plugin ${path}: ${reason}`, options);
  }
}

export interface WasmLoadOptions {
  /** How long instantiating and initializing the module may take, in milliseconds. */
  timeoutMs: number;
  /**
   * Receives what the module logs through the host's Log function, as the
   * Go host logs it (unknown levels as debug); a message that does not
   * decode arrives as a warning saying so.
   */
  onLog(level: WasmLogLevel, message: string): void;
}

/** The text of a module gone with an exit code, as wazero words it. */
function exitText(code: number): string {
  return `module closed with exit_code(${code})`;
}

/** A call waiting for the worker's answer. */
interface PendingCall {
  method: PluginMethod;
  resolve(response: unknown): void;
  reject(failure: CallFailure): void;
  timer: NodeJS.Timeout;
}

/** One loaded WASM plugin module, reached through the plugin ABI. */
export class WasmTransport implements PluginTransport {
  readonly #worker: Worker;
  readonly #names: ModuleNames | undefined;
  readonly #onLog: WasmLoadOptions["onLog"];
  /** The worker's counts of the current call's dropped log messages. */
  readonly #logDropped: BigInt64Array;
  readonly #pending = new Map<number, PendingCall>();
  #nextId = 0;
  /** Why calls fail now that the module is gone; undefined while it is there. */
  #gone: { text: string; code: Status; local: LocalFailure } | undefined;
  /** Settles when the worker thread has ended. */
  readonly ended: Promise<void>;

  private constructor(
    worker: Worker,
    names: ModuleNames | undefined,
    onLog: WasmLoadOptions["onLog"],
    logDropped: BigInt64Array,
    ended: Promise<void>,
  ) {
    this.#worker = worker;
    this.#names = names;
    this.#onLog = onLog;
    this.#logDropped = logDropped;
    this.ended = ended;
  }

  /**
   * Reads, compiles, instantiates and initializes the module in a worker
   * thread, and checks that it is an NRI plugin (API version 1, every
   * export there).
   *
   * @throws WasmLoadError
   */
  static async load(path: string, options: WasmLoadOptions): Promise<WasmTransport> {
    let module: WasmModule;
    let names: ModuleNames | undefined;
    let nullFile: FileHandle;
    try {
      const bytes = await readFile(path);
      module = await webAssembly.compile(bytes);
      names = readModuleNames(bytes);
      nullFile = await open("/dev/null", "r+");
    } catch (error) {
      throw new WasmLoadError(path, errorText(error), { cause: error });
    }
    const logDropped = new SharedArrayBuffer(2 * BigInt64Array.BYTES_PER_ELEMENT);
    const workerData: WorkerData = {
      module,
      requiredExports: REQUIRED_EXPORTS,
      apiVersion: PLUGIN_API_VERSION,
      nullFd: nullFile.fd,
      textLimit: PLUGIN_TEXT_LIMIT,
      logLimit: LOG_LIMIT,
      logDropped,
    };
    const worker = new Worker(wasmWorkerSource(), { eval: true, workerData, stdout: true, stderr: true });
    // node:wasi's experimental warning goes there; the module's own streams go to /dev/null
    worker.stdout.resume();
    worker.stderr.resume();
    const ended = new Promise<void>((resolve) => worker.once("exit", () => resolve()));
    void ended.then(() => nullFile.close());
    let transport: WasmTransport | undefined;
    try {
      transport = await new Promise<WasmTransport>((resolve, reject) => {
        const timer = setTimeout(() => {
          reportDropped(options.onLog, droppedLogs(new BigInt64Array(logDropped)), "its initialization");
          reject(new WasmLoadError(path, `the module did not initialize within ${options.timeoutMs} ms`));
        }, options.timeoutMs);
        const settle = () => {
          clearTimeout(timer);
          worker.off("message", onMessage);
          worker.off("error", onError);
          worker.off("exit", onExit);
        };
        const onMessage = (message: WorkerMessage) => {
          if (message.kind === "log") return logTo(options.onLog, message.bytes);
          settle();
          if (message.kind === "ready" || message.kind === "failed") {
            reportDropped(options.onLog, message.dropped, "its initialization");
          }
          if (message.kind === "ready") {
            resolve(new WasmTransport(worker, names, options.onLog, new BigInt64Array(logDropped), ended));
          } else if (message.kind === "failed") {
            reject(new WasmLoadError(path, loadFailureText(message.failure, names)));
          }
        };
        const onError = (error: Error) => {
          settle();
          reject(new WasmLoadError(path, errorText(error), { cause: error }));
        };
        const onExit = (code: number) => {
          settle();
          reject(new WasmLoadError(path, `its thread ended with exit code ${code}`));
        };
        worker.on("message", onMessage);
        worker.once("error", onError);
        worker.once("exit", onExit);
      });
    } finally {
      if (!transport) void worker.terminate();
    }
    transport.#listen();
    return transport;
  }

  get closed(): boolean {
    return this.#gone !== undefined;
  }

  /**
   * Calls the method's export. As wazero closes a module whose context is
   * done, the module is ended for good at the deadline, or when the
   * runtime's `signal` aborts (then the call fails with
   * `module closed with context canceled` or `... deadline exceeded`, not as
   * the plugin's failure).
   */
  call<K extends PluginMethod>(
    method: K,
    request: PluginRequest<K>,
    deadline: number,
    signal?: AbortSignal,
  ): Promise<PluginResponse<K>> {
    if (this.#gone) {
      const { text, code, local } = this.#gone;
      return Promise.reject(new CallFailure(text, code, text, local));
    }
    if (signal?.aborted) return Promise.reject(this.#abort(signal));
    const bytes = encodePluginRequest(method, request);
    const id = this.#nextId++;
    return new Promise<PluginResponse<K>>((resolve, reject) => {
      const timer = setTimeout(
        () => this.#end("module closed with context deadline exceeded", Status.DEADLINE_EXCEEDED, "deadline"),
        Math.max(0, deadline - Date.now()),
      );
      const onAbort = () => void this.#abort(signal!);
      signal?.addEventListener("abort", onAbort, { once: true });
      const settled = () => signal?.removeEventListener("abort", onAbort);
      this.#pending.set(id, {
        method,
        resolve: (response) => {
          settled();
          resolve(response as PluginResponse<K>);
        },
        reject: (failure) => {
          settled();
          reject(failure);
        },
        timer,
      });
      const transfer =
        bytes.byteOffset === 0 && bytes.byteLength === bytes.buffer.byteLength ? [bytes.buffer as ArrayBuffer] : [];
      this.#worker.postMessage({ id, export: exportName(method), bytes }, transfer);
    });
  }

  /** Ends the module (its thread is terminated); idempotent. */
  close(): void {
    this.#end(exitText(0), Status.UNAVAILABLE, "closed");
  }

  #listen(): void {
    this.#worker.on("message", (message: WorkerMessage) => this.#receive(message));
    this.#worker.on("error", (error: Error) =>
      this.#end(`WASM plugin thread failed: ${errorText(error)}`, Status.UNAVAILABLE, "closed"),
    );
    this.#worker.on("exit", () => this.#end("the WASM plugin's thread ended", Status.UNAVAILABLE, "closed"));
  }

  #receive(message: WorkerMessage): void {
    if (message.kind === "log") return logTo(this.#onLog, message.bytes);
    if (message.kind !== "answer" && message.kind !== "fault") return;
    const pending = this.#pending.get(message.id);
    if (!pending) return;
    this.#pending.delete(message.id);
    clearTimeout(pending.timer);
    reportDropped(this.#onLog, message.dropped, requestName(pending.method));
    try {
      this.#settle(pending, message);
    } catch (error) {
      // whatever the module's answer makes go wrong here is the module's failure, not the runtime's
      const reason = errorText(error);
      pending.reject(new CallFailure(reason, Status.INTERNAL, reason, "protocol", { cause: error }));
    }
  }

  #settle(pending: PendingCall, message: Extract<WorkerMessage, { kind: "answer" | "fault" }>): void {
    if (message.kind === "fault") {
      const failure = message.failure;
      if (failure.kind === "exit") {
        // this call fails as the plugin's error does in Go; the module is gone, so the plugin is closed
        const text = exitText(failure.code);
        pending.reject(new CallFailure(text, Status.UNKNOWN, text, undefined));
        this.#end(text, Status.UNAVAILABLE, "closed");
      } else if (failure.kind === "trap") {
        const text = trapText(failure.trap, this.#names);
        pending.reject(new CallFailure(text, Status.UNKNOWN, text, undefined));
      } else {
        pending.reject(new CallFailure(failure.message, Status.INTERNAL, failure.message, "protocol"));
      }
      return;
    }
    if (message.isError) {
      const text = pluginText(message.bytes, message.size);
      return pending.reject(new CallFailure(text, Status.UNKNOWN, text, undefined));
    }
    const responseType = PluginDefinition.methods[pending.method].responseType as unknown as MessageType<unknown>;
    pending.resolve(decodeMessage(responseType, message.bytes));
  }

  /** The runtime gave up on the request: the module is ended, the calls in flight fail as aborted. */
  #abort(signal: AbortSignal): CallFailure {
    const aborted = abortedFailure(signal);
    const text = `module closed with ${aborted.message}`;
    this.#end(text, aborted.code, "aborted", "closed");
    return new CallFailure(text, aborted.code, text, "aborted", { cause: signal.reason });
  }

  /**
   * The module is gone: calls in flight fail with `text` (as `local`), and
   * so do later ones (as `later`: a closed module is no runtime abort).
   */
  #end(text: string, code: Status, local: LocalFailure, later: LocalFailure = local): void {
    if (this.#gone) return;
    this.#gone = { text, code, local: later };
    void this.#worker.terminate();
    // the call the module was in when it was ended: the first one waiting
    const current = this.#pending.values().next().value;
    if (current) reportDropped(this.#onLog, droppedLogs(this.#logDropped), requestName(current.method));
    for (const [id, pending] of this.#pending) {
      this.#pending.delete(id);
      clearTimeout(pending.timer);
      pending.reject(new CallFailure(text, code, text, local));
    }
  }
}

/** Decodes a LogRequest from the module and hands it on, its message bounded. */
function logTo(onLog: WasmLoadOptions["onLog"], bytes: Uint8Array): void {
  let request: LogRequest;
  try {
    request = decodeMessage(LogRequest, bytes);
  } catch (error) {
    onLog("warn", `WASM plugin log message does not decode: ${errorText(error)}`);
    return;
  }
  onLog(logLevel(request.level), boundedText(request.msg));
}

/** The worker's counts of dropped log messages, read now. */
function droppedLogs(counters: BigInt64Array): DroppedLogs {
  return { messages: Number(Atomics.load(counters, 0)), bytes: Number(Atomics.load(counters, 1)) };
}

/** `createContainer` → `CreateContainer`. */
function requestName(method: PluginMethod): string {
  return `${method[0]!.toUpperCase()}${method.slice(1)}`;
}

/** Says, once for a call (or the load), how much of the module's log was over the limit. */
function reportDropped(onLog: WasmLoadOptions["onLog"], dropped: DroppedLogs, during: string): void {
  if (dropped.messages === 0) return;
  onLog(
    "warn",
    `WASM plugin log over its limit of ${LOG_LIMIT.messages} messages or ${LOG_LIMIT.bytes} bytes per request: ` +
      `${dropped.messages} messages (${dropped.bytes} bytes) of ${during} dropped`,
  );
}

/** Why loading failed, in the Go host's words where it has them. */
function loadFailureText(failure: WorkerFailure, names: ModuleNames | undefined): string {
  switch (failure.kind) {
    case "exit":
      return exitText(failure.code);
    case "trap": {
      const text = trapText(failure.trap, names);
      return failure.start ? `module[${names?.module ?? ""}] function[${failure.start}] failed: ${text}` : text;
    }
    case "error":
      return failure.message;
  }
}
