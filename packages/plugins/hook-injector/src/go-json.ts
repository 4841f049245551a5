/**
 * JSON read as Go's encoding/json reads it into a typed value, which is how
 * the hooks library reads hook files:
 *
 * - the whole input is checked first; a syntax error wins over any type
 *   error and has the text of Go's scanner (which looks at bytes, so a
 *   stray `é` is reported as its first byte, `'Ã'`);
 * - types are described with @nri-ts/sigs-yaml's `go` builders; object keys
 *   set struct fields by their JSON name, exactly or else in any case (as
 *   there), in the order written: a later duplicate key sets the field again;
 *   unknown keys are ignored;
 * - `null` leaves strings, bools, numbers and structs as they were and
 *   makes pointers, slices and maps nil (null here, where sigs.k8s.io/yaml's
 *   decoding gives empty ones); a map keeps the entries it had, a slice is
 *   replaced, a struct is filled in;
 * - a value of the wrong kind is an `UnmarshalTypeError`, named as Go names
 *   it (`Go struct field Hook.hook.timeout of type int`); decoding goes on
 *   and the first such error is the one reported;
 * - strings: invalid UTF-8 and lone surrogate escapes become U+FFFD.
 */
import { goQuote } from "@nri-ts/common";
import { fieldFor, type GoType, jsonInteger, zeroValue } from "@nri-ts/sigs-yaml";

/** A parsed JSON value: numbers keep their text, objects their keys in order (duplicates too). */
export type JsonValue =
  | { readonly kind: "null" }
  | { readonly kind: "bool"; readonly value: boolean }
  | { readonly kind: "number"; readonly text: string }
  | { readonly kind: "string"; readonly value: string }
  | { readonly kind: "array"; readonly items: readonly JsonValue[] }
  | { readonly kind: "object"; readonly entries: readonly (readonly [string, JsonValue])[] };

/** The JSON could not be decoded; the message is Go's. */
export class GoJsonError extends Error {
  override readonly name = "GoJsonError";
}

const utf8 = new TextDecoder();

/** Go's quoteChar: a byte as its scanner's errors show it. */
function quoteByte(byte: number): string {
  if (byte === 0x27) return `'\\''`;
  if (byte === 0x22) return `'"'`;
  return `'${goQuote(String.fromCharCode(byte)).slice(1, -1)}'`;
}

/** The one-letter escapes, by the byte after the backslash. */
const ESCAPES: Readonly<Record<number, string>> = {
  0x22: '"',
  0x5c: "\\",
  0x2f: "/",
  0x62: "\b",
  0x66: "\f",
  0x6e: "\n",
  0x72: "\r",
  0x74: "\t",
};
const WHITESPACE = new Set([0x20, 0x09, 0x0a, 0x0d]);
const isDigit = (byte: number) => byte >= 0x30 && byte <= 0x39;
const isHex = (byte: number) => isDigit(byte) || (byte >= 0x41 && byte <= 0x46) || (byte >= 0x61 && byte <= 0x66);

/** Go's JSON scanner and literal decoding, over the input's bytes. */
class Parser {
  private at = 0;

  constructor(private readonly bytes: Uint8Array) {}

  parse(): JsonValue {
    const value = this.value("looking for beginning of value");
    this.skipSpace();
    if (this.at < this.bytes.length) this.fail("after top-level value");
    return value;
  }

  /**
   * Go's scanner ends the input with a space: inside a number, a literal or
   * an escape that space is the invalid character; elsewhere the input ended
   * too soon.
   */
  private fail(context: string, inToken = false): never {
    if (this.at >= this.bytes.length && !inToken) throw new GoJsonError("unexpected end of JSON input");
    throw new GoJsonError(`invalid character ${quoteByte(this.bytes[this.at] ?? 0x20)} ${context}`);
  }

  private skipSpace(): void {
    while (this.at < this.bytes.length && WHITESPACE.has(this.bytes[this.at])) this.at++;
  }

  private value(context: string): JsonValue {
    this.skipSpace();
    const byte = this.bytes[this.at];
    if (byte === 0x7b) return this.object();
    if (byte === 0x5b) return this.array();
    if (byte === 0x22) return { kind: "string", value: this.string() };
    if (byte === 0x2d || isDigit(byte)) return { kind: "number", text: this.number() };
    if (byte === 0x74) return this.literal("true", { kind: "bool", value: true });
    if (byte === 0x66) return this.literal("false", { kind: "bool", value: false });
    if (byte === 0x6e) return this.literal("null", { kind: "null" });
    return this.fail(context);
  }

