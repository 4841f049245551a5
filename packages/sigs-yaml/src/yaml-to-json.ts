/**
 * Steps 1 and 2 of sigs.k8s.io/yaml's Unmarshal, after parsing:
 *
 * 1. go-yaml v2 decodes the document into Go values: scalars resolved by
 *    YAML 1.1 rules, `<<` merges, later duplicate keys winning, aliases
 *    decoded again at each use (with its guards against anchors that contain
 *    themselves and against documents that expand through aliases);
 * 2. the values become JSON on the way to the target type: map keys become
 *    text (null keys and keys beyond int64 are refused), and a number or
 *    bool headed for a Go string becomes text (`5` → `"5"`, `yes` → `"true"`).
 *
 * Errors of step 1 come first, as in Go: an error inside a value that a
 * later duplicate key replaced is still an error of step 1, but not of step 2.
 */
import { goQuote } from "@nri-ts/common";
import { MAX_YAML_NESTING } from "./yaml-nesting.js";
import { SigsYamlError } from "./error.js";
import {
  formatGoFloat,
  formatJsonFloat,
  type GoScalar,
  goScalarText,
  resolvePlain,
  resolveTagged,
} from "./go-scalar.js";
import { fieldFor, type GoType, indirect } from "./go-type.js";
import { type Json, JsonNumber } from "./json.js";
import type { YamlNode, YamlScalar } from "./yaml-node.js";

/** The deepest nesting read, aliases included; deeper YAML is refused. */
export const MAX_DEPTH = MAX_YAML_NESTING;

const PREFIX = "error converting YAML to JSON: ";
const CORE_TAGS = new Set(["str", "int", "float", "bool", "null"]);
const CORE_PREFIX = "tag:yaml.org,2002:";
const INT64_MAX = (1n << 63n) - 1n;

export const tooDeep = () => new SigsYamlError(`${PREFIX}yaml: exceeded max depth of ${MAX_DEPTH}`);

/** A Go value as go-yaml v2 decodes YAML into `interface{}`. */
type GoYaml = GoScalar | GoYaml[] | GoYamlMap;

/** A `map[interface{}]interface{}`: keys are Go values, equal when of the same kind and value. */
class GoYamlMap {
  readonly entries = new Map<unknown, [GoScalar, GoYaml]>();

  set(key: GoScalar, value: GoYaml): void {
    this.entries.set(identity(key), [key, value]);
  }
}

/** What makes two map keys the same Go value; NaN is never equal to itself. */
function identity(key: GoScalar): unknown {
  if (key === null || typeof key !== "object") return typeof key === "string" ? `s${key}` : key;
  if ("int" in key) return `i${key.int}`;
  return Number.isNaN(key.float) ? Symbol("NaN") : `f${key.float}`;
}

/**
 * go-yaml v2's guard against documents that expand through aliases: the
 * share of nodes decoded inside aliases may be 99% up to 400,000 nodes,
 * falling to 10% at 4,000,000.
 */
function allowedAliasRatio(decoded: number): number {
  if (decoded <= 400_000) return 0.99;
  if (decoded >= 4_000_000) return 0.1;
  return 0.99 - 0.89 * ((decoded - 400_000) / 3_600_000);
}

/** Go's `%#v` of a decoded value, as go-yaml and sigs.k8s.io/yaml print them in their errors. */
function goSyntax(value: GoYaml, nested = false): string {
  if (value === null) return nested ? "interface {}(nil)" : "<nil>";
  if (typeof value === "string") return goQuote(value);
  if (typeof value === "boolean") return String(value);
  if (Array.isArray(value)) return `[]interface {}{${value.map((v) => goSyntax(v, true)).join(", ")}}`;
  if (value instanceof GoYamlMap) {
    const entries = [...value.entries.values()].map(([k, v]) => `${goSyntax(k, true)}:${goSyntax(v, true)}`);
    return `map[interface {}]interface {}{${entries.sort().join(", ")}}`;
  }
  if ("int" in value) return value.int > INT64_MAX ? `0x${value.int.toString(16)}` : value.int.toString();
  return formatGoFloat(value.float, 64);
}

/** Step 1: go-yaml v2's decoding into `interface{}`. */
class GoYamlDecoder {
  private readonly following = new Set<YamlNode>();
  private decoded = 0;
  private viaAlias = 0;
  /** Collections open, aliases followed. */
  private depth = 0;

  decode(node: YamlNode | null): GoYaml {
    if (node === null) return null;
    this.count();
    switch (node.kind) {
      case "scalar":
        return resolve(node);
      case "alias":
        return this.alias(node.name, node.target);
      case "seq":
        return this.deeper(() => node.items.map((item) => this.decode(item)));
      case "map":
        return this.deeper(() => {
          const out = new GoYamlMap();
          this.mapInto(node, out);
          return out;
        });
    }
  }

  /** One level deeper: a collection or a merge. */
  private deeper<T>(work: () => T): T {
    if (++this.depth > MAX_DEPTH) throw tooDeep();
    try {
      return work();
    } finally {
      this.depth--;
    }
  }

