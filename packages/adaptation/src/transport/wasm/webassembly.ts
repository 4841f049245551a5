/**
 * The part of the WebAssembly JavaScript API that the WASM plugin host uses.
 * Node has the API built in, but TypeScript declares it only in its DOM
 * libraries, which a Node package does not load; these types say what we use.
 */

/** A compiled module (it can be sent to a worker thread). */
export interface WasmModule {
  readonly [Symbol.toStringTag]: string;
}

export interface WasmMemory {
  readonly buffer: ArrayBuffer;
}

export interface WasmInstance {
  readonly exports: Record<string, unknown>;
}

export interface WebAssemblyApi {
  compile(bytes: Uint8Array): Promise<WasmModule>;
  Instance: new (module: WasmModule, imports: Record<string, Record<string, unknown>>) => WasmInstance;
  Memory: abstract new (...args: never[]) => WasmMemory;
  RuntimeError: ErrorConstructor;
}

/** The global `WebAssembly`, typed. */
export const webAssembly = (globalThis as unknown as { WebAssembly: WebAssemblyApi }).WebAssembly;
