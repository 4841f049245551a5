/**
 * The first YAML document of a text, parsed into {@link YamlNode}s: by the
 * fast reader for the shapes annotations usually have, else with the `yaml`
 * package (YAML 1.1, duplicate keys kept for the decoder to settle), which
 * also words every syntax error.
 */
import { type Document, isAlias, isMap, isNode, isScalar, isSeq, type Node, parseAllDocuments } from "yaml";
import { SigsYamlError } from "./error.js";
import { fastParse } from "./fast-parse.js";
import type { YamlAlias, YamlNode } from "./yaml-node.js";

/** The first line of the parser's message, without its position (given as Go gives it, by line). */
function syntaxMessage(error: { message: string; linePos?: [{ line: number }, ...unknown[]] }): string {
  const text = error.message.split("\n")[0].replace(/ at line \d+, column \d+:?$/, "");
  return error.linePos ? `yaml: line ${error.linePos[0].line}: ${text}` : `yaml: ${text}`;
}

/**
 * go-yaml's parser error for a node at `offset` of `text`: its line is
 * counted from 0 and left out on the first line, as go-yaml v2 reports
 * parser (not scanner) errors.
 */
function parserError(text: string, offset: number, problem: string): SigsYamlError {
  const line = text.slice(0, offset).split("\n").length - 1;
  return new SigsYamlError(`error converting YAML to JSON: yaml: ${line === 0 ? "" : `line ${line}: `}${problem}`);
}

class Converter {
  private readonly anchors = new Map<string, YamlNode>();

  constructor(private readonly text: string) {}

  /** @param inFlow whether the node is inside a flow collection (`[...]`, `{...}`) */
  node(node: Node | null | undefined, inFlow = false): YamlNode | null {
    if (node === null || node === undefined) return null;
    let out: YamlNode;
    if (isAlias(node)) {
      out = { kind: "alias", name: node.source, target: this.anchors.get(node.source) } satisfies YamlAlias;
    } else if (isScalar(node)) {
      // In a flow collection go-yaml takes a `:` that starts a token for the
      // value indicator, so a plain scalar cannot start with one (`[:x]`,
      // `{a: ::1}`); the yaml package reads such a scalar.
      if (inFlow && node.type === "PLAIN" && node.range && this.text[node.range[0]] === ":") {
        throw parserError(this.text, node.range[0], "did not find expected node content");
      }
      out = {
        kind: "scalar",
        text: String(node.value ?? ""),
        plain: node.type === "PLAIN",
        tag: node.tag?.replace(/^!!/, "tag:yaml.org,2002:"),
      };
    } else if (isSeq(node)) {
      const items: (YamlNode | null)[] = [];
      out = { kind: "seq", items };
      if (node.anchor) this.anchors.set(node.anchor, out);
      const flow = inFlow || node.flow === true;
      for (const item of node.items) items.push(this.node(item as Node | null, flow));
      return out;
    } else if (isMap(node)) {
      const pairs: [YamlNode | null, YamlNode | null][] = [];
      out = { kind: "map", pairs };
      if (node.anchor) this.anchors.set(node.anchor, out);
      const flow = inFlow || node.flow === true;
      for (const pair of node.items)
        pairs.push([this.node(pair.key as Node | null, flow), this.node(pair.value as Node | null, flow)]);
      return out;
    } else {
      return null;
    }
    if (isNode(node) && node.anchor) this.anchors.set(node.anchor, out);
    return out;
  }
}

/**
 * The first document of `text`; null when there is none or it is empty.
 * @throws SigsYamlError for a syntax error
 */
export function parseYaml(text: string): YamlNode | null {
  const fast = fastParse(text);
  if (fast !== undefined) return fast;
  const [doc]: Document[] = parseAllDocuments(text, {
    version: "1.1",
    schema: "failsafe",
    uniqueKeys: false,
    merge: false,
  }) as Document[];
  if (doc === undefined) return null;
  if (doc.errors.length > 0) throw new SigsYamlError(`error converting YAML to JSON: ${syntaxMessage(doc.errors[0])}`);
  return new Converter(text).node(doc.contents as Node | null);
}