  private literal(word: string, value: JsonValue): JsonValue {
    for (let i = 0; i < word.length; i++, this.at++) {
      if (this.bytes[this.at] !== word.charCodeAt(i))
        this.fail(`in literal ${word} (expecting ${quoteByte(word.charCodeAt(i))})`, true);
    }
    return value;
  }

  private object(): JsonValue {
    this.at++;
    const entries: [string, JsonValue][] = [];
    this.skipSpace();
    if (this.bytes[this.at] === 0x7d) {
      this.at++;
      return { kind: "object", entries };
    }
    for (;;) {
      this.skipSpace();
      if (this.bytes[this.at] !== 0x22) this.fail("looking for beginning of object key string");
      const key = this.string();
      this.skipSpace();
      if (this.bytes[this.at] !== 0x3a) this.fail("after object key");
      this.at++;
      entries.push([key, this.value("looking for beginning of value")]);
      this.skipSpace();
      const next = this.bytes[this.at];
      this.at++;
      if (next === 0x7d) return { kind: "object", entries };
      if (next !== 0x2c) {
        this.at--;
        this.fail("after object key:value pair");
      }
    }
  }

  private array(): JsonValue {
    this.at++;
    const items: JsonValue[] = [];
    this.skipSpace();
    if (this.bytes[this.at] === 0x5d) {
      this.at++;
      return { kind: "array", items };
    }
    for (;;) {
      items.push(this.value("looking for beginning of value"));
      this.skipSpace();
      const next = this.bytes[this.at];
      this.at++;
      if (next === 0x5d) return { kind: "array", items };
      if (next !== 0x2c) {
        this.at--;
        this.fail("after array element");
      }
    }
  }

  private number(): string {
    const start = this.at;
    if (this.bytes[this.at] === 0x2d) this.at++;
    if (this.bytes[this.at] === 0x30) this.at++;
    else if (isDigit(this.bytes[this.at])) while (isDigit(this.bytes[this.at])) this.at++;
    else this.fail("in numeric literal", true);
    if (this.bytes[this.at] === 0x2e) {
      this.at++;
      if (!isDigit(this.bytes[this.at])) this.fail("after decimal point in numeric literal", true);
      while (isDigit(this.bytes[this.at])) this.at++;
    }
    if (this.bytes[this.at] === 0x65 || this.bytes[this.at] === 0x45) {
      this.at++;
      if (this.bytes[this.at] === 0x2b || this.bytes[this.at] === 0x2d) this.at++;
      if (!isDigit(this.bytes[this.at])) this.fail("in exponent of numeric literal", true);
      while (isDigit(this.bytes[this.at])) this.at++;
    }
    return Buffer.from(this.bytes.subarray(start, this.at)).toString("latin1");
  }

  private hex4(): number {
    let code = 0;
    for (let i = 0; i < 4; i++, this.at++) {
      const byte = this.bytes[this.at];
      if (!isHex(byte)) this.fail("in \\u hexadecimal character escape", true);
      code = code * 16 + Number.parseInt(String.fromCharCode(byte), 16);
    }
    return code;
  }

  /** A string literal, unquoted as Go unquotes it. */
  private string(): string {
    this.at++;
    let out = "";
    let run = this.at;
    const flush = () => {
      out += utf8.decode(this.bytes.subarray(run, this.at));
    };
    for (;;) {
      const byte = this.bytes[this.at];
      if (byte === undefined) this.fail("in string literal");
      if (byte === 0x22) {
        flush();
        this.at++;
        return out;
      }
      if (byte < 0x20) this.fail("in string literal");
      if (byte !== 0x5c) {
        this.at++;
        continue;
      }
      flush();
      this.at++;
      const escaped = this.bytes[this.at];
      if (escaped !== undefined && ESCAPES[escaped] !== undefined) {
        out += ESCAPES[escaped];
        this.at++;
      } else if (escaped === 0x75) {
        this.at++;
        const code = this.hex4();
        out += this.surrogate(code);
      } else {
        this.fail("in string escape code", true);
      }
      run = this.at;
    }
  }

  /** A `\u` escape's character: a pair of surrogate escapes is one character, a lone one U+FFFD. */
  private surrogate(code: number): string {
    if (code < 0xd800 || code > 0xdfff) return String.fromCharCode(code);
    const next = this.at;
    if (code < 0xdc00 && this.bytes[next] === 0x5c && this.bytes[next + 1] === 0x75) {
      const digits = Buffer.from(this.bytes.subarray(next + 2, next + 6)).toString("latin1");
      const low = /^[0-9a-fA-F]{4}$/.test(digits) ? Number.parseInt(digits, 16) : -1;
      if (low >= 0xdc00 && low <= 0xdfff) {
        this.at = next + 6;
        return String.fromCharCode(code, low);
      }
    }
    return "\ufffd";
  }
}

