/**
 * What the adaptation reads from a WebAssembly module's bytes itself: the
 * magic number that tells a WASM plugin from a program (as the Go adaptation
 * tells them apart), and the function names and signatures that a trap's
 * stack trace is written with (as wazero writes it).
 */
import { pluginText } from "@nri-ts/common";
import { open } from "node:fs/promises";

/** The first bytes of a WebAssembly module: `\0asm` and version 1. */
const WASM_MAGIC = Buffer.from([0x00, 0x61, 0x73, 0x6d, 0x01, 0x00, 0x00, 0x00]);

/** Whether the file starts as a WebAssembly module does; unreadable files are not. */
export async function isWasm(path: string): Promise<boolean> {
  try {
    const file = await open(path, "r");
    try {
      const header = Buffer.alloc(WASM_MAGIC.length);
      const { bytesRead } = await file.read(header, 0, header.length, 0);
      return bytesRead === header.length && header.equals(WASM_MAGIC);
    } finally {
      await file.close();
    }
  } catch {
    return false;
  }
}

/** A function of a module as a stack trace names it. */
export interface FunctionSignature {
  /** From the name section; "" when it has none. */
  name: string;
  /** Value type names, e.g. `i32`. */
  params: string[];
  results: string[];
}

/** The names a stack trace needs, by function index (imports first, as WebAssembly numbers them). */
export interface ModuleNames {
  /** The module name from the name section, "" when it has none. */
  module: string;
  functions: FunctionSignature[];
}

const VALUE_TYPES: Record<number, string> = {
  0x7f: "i32",
  0x7e: "i64",
  0x7d: "f32",
  0x7c: "f64",
  0x7b: "v128",
  0x70: "funcref",
  0x6f: "externref",
};

/** A cursor over a module's bytes; every read throws past the end. */
class Reader {
  #offset: number;

  constructor(
    private readonly bytes: Uint8Array,
    offset: number,
    private readonly end: number,
  ) {
    this.#offset = offset;
  }

  get done(): boolean {
    return this.#offset >= this.end;
  }

  byte(): number {
    if (this.#offset >= this.end) throw new RangeError("unexpected end of section");
    return this.bytes[this.#offset++]!;
  }

  /** An unsigned LEB128 number of up to 32 bits. */
  u32(): number {
    let value = 0;
    for (let shift = 0; shift < 35; shift += 7) {
      const byte = this.byte();
      value += (byte & 0x7f) * 2 ** shift;
      if ((byte & 0x80) === 0) return value;
    }
    throw new RangeError("LEB128 number too long");
  }

  name(): string {
    const length = this.u32();
    const start = this.#offset;
    this.skip(length);
    // a name comes from the plugin's file: bounded as any text from a plugin
    return pluginText(this.bytes.subarray(start, start + length));
  }

  skip(length: number): void {
    if (this.#offset + length > this.end) throw new RangeError("unexpected end of section");
    this.#offset += length;
  }

  sub(length: number): Reader {
    const start = this.#offset;
    this.skip(length);
    return new Reader(this.bytes, start, start + length);
  }

  limits(): void {
    const flags = this.byte();
    this.u32();
    if (flags & 0x01) this.u32();
  }
}

function valueTypes(reader: Reader): string[] {
  return Array.from({ length: reader.u32() }, () => {
    const code = reader.byte();
    return VALUE_TYPES[code] ?? `0x${code.toString(16)}`;
  });
}

/**
 * The module's function names and signatures, from its type, import,
 * function and name sections. Undefined when the bytes hold something this
 * reader does not know (a trace then goes without signatures).
 */
export function readModuleNames(bytes: Uint8Array): ModuleNames | undefined {
  try {
    const types: Array<{ params: string[]; results: string[] }> = [];
    const typeOfFunction: number[] = [];
    const names = new Map<number, string>();
    let module = "";
    const sections = new Reader(bytes, WASM_MAGIC.length, bytes.length);
    while (!sections.done) {
      const id = sections.byte();
      const section = sections.sub(sections.u32());
      switch (id) {
        case 0: {
          if (section.name() !== "name") break;
          while (!section.done) {
            const kind = section.byte();
            const body = section.sub(section.u32());
            if (kind === 0) module = body.name();
            if (kind === 1) {
              for (let count = body.u32(); count > 0; count--) names.set(body.u32(), body.name());
            }
          }
          break;
        }
        case 1:
          for (let count = section.u32(); count > 0; count--) {
            if (section.byte() !== 0x60) return undefined;
            types.push({ params: valueTypes(section), results: valueTypes(section) });
          }
          break;
        case 2:
          for (let count = section.u32(); count > 0; count--) {
            section.name();
            section.name();
            const kind = section.byte();
            if (kind === 0x00) typeOfFunction.push(section.u32());
            else if (kind === 0x01) {
              section.byte();
              section.limits();
            } else if (kind === 0x02) section.limits();
            else if (kind === 0x03) section.skip(2);
            else return undefined;
          }
          break;
        case 3:
          for (let count = section.u32(); count > 0; count--) typeOfFunction.push(section.u32());
          break;
      }
    }
    const functions = typeOfFunction.map((type, index) => {
      const signature = types[type];
      if (!signature) throw new RangeError(`function ${index} has no type ${type}`);
      return { name: names.get(index) ?? "", ...signature };
    });
    return { module, functions };
  } catch {
    return undefined;
  }
}
