/**
 * The part of the WebAssembly JavaScript API that the WASM plugin host uses.
 * Node has the API built in, but TypeScript declares it only in its DOM
 * libraries, which a Node package does not load.
 */
declare namespace WebAssembly {
  class Module {
    constructor(bytes: Uint8Array);
  }
  class Instance {
    constructor(module: Module, imports?: Record<string, Record<string, unknown>>);
    readonly exports: Record<string, unknown>;
  }
  class Memory {
    readonly buffer: ArrayBuffer;
  }
  class RuntimeError extends Error {}
  function compile(bytes: Uint8Array): Promise<Module>;
}
