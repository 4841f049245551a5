/**
 * YAML decoded into a Go type as sigs.k8s.io/yaml (v1.3) decodes it, which
 * is how the Go ulimit-adjuster reads its annotation:
 *
 * 1. go-yaml v2 parses the first document (YAML 1.1 scalars, merge keys,
 *    later duplicate keys win);
 * 2. the result becomes JSON: map keys become text, and a number or bool
 *    headed for a Go string field becomes text (`5` → `"5"`, `yes` →
 *    `"true"`); infinities and NaN cannot be JSON;
 * 3. Go's encoding/json decodes that JSON into the target: keys match
 *    fields in any case, unknown keys are ignored, null leaves the zero
 *    value, and a value of the wrong kind is an error, the first one in
 *    document order (keys in sorted order) being reported.
 *
 * Error texts are Go's, prefixed as sigs.k8s.io/yaml prefixes them. Syntax
 * errors are the exception: their text comes from our YAML parser. So is
 * the depth limit: Go's parser refuses nesting deeper than 10000 levels;
 * ours runs out of stack long before, and a stack overflow at the wrong
 * place can end the Node.js process, so YAML nested deeper than MAX_DEPTH
 * levels is refused before it is parsed.
 */
import { goQuote, MAX_YAML_NESTING, yamlMayNestDeeperThan } from "@nri-ts/api";
import { type Alias, type Document, isAlias, isMap, isNode, isScalar, isSeq, type Node, parseAllDocuments, type Scalar, visit } from "yaml";
import { formatGoFloat32, formatJsonFloat, type GoScalar, goScalarText, resolvePlain, resolveTagged } from "./go-scalar.js";

/** The Go type decoded into; `goType` is how Go's errors name it (`[]main.ulimit`). */
export type GoTarget =
  | { readonly kind: "string" }
  | { readonly kind: "uint64" }
  | { readonly kind: "slice"; readonly goType: string; readonly elem: GoTarget }
  | {
      readonly kind: "struct";
      readonly goType: string;
      /** The struct's name in field errors (`ulimit` in `Go struct field ulimit.soft`). */
      readonly name: string;
      /** By JSON name, in declaration order. */
      readonly fields: Readonly<Record<string, GoTarget>>;
    };

/** What a target decodes to: text, a bigint, an array or a record; undefined where JSON left the zero value. */
export type GoValue = string | bigint | GoValue[] | { [field: string]: GoValue };

/** The YAML could not be decoded; `message` is what the Go plugin says. */
export class SigsYamlError extends Error {
  override readonly name = "SigsYamlError";
}

/** A JSON number, kept as the text Go's encoder writes; `unsupported` for the floats JSON cannot hold. */
class JsonNumber {
  constructor(
    readonly text: string,
    readonly unsupported = false,
  ) {}
}

type Json = null | boolean | string | JsonNumber | Json[] | Map<string, Json>;

const CORE_TAGS = new Set(["str", "int", "float", "bool", "null"]);
const CORE_PREFIX = "tag:yaml.org,2002:";
/** The deepest nesting read, aliases included; deeper YAML is refused. */
export const MAX_DEPTH = MAX_YAML_NESTING;

const tooDeep = () => new SigsYamlError(`error converting YAML to JSON: yaml: exceeded max depth of ${MAX_DEPTH}`);

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

function typeName(target: GoTarget): string {
  return target.kind === "slice" || target.kind === "struct" ? target.goType : target.kind;
}

/** Go's `%#v` for a decoded YAML value, as sigs.k8s.io/yaml prints it in its key errors. */
function goSyntax(value: Json): string {
  if (value === null) return "interface {}(nil)";
  if (typeof value === "string") return goQuote(value);
  if (typeof value === "boolean") return String(value);
  if (value instanceof JsonNumber) return value.text;
  if (Array.isArray(value)) return `[]interface {}{${value.map(goSyntax).join(", ")}}`;
  const entries = [...value].sort(([a], [b]) => compareBytes(a, b)).map(([k, v]) => `${goQuote(k)}:${goSyntax(v)}`);
  return `map[interface {}]interface {}{${entries.join(", ")}}`;
}

