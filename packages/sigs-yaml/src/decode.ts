/**
 * YAML decoded into a Go type as sigs.k8s.io/yaml (v1.3) decodes it, which
 * is how the Go plugins read their annotations and configuration: go-yaml v2
 * parses it, the result becomes JSON, and Go's encoding/json decodes that
 * into the type. Error texts are Go's, prefixed as sigs.k8s.io/yaml prefixes
 * them, except for syntax errors (our parser's words after Go's prefix and
 * line) and nesting beyond {@link MAX_DEPTH}.
 */
import { yamlMayNestDeeperThan } from "./yaml-nesting.js";
import { SigsYamlError } from "./error.js";
import { type GoType, type GoValueOf, zeroValue } from "./go-type.js";
import { JsonDecoder } from "./json-decode.js";
import { type Json, JsonNumber, sortedKeys } from "./json.js";
import { parseYaml } from "./parse.js";
import { MAX_DEPTH, tooDeep, yamlToJson } from "./yaml-to-json.js";

/** json.Marshal's refusal of infinities and NaN: the first one in the order it writes (keys sorted). */
function unsupportedFloat(json: Json): string | undefined {
  if (json instanceof JsonNumber) return json.unsupported ? json.text : undefined;
  if (Array.isArray(json)) {
    for (const item of json) {
      const found = unsupportedFloat(item);
      if (found !== undefined) return found;
    }
  } else if (json instanceof Map) {
    for (const key of sortedKeys(json)) {
      const found = unsupportedFloat(json.get(key) as Json);
      if (found !== undefined) return found;
    }
  }
  return undefined;
}

export interface DecodeOptions<T> {
  /**
   * What the Go value held before decoding, as when Go decodes into a
   * variable already set (flags, then a config file over them): fields the
   * YAML leaves out or sets to null keep their values. Default the type's
   * zero value.
   */
  base?: T;
}

/**
 * `text` decoded into `type` as sigs.k8s.io/yaml's Unmarshal decodes it;
 * empty YAML (or `null`) gives the base, by default the type's zero value.
 *
 * ```ts
 * decodeSigsYaml("- {type: nofile, hard: 0x40}", go.slice(go.struct("main.ulimit", { type: go.string, hard: go.uint64 })));
 * // [{ type: "nofile", hard: 64n }]
 * ```
 * @throws SigsYamlError with the Go plugin's text
 */
export function decodeSigsYaml<T extends GoType>(
  text: string,
  type: T,
  options: DecodeOptions<GoValueOf<T>> = {},
): GoValueOf<T> {
  if (yamlMayNestDeeperThan(text, MAX_DEPTH)) throw tooDeep();
  const json = yamlToJson(parseYaml(text), type);
  const unsupported = unsupportedFloat(json);
  if (unsupported !== undefined)
    throw new SigsYamlError(`error converting YAML to JSON: json: unsupported value: ${unsupported}`);
  const base = options.base ?? zeroValue(type);
  if (json === null) return base;
  const decoder = new JsonDecoder();
  const value = decoder.decode(json, type, base) ?? base;
  if (decoder.error !== undefined)
    throw new SigsYamlError(`error unmarshaling JSON: while decoding JSON: ${decoder.error}`);
  return value as GoValueOf<T>;
}
