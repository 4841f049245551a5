/**
 * A located YAML value for schema checks: each accessor either returns the
 * value in the expected shape or records an issue naming the line, the field
 * and what was expected, and returns undefined. Checking carries on after an
 * issue, so one run reports every mistake in a file.
 */
import { isAlias, isMap, isScalar, isSeq, type LineCounter, type Node, type Pair } from "yaml";

/** One mistake in a scenario. Line and column are 1-based; absent for scenarios built from objects. */
export interface ScenarioIssue {
  line?: number;
  column?: number;
  /** The field, e.g. `steps[3].exit.code`. */
  path: string;
  message: string;
}

/** Where an issue sits: a ScenarioIssue without its message. */
export type IssuePlace = Omit<ScenarioIssue, "message">;

/** Collects issues and knows how to turn a node into a line and column. */
export class IssueLog {
  readonly issues: ScenarioIssue[] = [];

  constructor(private readonly lines?: LineCounter) {}

  add(node: Node | undefined, path: string, message: string): void {
    this.issues.push({ ...this.place(node, path), message });
  }

  /** The line and column of `node` (when known), and `path`. */
  place(node: Node | undefined, path: string): IssuePlace {
    const offset = node?.range?.[0];
    if (offset === undefined || !this.lines) return { path };
    const { line, col } = this.lines.linePos(offset);
    return { line, column: col, path };
  }

  addAt(line: number | undefined, column: number | undefined, path: string, message: string): void {
    this.issues.push({ ...(line !== undefined && { line }), ...(column !== undefined && { column }), path, message });
  }
}

const MAX_SHOWN = 40;

function quote(text: string): string {
  const shown = text.length > MAX_SHOWN ? `${text.slice(0, MAX_SHOWN)}…` : text;
  return JSON.stringify(shown);
}

/** A short description of what a node holds, for "expected X, got Y". */
export function describeNode(node: Node | null | undefined): string {
  if (node === null || node === undefined) return "nothing";
  if (isMap(node)) return "a mapping";
  if (isSeq(node)) return "a list";
  if (isAlias(node)) return "an alias";
  if (isScalar(node)) {
    const value = node.value;
    if (value === null || value === undefined) return "nothing";
    if (typeof value === "string") return quote(value);
    return String(node.source ?? value);
  }
  return "something else";
}

function isNullNode(node: Node | null | undefined): boolean {
  return node === null || node === undefined || (isScalar(node) && (node.value === null || node.value === undefined));
}

/** The text of a scalar as written (so `1.10` stays `1.10`), or its value as text. */
function scalarText(node: Node): string | undefined {
  if (!isScalar(node)) return undefined;
  const value = node.value;
  if (typeof value === "string") return value;
  if (typeof value === "number" || typeof value === "boolean" || typeof value === "bigint") {
    return node.source ?? String(value);
  }
  return undefined;
}

export class YamlValue {
  constructor(
    readonly node: Node | null | undefined,
    /** Where this value sits, e.g. `containers[1].env`. */
    readonly path: string,
    readonly log: IssueLog,
    /** Where to point when the value is missing: its parent. */
    private readonly anchor?: Node,
  ) {}

  /** The shape of the value: a mapping, a list, a number, another scalar, or nothing. */
  get kind(): "mapping" | "list" | "number" | "scalar" | "nothing" | "other" {
    const node = this.node;
    if (isNullNode(node)) return "nothing";
    if (isMap(node)) return "mapping";
    if (isSeq(node)) return "list";
    if (isScalar(node)) return typeof node.value === "number" ? "number" : "scalar";
    return "other";
  }

  /** Whether the field is there and not empty (`~` or nothing). */
  get present(): boolean {
    return !isNullNode(this.node);
  }

  /** Records an issue at this value (or at its parent when it is missing). */
  error(message: string): undefined {
    this.log.add(this.node ?? this.anchor, this.path, message);
    return undefined;
  }

  expected(what: string): undefined {
    return this.error(`expected ${what}, got ${describeNode(this.node)}`);
  }

  child(node: Node | null | undefined, path: string): YamlValue {
    return new YamlValue(node, path, this.log, this.node ?? this.anchor);
  }

  /** A string; numbers and booleans count as their text (`1` → `"1"`). */
  string(what = "a string"): string | undefined {
    if (!this.node) return this.expected(what);
    const text = scalarText(this.node);
    return text === undefined ? this.expected(what) : text;
  }