function compareBytes(a: string, b: string): number {
  return Buffer.compare(Buffer.from(a), Buffer.from(b));
}

/** Go's case folding of JSON keys: ASCII letters, plus the long s and the Kelvin sign. */
function foldKey(key: string): string {
  return key.replace(/[A-Z]/g, (c) => c.toLowerCase()).replaceAll("\u017f", "s").replaceAll("\u212a", "k");
}

/** The field a JSON key sets: the exact name, else the first name equal to it without case. */
function fieldFor(target: GoTarget | undefined, key: string): string | undefined {
  if (target?.kind !== "struct") return undefined;
  if (Object.hasOwn(target.fields, key)) return key;
  const folded = foldKey(key);
  return Object.keys(target.fields).find((name) => foldKey(name) === folded);
}

/** Step 1 and 2: YAML nodes to JSON, with the conversions sigs.k8s.io/yaml makes on the way. */
class YamlToJson {
  private readonly active = new Set<Node>();
  private decoded = 0;
  private viaAlias = 0;
  /** Collections open, aliases followed. */
  private depth = 0;

  /** What each alias refers to: the latest node with its anchor before it (looked up once). */
  private readonly targets = new Map<Alias, Node | undefined>();

  constructor(doc: Document) {
    const anchors = new Map<string, Node>();
    visit(doc, (_key, node) => {
      if (isAlias(node)) this.targets.set(node, anchors.get(node.source));
      else if (isNode(node) && node.anchor) anchors.set(node.anchor, node);
    });
  }

  convert(node: Node | null | undefined, target: GoTarget | undefined): Json {
    if (node === null || node === undefined) return null;
    this.count();
    if (isAlias(node)) return this.alias(node, target);
    if (isScalar(node)) return this.scalar(node, target);
    if (!isSeq(node) && !isMap(node)) return null;
    return this.deeper(() => {
      if (isSeq(node)) {
        const elem = target?.kind === "slice" ? target.elem : undefined;
        return node.items.map((item) => this.convert(item as Node | null, elem));
      }
      const out = new Map<string, Json>();
      this.mapInto(node, target, out);
      return out;
    });
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
    if (this.active.size > 0) this.viaAlias++;
    if (this.viaAlias > 100 && this.decoded > 1000 && this.viaAlias / this.decoded > allowedAliasRatio(this.decoded)) {
      throw new SigsYamlError("error converting YAML to JSON: yaml: document contains excessive aliasing");
    }
  }

  private alias(node: Alias, target: GoTarget | undefined): Json {
    const resolved = this.targets.get(node);
    if (resolved === undefined) throw new SigsYamlError(`error converting YAML to JSON: yaml: unknown anchor '${node.source}' referenced`);
    if (this.active.has(resolved)) {
      throw new SigsYamlError(`error converting YAML to JSON: yaml: anchor '${node.source}' value contains itself`);
    }
    this.active.add(resolved);
    try {
      return this.convert(resolved, target);
    } finally {
      this.active.delete(resolved);
    }
  }

  private resolve(node: Scalar): GoScalar {
    const text = String(node.value ?? "");
    const tag = node.tag?.startsWith(CORE_PREFIX) ? node.tag.slice(CORE_PREFIX.length) : node.tag?.replace(/^!!/, "");
    if (tag !== undefined && CORE_TAGS.has(tag)) {
      try {
        return resolveTagged(tag as "str" | "int" | "float" | "bool" | "null", text);
      } catch (error) {
        throw new SigsYamlError(`error converting YAML to JSON: ${(error as Error).message}`);
      }
    }
    return node.type === "PLAIN" && tag === undefined ? resolvePlain(text) : text;
  }