  /** One more node decoded; too many of them through aliases is an error. */
  private count(): void {
    this.decoded++;
    if (this.following.size > 0) this.viaAlias++;
    if (this.viaAlias > 100 && this.decoded > 1000 && this.viaAlias / this.decoded > allowedAliasRatio(this.decoded)) {
      throw new SigsYamlError(`${PREFIX}yaml: document contains excessive aliasing`);
    }
  }

  private alias(name: string, target: YamlNode | undefined): GoYaml {
    if (target === undefined) throw new SigsYamlError(`${PREFIX}yaml: unknown anchor '${name}' referenced`);
    if (this.following.has(target)) throw new SigsYamlError(`${PREFIX}yaml: anchor '${name}' value contains itself`);
    this.following.add(target);
    try {
      return this.decode(target);
    } finally {
      this.following.delete(target);
    }
  }

  /** `node` is null for a merge key with no value (`<<:`), refused like any other value that is not a map. */
  private mapInto(node: YamlNode | null, out: GoYamlMap): void {
    if (node?.kind !== "map")
      throw new SigsYamlError(`${PREFIX}yaml: map merge requires map or sequence of maps as the value`);
    for (const [keyNode, valueNode] of node.pairs) {
      if (keyNode?.kind === "scalar" && keyNode.plain && keyNode.tag === undefined && keyNode.text === "<<") {
        this.merge(valueNode, out);
        continue;
      }
      const key = this.decode(keyNode);
      if (Array.isArray(key) || key instanceof GoYamlMap)
        throw new SigsYamlError(`${PREFIX}yaml: invalid map key: ${goSyntax(key)}`);
      out.set(key, this.decode(valueNode));
    }
  }

  /** `<<`: a map's entries, or each map's of a list with the earlier ones winning, set as if written here. */
  private merge(node: YamlNode | null, out: GoYamlMap): void {
    const deref = (n: YamlNode | null): YamlNode | null => (n?.kind === "alias" ? (n.target ?? null) : n);
    const value = deref(node);
    this.deeper(() => {
      if (value?.kind === "seq") {
        for (const item of [...value.items].reverse()) this.mapInto(deref(item), out);
      } else {
        this.mapInto(value, out);
      }
    });
  }
}

/** A scalar's Go value: plain ones by YAML 1.1 resolution, core tags by theirs, the rest as text. */
function resolve(node: YamlScalar): GoScalar {
  const tag = node.tag?.startsWith(CORE_PREFIX) ? node.tag.slice(CORE_PREFIX.length) : undefined;
  if (tag !== undefined && CORE_TAGS.has(tag)) {
    try {
      return resolveTagged(tag as "str" | "int" | "float" | "bool" | "null", node.text);
    } catch (error) {
      throw new SigsYamlError(`${PREFIX}${(error as Error).message}`);
    }
  }
  return node.plain && node.tag === undefined ? resolvePlain(node.text) : node.text;
}

/** The type a map's value is headed for: a struct's field, or a map's element. */
function valueType(target: GoType | undefined, key: string): GoType | undefined {
  if (target?.kind === "map") return target.elem;
  if (target?.kind !== "struct") return undefined;
  const field = fieldFor(target, key);
  return field === undefined ? undefined : target.fields[field];
}

/** A map key as sigs.k8s.io/yaml writes it into JSON. */
function keyText(key: GoScalar, value: GoYaml): string {
  if (typeof key === "string") return key;
  if (typeof key === "boolean") return String(key);
  if (key !== null && "int" in key && key.int <= INT64_MAX) return key.int.toString();
  if (key !== null && "float" in key) {
    return formatGoFloat(key.float, 32)
      .replace(/^\+Inf$/, ".inf")
      .replace(/^-Inf$/, "-.inf")
      .replace(/^NaN$/, ".nan");
  }
  const type = key === null ? "%!s(<nil>)" : "uint64";
  throw new SigsYamlError(
    `${PREFIX}Unsupported map key of type: ${type}, key: ${goSyntax(key)}, value: ${goSyntax(value)}`,
  );
}

/** Step 2: a decoded value as JSON on its way to `type`. */
function toJson(value: GoYaml, type: GoType | undefined): Json {
  const target = type === undefined ? undefined : indirect(type);
  if (value === null) return null;
  if (Array.isArray(value)) {
    const elem = target?.kind === "slice" ? target.elem : undefined;
    return value.map((item) => toJson(item, elem));
  }
  if (value instanceof GoYamlMap) {
    const out = new Map<string, Json>();
    for (const [key, item] of value.entries.values()) {
      const text = keyText(key, item);
      out.set(text, toJson(item, valueType(target, text)));
    }
    return out;
  }
  if (target?.kind === "string") return goScalarText(value);
  if (typeof value !== "object") return value;
  if ("int" in value) return new JsonNumber(value.int.toString());
  if (Number.isFinite(value.float)) return new JsonNumber(formatJsonFloat(value.float));
  return new JsonNumber(Number.isNaN(value.float) ? "NaN" : value.float > 0 ? "+Inf" : "-Inf", true);
}

/**
 * The JSON sigs.k8s.io/yaml makes of a parsed document on its way to `type`.
 * @throws SigsYamlError
 */
export function yamlToJson(root: YamlNode | null, type: GoType): Json {
  return toJson(new GoYamlDecoder().decode(root), type);
}