  /** A string written as a string (no numbers or booleans), e.g. a name. */
  name(what = "a name"): string | undefined {
    const node = this.node;
    if (node && isScalar(node) && typeof node.value === "string" && node.value !== "") return node.value;
    if (node && isScalar(node) && typeof node.value === "number") return String(node.source ?? node.value);
    return this.expected(what);
  }

  integer(min: number, max: number, what = `an integer from ${min} to ${max}`): number | undefined {
    const node = this.node;
    if (node && isScalar(node) && typeof node.value === "number" && Number.isInteger(node.value)) {
      if (node.value >= min && node.value <= max) return node.value;
    }
    return this.expected(what);
  }

  boolean(): boolean | undefined {
    const node = this.node;
    if (node && isScalar(node) && typeof node.value === "boolean") return node.value;
    return this.expected("true or false");
  }

  /** The raw JavaScript value (for `expect:` blocks that compare structures). */
  plain(): unknown {
    if (isNullNode(this.node)) return null;
    if (isScalar(this.node)) return this.node.value;
    if (isMap(this.node)) {
      const out: Record<string, unknown> = {};
      for (const [key, value] of this.entries() ?? []) out[key] = value.plain();
      return out;
    }
    if (isSeq(this.node)) return (this.list() ?? []).map((item) => item.plain());
    return this.expected("a value");
  }

  list(what = "a list"): YamlValue[] | undefined {
    const node = this.node;
    if (!node || !isSeq(node)) return this.expected(what);
    return node.items.map((item, i) => this.child(item as Node | null, `${this.path}[${i}]`));
  }

  /** The entries of a mapping, keys as strings. */
  entries(what = "a mapping"): [string, YamlValue][] | undefined {
    const node = this.node;
    if (!node || !isMap(node)) return this.expected(what);
    const out: [string, YamlValue][] = [];
    for (const pair of node.items as Pair<Node | null, Node | null>[]) {
      const keyNode = pair.key;
      const key = keyNode ? scalarText(keyNode) : undefined;
      if (key === undefined) {
        this.log.add(keyNode ?? node, this.path, `expected a plain key, got ${describeNode(keyNode)}`);
        continue;
      }
      out.push([key, this.child(pair.value, this.path ? `${this.path}.${key}` : key)]);
    }
    return out;
  }

  /**
   * A mapping with the given fields; any other key is an issue (a typo must
   * not pass silently). Missing fields come back as absent values.
   */
  fields<K extends string>(known: readonly K[], what = "a mapping"): Record<K, YamlValue> | undefined {
    const entries = this.entries(what);
    if (!entries) return undefined;
    const out = {} as Record<K, YamlValue>;
    for (const key of known) out[key] = this.child(undefined, this.path ? `${this.path}.${key}` : key);
    for (const [key, value] of entries) {
      if ((known as readonly string[]).includes(key)) out[key as K] = value;
      else this.unknownField(key, known);
    }
    return out;
  }

  /** Records that this mapping's `key` is no field of it, at the key. */
  unknownField(key: string, known: readonly string[]): void {
    this.log.add(
      this.keyNode(key) ?? this.node ?? undefined,
      this.path ? `${this.path}.${key}` : key,
      `unknown field; expected one of: ${known.join(", ")}`,
    );
  }

  /** Where this mapping's `key` is written, for an issue found later (e.g. once the plugins are known). */
  keyPlace(key: string): IssuePlace {
    return this.log.place(this.keyNode(key) ?? this.node ?? undefined, this.path ? `${this.path}.${key}` : key);
  }

  private keyNode(key: string): Node | undefined {
    if (!this.node || !isMap(this.node)) return undefined;
    const pair = (this.node.items as Pair<Node | null, Node | null>[]).find((p) => p.key && scalarText(p.key) === key);
    return pair?.key ?? undefined;
  }

  /** A mapping of strings to strings (labels, annotations, env). */
  stringMap(): Record<string, string> | undefined {
    const entries = this.entries("a mapping of names to strings");
    if (!entries) return undefined;
    const out: Record<string, string> = {};
    for (const [key, value] of entries) {
      const text = value.string();
      if (text !== undefined) out[key] = text;
    }
    return out;
  }

  stringList(): string[] | undefined {
    const items = this.list("a list of strings");
    if (!items) return undefined;
    return items.map((item) => item.string()).filter((text): text is string => text !== undefined);
  }

  /** Optional helpers: undefined without an issue when the field is absent. */
  optional<T>(read: (value: YamlValue) => T | undefined): T | undefined {
    return this.present ? read(this) : undefined;
  }
}