/**
 * Parses JSON as Go's scanner checks it.
 * @throws GoJsonError with Go's text (`invalid character 'x' looking for beginning of value`)
 */
export function parseGoJson(input: Uint8Array | string): JsonValue {
  const bytes = typeof input === "string" ? new TextEncoder().encode(input) : input;
  return new Parser(bytes).parse();
}

/** A decoded value: nil pointers, slices and maps are null, maps are `Map`s, structs records by JSON name. */
export type GoValue =
  | string
  | boolean
  | number
  | bigint
  | null
  | GoValue[]
  | Map<string, GoValue>
  | { [field: string]: GoValue };

/**
 * Go's zero value of a type, nil being null: unlike YAML through
 * sigs.k8s.io/yaml, JSON text tells a missing list from an empty one, and
 * the hooks library does too.
 */
function zero(type: GoType): GoValue {
  if (type.kind === "slice" || type.kind === "map" || type.kind === "pointer") return null;
  if (type.kind === "struct")
    return Object.fromEntries(Object.entries(type.fields).map(([name, field]) => [name, zero(field)]));
  return zeroValue(type) as GoValue;
}

interface Context {
  /** The innermost struct's bare name, and the JSON field names from the top. */
  struct?: string;
  fields: readonly string[];
}

class Decoder {
  error: string | undefined;

  private mismatch(json: JsonValue, type: GoType, where: Context, value: string = json.kind): GoValue | undefined {
    const into = where.struct === undefined ? "Go value" : `Go struct field ${where.struct}.${where.fields.join(".")}`;
    this.error ??= `json: cannot unmarshal ${value} into ${into} of type ${type.name}`;
    return undefined;
  }

  /** A slice element or map value: decoded over a new zero value, which stays where an error kept it from being set. */
  private element(json: JsonValue, type: GoType, where: Context): GoValue {
    const value = this.decode(json, type, zero(type), where);
    return value === undefined ? zero(type) : value;
  }

  /** `json` decoded into `type` over `current` (what the Go value held); undefined where an error left it as it was. */
  decode(json: JsonValue, type: GoType, current: GoValue, where: Context): GoValue | undefined {
    if (json.kind === "null")
      return type.kind === "pointer" || type.kind === "slice" || type.kind === "map" ? null : current;
    if (type.kind === "pointer") return this.decode(json, type.elem, current ?? zero(type.elem), where);
    switch (type.kind) {
      case "string":
        return json.kind === "string" ? json.value : this.mismatch(json, type, where);
      case "bool":
        return json.kind === "bool" ? json.value : this.mismatch(json, type, where);
      case "int": {
        if (json.kind !== "number") return this.mismatch(json, type, where);
        const value = jsonInteger(json.text, type);
        if (value === undefined) return this.mismatch(json, type, where, `number ${json.text}`);
        return type.bits === 64 ? value : Number(value);
      }
      case "slice":
        if (json.kind !== "array") return this.mismatch(json, type, where);
        return json.items.map((item) => this.element(item, type.elem, where));
      case "map": {
        if (json.kind !== "object") return this.mismatch(json, type, where);
        // a map keeps the entries it had
        const out = new Map(current as Map<string, GoValue> | null);
        for (const [key, item] of json.entries) out.set(key, this.element(item, type.elem, where));
        return out;
      }
      case "struct": {
        if (json.kind !== "object") return this.mismatch(json, type, where);
        const out = { ...(current as Record<string, GoValue>) };
        for (const [key, item] of json.entries) {
          const name = fieldFor(type, key);
          if (name === undefined) continue;
          const value = this.decode(item, type.fields[name], out[name], {
            struct: type.bare,
            fields: [...where.fields, name],
          });
          if (value !== undefined) out[name] = value;
        }
        return out;
      }
    }
  }
}

/**
 * `input` decoded into a value of `type`, as `json.Unmarshal` fills a zero
 * value of it (a pointer to a struct is allocated when the JSON is not null).
 * @throws GoJsonError with Go's text, for a syntax error or the first type error
 */
export function unmarshalGoJson(input: Uint8Array | string, type: GoType): GoValue {
  const json = parseGoJson(input);
  const decoder = new Decoder();
  const value = decoder.decode(json, type, zero(type), { fields: [] });
  if (decoder.error !== undefined) throw new GoJsonError(decoder.error);
  return value as GoValue;
}