  private scalar(node: Scalar, target: GoTarget | undefined): Json {
    const scalar = this.resolve(node);
    if (scalar === null) return null;
    if (target?.kind === "string") return goScalarText(scalar);
    if (typeof scalar !== "object") return scalar;
    if ("int" in scalar) return new JsonNumber(scalar.int.toString());
    if (Number.isFinite(scalar.float)) return new JsonNumber(formatJsonFloat(scalar.float));
    return new JsonNumber(Number.isNaN(scalar.float) ? "NaN" : scalar.float > 0 ? "+Inf" : "-Inf", true);
  }

  /** A map key as text; sigs.k8s.io/yaml refuses null keys, go-yaml refuses collections. */
  private key(node: Node | null, value: Node | null): string {
    if (node !== null && (isSeq(node) || isMap(node))) {
      throw new SigsYamlError(`error converting YAML to JSON: yaml: invalid map key: ${goSyntax(this.convert(node, undefined))}`);
    }
    if (node !== null && !isAlias(node)) this.count();
    const key = node === null ? null : isAlias(node) ? this.convert(node, undefined) : this.resolve(node as Scalar);
    if (key === null) {
      const shown = goSyntax(this.convert(value, undefined));
      throw new SigsYamlError(
        `error converting YAML to JSON: Unsupported map key of type: %!s(<nil>), key: <nil>, value: ${shown === "interface {}(nil)" ? "<nil>" : shown}`,
      );
    }
    if (typeof key === "string") return key;
    if (typeof key === "boolean") return String(key);
    if (key instanceof JsonNumber) return key.text;
    if (typeof key === "object" && "int" in key) return key.int.toString();
    if (typeof key === "object" && "float" in key) {
      return formatGoFloat32(key.float).replace(/^\+Inf$/, ".inf").replace(/^-Inf$/, "-.inf").replace(/^NaN$/, ".nan");
    }
    throw new SigsYamlError(`error converting YAML to JSON: yaml: invalid map key: ${goSyntax(key as Json)}`);
  }

  private mapInto(node: Node, target: GoTarget | undefined, out: Map<string, Json>): void {
    if (!isMap(node)) throw new SigsYamlError("error converting YAML to JSON: yaml: map merge requires map or sequence of maps as the value");
    for (const pair of node.items) {
      const keyNode = pair.key as Node | null;
      const valueNode = pair.value as Node | null;
      if (keyNode !== null && isScalar(keyNode) && keyNode.type === "PLAIN" && keyNode.tag === undefined && keyNode.value === "<<") {
        this.merge(valueNode, target, out);
        continue;
      }
      const key = this.key(keyNode, valueNode);
      const field = fieldFor(target, key);
      out.set(key, this.convert(valueNode, field === undefined || target?.kind !== "struct" ? undefined : target.fields[field]));
    }
  }

  /** `<<`: a map's entries, or each map's of a list with the earlier ones winning, set as if written here. */
  private merge(node: Node | null, target: GoTarget | undefined, out: Map<string, Json>): void {
    const deref = (n: Node | null): Node | null => (n !== null && isAlias(n) ? (this.targets.get(n) ?? null) : n);
    const value = deref(node);
    this.deeper(() => {
      if (value !== null && isSeq(value)) {
        for (const item of [...value.items].reverse()) this.mapInto(deref(item as Node | null) as Node, target, out);
      } else {
        this.mapInto(value as Node, target, out);
      }
    });
  }
}

/** json.Marshal's refusal of infinities and NaN: the first one in the order it writes (keys sorted). */
function unsupportedFloat(json: Json): string | undefined {
  if (json instanceof JsonNumber) return json.unsupported ? json.text : undefined;
  if (Array.isArray(json)) {
    for (const item of json) {
      const found = unsupportedFloat(item);
      if (found !== undefined) return found;
    }
  } else if (json instanceof Map) {
    for (const key of [...json.keys()].sort(compareBytes)) {
      const found = unsupportedFloat(json.get(key) as Json);
      if (found !== undefined) return found;
    }
  }
  return undefined;
}

