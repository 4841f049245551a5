import type { Document, LineCounter, Node, Scalar } from "yaml";
import { MAX_YAML_NESTING, yamlMayNestDeeperThan } from "@nri-ts/sigs-yaml/nesting";
import { yaml } from "./yaml-module.js";

/** The YAML text does not hold a list of strings; the message follows go-yaml's. */
export class YamlListError extends Error {
  override readonly name = "YamlListError";
}

const NULLS = new Set(["", "~", "null", "Null", "NULL"]);
const BOOLS = new Set(["true", "True", "TRUE", "false", "False", "FALSE"]);
const FLOAT_WORDS = new Set([
  ".nan",
  ".NaN",
  ".NAN",
  ".inf",
  ".Inf",
  ".INF",
  "+.inf",
  "+.Inf",
  "+.INF",
  "-.inf",
  "-.Inf",
  "-.INF",
]);
const INT = /^[-+]?(0[xX][0-9a-fA-F]+|0[oO][0-7]+|0[bB][01]+|[0-9]+)$/;
const FLOAT = /^[-+]?(\.[0-9]+|[0-9]+(\.[0-9]*)?)([eE][-+]?[0-9]+)?$/;
/** The commonest typo, an unclosed `[`, gets go-yaml's words. */
const UNCLOSED_SEQUENCE = /^Flow sequence must end with a \]/;
const TIMESTAMP =
  /^[0-9]{4}-[0-9]{1,2}-[0-9]{1,2}([Tt ][0-9]{1,2}:[0-9]{1,2}:[0-9]{1,2}(\.[0-9]*)?(Z|[-+][0-9]{2}:[0-9]{2})?)?$/;

function isPlain(node: Scalar): boolean {
  return node.type === "PLAIN";
}

function isNull(node: Scalar): boolean {
  return isPlain(node) && NULLS.has(String(node.value)) && node.tag === undefined;
}

/** The tag go-yaml resolves a scalar to, for its error texts. */
function scalarTag(node: Scalar): string {
  if (node.tag !== undefined) return node.tag.replace("tag:yaml.org,2002:", "!!");
  if (!isPlain(node)) return "!!str";
  const text = String(node.value);
  if (BOOLS.has(text)) return "!!bool";
  if (FLOAT_WORDS.has(text)) return "!!float";
  if (TIMESTAMP.test(text)) return "!!timestamp";
  const digits = text.replaceAll("_", "");
  if (INT.test(digits)) return "!!int";
  if (FLOAT.test(digits)) return "!!float";
  return "!!str";
}

class ListReader {
  readonly errors: string[] = [];

  constructor(
    private readonly document: Document.Parsed,
    private readonly lines: LineCounter,
  ) {}

  private line(node: Node): number {
    return this.lines.linePos(node.range?.[0] ?? 0).line;
  }

  private typeError(node: Node, tag: string, target: string, value?: string): void {
    let shown = "";
    if (value !== undefined) shown = value.length > 10 ? ` \`${value.slice(0, 7)}...\`` : ` \`${value}\``;
    this.errors.push(`line ${this.line(node)}: cannot unmarshal ${tag}${shown} into ${target}`);
  }

  private resolve(node: unknown): unknown {
    if (!yaml().isAlias(node)) return node;
    const target = node.resolve(this.document);
    if (target === undefined) throw new YamlListError(`yaml: unknown anchor '${node.source}' referenced`);
    return target;
  }

  /** One item: a non-null scalar as its text; null items are dropped, as go-yaml drops them. */
  private item(raw: unknown, into: string[]): void {
    const node = this.resolve(raw);
    const { isMap, isScalar, isSeq } = yaml();
    if (isScalar(node)) {
      if (!isNull(node)) into.push(String(node.value));
    } else if (isSeq(node)) {
      this.typeError(node, "!!seq", "string");
    } else if (isMap(node)) {
      this.typeError(node, "!!map", "string");
    }
  }

  list(raw: unknown): string[] {
    const node = this.resolve(raw);
    const { isMap, isScalar, isSeq } = yaml();
    const names: string[] = [];
    if (isSeq(node)) {
      for (const item of node.items) this.item(item, names);
    } else if (isMap(node)) {
      this.typeError(node, "!!map", "[]string");
    } else if (isScalar(node) && !isNull(node)) {
      this.typeError(node, scalarTag(node), "[]string", String(node.value));
    }
    return names;
  }
}

/**
 * Decode YAML text into a list of strings as go-yaml v3 does for a Go
 * `[]string`: flow (`[ a, "b" ]`) and block lists; scalars are taken as
 * written; null items are skipped; empty text, a comment or null give an
 * empty list; a map, a scalar or a nested list fails. Type errors carry
 * go-yaml's text; so does an unclosed flow list; other syntax errors carry
 * the `yaml` package's words after go-yaml's `yaml: line N: ` prefix.
 */
export function parseYamlStringList(text: string): string[] {
  // Go accepts up to 10000 levels; ours are refused earlier, before they can
  // exhaust the parser (see yamlMayNestDeeperThan).
  if (yamlMayNestDeeperThan(text)) throw new YamlListError(`yaml: exceeded max depth of ${MAX_YAML_NESTING}`);
  const { LineCounter, parseAllDocuments } = yaml();
  const lines = new LineCounter();
  const documents = parseAllDocuments(text, { schema: "failsafe", lineCounter: lines, prettyErrors: false });
  if (!Array.isArray(documents) || documents.length === 0) return [];
  const document = documents[0];
  const syntax = document.errors[0];
  if (syntax !== undefined) {
    const message = UNCLOSED_SEQUENCE.test(syntax.message) ? "did not find expected ',' or ']'" : syntax.message;
    throw new YamlListError(`yaml: line ${lines.linePos(syntax.pos[0]).line}: ${message}`);
  }
  const reader = new ListReader(document, lines);
  const names = reader.list(document.contents);
  if (reader.errors.length > 0) throw new YamlListError(`yaml: unmarshal errors:\n  ${reader.errors.join("\n  ")}`);
  return names;
}
