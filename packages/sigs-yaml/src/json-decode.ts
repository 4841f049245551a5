/**
 * Step 3 of sigs.k8s.io/yaml's Unmarshal: Go's encoding/json decodes the
 * JSON into the target type. Keys match fields in any case, unknown keys are
 * skipped, null leaves what is there, and a value of the wrong kind is an
 * error; decoding goes on after one, and the first (in the order Go's
 * encoder wrote the JSON: keys sorted) is reported, with Go's context: the
 * innermost struct and the path of fields to the value
 * (`Go struct field device.major of type int64`).
 */
import { fieldFor, type GoInt, type GoType, indirect, zeroValue } from "./go-type.js";
import { type Json, JsonNumber, sortedKeys } from "./json.js";

/** Where a value sits, for Go's error text: the innermost struct and the JSON names of the fields leading to it. */
interface Context {
  readonly struct?: string;
  readonly fields: readonly string[];
}

const TOP: Context = { fields: [] };

/** How Go's errors name a JSON value; a number's text is given only when it was headed for an integer. */
function jsonKind(json: Exclude<Json, null>, type: GoType): string {
  if (typeof json === "string") return "string";
  if (typeof json === "boolean") return "bool";
  if (json instanceof JsonNumber) return type.kind === "int" ? `number ${json.text}` : "number";
  return Array.isArray(json) ? "array" : "object";
}

/** The integer a JSON number's text gives a Go integer type, or undefined where Go refuses it. */
export function jsonInteger(text: string, type: GoInt): bigint | undefined {
  if (!/^-?[0-9]+$/.test(text) || (!type.signed && text.startsWith("-"))) return undefined;
  const value = BigInt(text);
  const limit = 1n << BigInt(type.signed ? type.bits - 1 : type.bits);
  return value < limit && value >= (type.signed ? -limit : 0n) ? value : undefined;
}

export class JsonDecoder {
  /** The first error, as Go words it. */
  error: string | undefined;

  private fail(json: Exclude<Json, null>, type: GoType, at: Context): undefined {
    const where = at.struct === undefined ? "Go value" : `Go struct field ${at.struct}.${at.fields.join(".")}`;
    this.error ??= `json: cannot unmarshal ${jsonKind(json, type)} into ${where} of type ${type.name}`;
    return undefined;
  }

  /**
   * The value of `json` decoded into `type` over `base` (what the Go value
   * held before; its zero value when absent). Undefined where JSON null left
   * it as it was, or where an error kept the value from being set.
   */
  decode(json: Json, type: GoType, base?: unknown, at: Context = TOP): unknown {
    if (json === null)
      return type.kind === "pointer" || type.kind === "slice" || type.kind === "map" ? zeroValue(type) : undefined;
    const target = indirect(type);
    switch (target.kind) {
      case "string":
        return typeof json === "string" ? json : this.fail(json, target, at);
      case "bool":
        return typeof json === "boolean" ? json : this.fail(json, target, at);
      case "int": {
        const value = json instanceof JsonNumber ? jsonInteger(json.text, target) : undefined;
        if (value === undefined) return this.fail(json, target, at);
        return target.bits === 64 ? value : Number(value);
      }
      case "slice":
        if (!Array.isArray(json)) return this.fail(json, target, at);
        // elements already there are decoded over, as Go does
        return json.map((item, i) => {
          const old = Array.isArray(base) && i < base.length ? base[i] : undefined;
          return this.decode(item, target.elem, old, at) ?? old ?? zeroValue(target.elem);
        });
      case "map": {
        if (!(json instanceof Map)) return this.fail(json, target, at);
        const out = new Map(base instanceof Map ? base : []);
        for (const key of sortedKeys(json)) {
          out.set(key, this.decode(json.get(key) as Json, target.elem, undefined, at) ?? zeroValue(target.elem));
        }
        return out;
      }
      case "struct": {
        if (!(json instanceof Map)) return this.fail(json, target, at);
        const out = {
          ...((base as Record<string, unknown> | undefined) ?? (zeroValue(target) as Record<string, unknown>)),
        };
        for (const key of sortedKeys(json)) {
          const name = fieldFor(target, key);
          if (name === undefined) continue;
          const inner = { struct: target.bare, fields: [...at.fields, name] };
          const value = this.decode(json.get(key) as Json, target.fields[name], out[name], inner);
          if (value !== undefined) out[name] = value;
        }
        return out;
      }
    }
  }
}
