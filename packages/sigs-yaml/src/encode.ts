/**
 * YAML written as sigs.k8s.io/yaml (v1.3) writes it, which is how the Go NRI
 * plugins dump objects (the logger's per-event dumps): Go's encoding/json
 * turns the value into JSON, go-yaml v2 reads that JSON back into plain Go
 * values (maps, slices, strings, ints, floats) and writes them as YAML. So
 * keys come out in go-yaml's natural order whatever order the value had,
 * numbers as go-yaml reads them from the JSON, and text plain, quoted or as
 * a literal block as go-yaml's emitter decides.
 */
import { emitYaml, type EmitNode, type ScalarNode } from "./emitter.js";
import { SigsYamlError } from "./error.js";
import { formatGoFloat, formatJsonFloat, resolvePlain } from "./go-scalar.js";
import { isGoYamlTimestamp } from "./go-timestamp.js";
import { readBackProblem } from "./json-read-back.js";
import { type JsonValue, jsonEntries } from "./json-value.js";
import { sortYamlKeys } from "./key-order.js";

const TO_YAML = "error converting JSON to YAML: ";

/** Lone surrogates cannot be UTF-8; Go's encoder writes U+FFFD for such bytes. */
const LONE_SURROGATE = /[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/g;

/**
 * NEL is the one line break encoding/json leaves as it is, and go-yaml
 * reads a quoted string's line breaks as YAML folds them: the spaces around
 * them go, one break becomes a space, n breaks become n-1 newlines.
 */
const FOLDED_NELS = / *\u0085[ \u0085]*/g;

const countNels = (text: string) => text.split("\u0085").length - 1;

/** Whether go-yaml v2 writes `text` without quotes: it must read back as text, not as a number, bool, null, timestamp or base-60 float. */
function readsBackAsText(text: string): boolean {
  return (
    typeof resolvePlain(text) === "string" &&
    !isGoYamlTimestamp(text) &&
    !/^[-+]?[0-9][0-9_]*(?::[0-5]?[0-9])+(?:\.[0-9_]*)?$/.test(text)
  );
}

/** A string as go-yaml reads it back from Go's JSON, with the style its encoder asks for. */
function stringNode(raw: string): ScalarNode {
  const text = raw.replace(LONE_SURROGATE, "\ufffd").replace(FOLDED_NELS, (run) => {
    const breaks = countNels(run);
    return breaks === 1 ? " " : "\n".repeat(breaks - 1);
  });
  const style = text.includes("\n") ? "literal" : readsBackAsText(text) ? "plain" : "double";
  return { scalar: text, style };
}

/** A JSON number as go-yaml reads it back: an int where it fits 64 bits, else a float written as Go's %g writes it. */
function numberNode(value: number | bigint): ScalarNode {
  if (typeof value === "number" && !Number.isFinite(value)) {
    throw new SigsYamlError(`error marshaling into JSON: json: unsupported value: ${formatGoFloat(value, 64)}`);
  }
  const resolved = resolvePlain(typeof value === "bigint" ? value.toString() : formatJsonFloat(value));
  if (resolved === null || typeof resolved !== "object") throw new TypeError(`not a number: ${String(value)}`);
  return { scalar: "int" in resolved ? resolved.int.toString() : formatGoFloat(resolved.float, 64), style: "plain" };
}

function node(value: JsonValue): EmitNode {
  if (value === null) return { scalar: "null", style: "plain" };
  if (typeof value === "boolean") return { scalar: String(value), style: "plain" };
  if (typeof value === "number" || typeof value === "bigint") return numberNode(value);
  if (typeof value === "string") return stringNode(value);
  if (Array.isArray(value)) return { sequence: value.map(node) };
  if (typeof value !== "object") throw new TypeError(`not a JSON value: ${typeof value}`);
  const map = new Map(
    jsonEntries(value as ReadonlyMap<string, JsonValue>).map(([key, item]) => [stringNode(key).scalar, item] as const),
  );
  return {
    mapping: sortYamlKeys([...map.keys()]).map((key) => [stringNode(key), node(map.get(key) as JsonValue)] as const),
  };
}

export interface EncodeOptions {
  /**
   * The sigs.k8s.io/yaml whose error texts to give: `v1.3` (default, what
   * the Go logger pins) prefixes a failure to read the JSON back with
   * `error converting JSON to YAML: `; `v1.4` (and later, the Go differ's
   * v1.5.0) returns go-yaml's error as it is.
   */
  sigsYaml?: "v1.3" | "v1.4";
}

/**
 * The YAML sigs.k8s.io/yaml's Marshal writes for a Go value whose
 * encoding/json form is `value`, ending in a newline.
 *
 * ```ts
 * encodeSigsYaml({ labels: { appVersion: "1.0", yes: "" }, pid: 42n });
 * // 'labels:\n  appVersion: "1.0"\n  "yes": ""\npid: 42\n'
 * ```
 * @throws SigsYamlError with Go's text where Go fails: a number JSON
 *   cannot hold, runes go-yaml refuses to read, a key too long for it
 */
export function encodeSigsYaml(value: JsonValue, options: EncodeOptions = {}): string {
  const tree = node(value);
  const problem = readBackProblem(value);
  if (problem !== undefined) throw new SigsYamlError(options.sigsYaml === "v1.4" ? problem : TO_YAML + problem);
  return emitYaml(tree);
}