/** How Go's errors name a JSON value; a number is written out only when it was headed for a number. */
function jsonKind(json: Exclude<Json, null>, target: GoTarget): string {
  if (typeof json === "string") return "string";
  if (typeof json === "boolean") return "bool";
  if (json instanceof JsonNumber) return target.kind === "uint64" ? `number ${json.text}` : "number";
  return Array.isArray(json) ? "array" : "object";
}

const UINT64_MAX = (1n << 64n) - 1n;

/** Step 3: Go's encoding/json, which keeps going after a type error and reports the first. */
class JsonDecoder {
  error: string | undefined;

  private fail(json: Exclude<Json, null>, target: GoTarget, field?: string): undefined {
    const where = field === undefined ? "Go value" : `Go struct field ${field}`;
    this.error ??= `json: cannot unmarshal ${jsonKind(json, target)} into ${where} of type ${typeName(target)}`;
    return undefined;
  }

  decode(json: Json, target: GoTarget, field?: string): GoValue | undefined {
    if (json === null) return undefined;
    switch (target.kind) {
      case "string":
        return typeof json === "string" ? json : this.fail(json, target, field);
      case "uint64": {
        if (!(json instanceof JsonNumber)) return this.fail(json, target, field);
        const value = /^[0-9]+$/.test(json.text) ? BigInt(json.text) : undefined;
        return value !== undefined && value <= UINT64_MAX ? value : this.fail(json, target, field);
      }
      case "slice":
        if (!Array.isArray(json)) return this.fail(json, target, field);
        return json.map((item) => this.decode(item, target.elem) ?? zeroValue(target.elem));
      case "struct": {
        if (!(json instanceof Map)) return this.fail(json, target, field);
        const out = zeroValue(target) as { [field: string]: GoValue };
        for (const key of [...json.keys()].sort(compareBytes)) {
          const name = fieldFor(target, key);
          if (name === undefined) continue;
          const value = this.decode(json.get(key) as Json, target.fields[name], `${target.name}.${name}`);
          if (value !== undefined) out[name] = value;
        }
        return out;
      }
    }
  }
}

/** The zero value of a target, as Go leaves it where JSON says nothing. */
export function zeroValue(target: GoTarget): GoValue {
  switch (target.kind) {
    case "string":
      return "";
    case "uint64":
      return 0n;
    case "slice":
      return [];
    case "struct":
      return Object.fromEntries(Object.entries(target.fields).map(([name, field]) => [name, zeroValue(field)]));
  }
}

/** The first line of our parser's message, without its position (given as Go gives it, by line). */
function syntaxMessage(error: { message: string; linePos?: [{ line: number }, ...unknown[]] }): string {
  const text = error.message.split("\n")[0].replace(/ at line \d+, column \d+:?$/, "");
  return error.linePos ? `yaml: line ${error.linePos[0].line}: ${text}` : `yaml: ${text}`;
}

/**
 * `text` decoded into `target` as sigs.k8s.io/yaml's Unmarshal does; empty
 * YAML (or `null`) gives the target's zero value.
 * @throws SigsYamlError with the Go plugin's text
 */
export function decodeSigsYaml(text: string, target: GoTarget): GoValue {
  if (yamlMayNestDeeperThan(text, MAX_DEPTH)) throw tooDeep();
  const [doc] = parseAllDocuments(text, { version: "1.1", schema: "failsafe", uniqueKeys: false, merge: false });
  if (doc === undefined) return zeroValue(target);
  if (doc.errors.length > 0) throw new SigsYamlError(`error converting YAML to JSON: ${syntaxMessage(doc.errors[0])}`);
  const json = new YamlToJson(doc).convert(doc.contents as Node | null, target);
  const unsupported = unsupportedFloat(json);
  if (unsupported !== undefined) throw new SigsYamlError(`error converting YAML to JSON: json: unsupported value: ${unsupported}`);
  const decoder = new JsonDecoder();
  const value = decoder.decode(json, target) ?? zeroValue(target);
  if (decoder.error !== undefined) throw new SigsYamlError(`error unmarshaling JSON: while decoding JSON: ${decoder.error}`);
  return value;
}
