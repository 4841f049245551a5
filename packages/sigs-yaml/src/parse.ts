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

class Converter {
  private readonly anchors = new Map<string, YamlNode>();

  node(node: Node | null | undefined): YamlNode | null {
    if (node === null || node === undefined) return null;
    let out: YamlNode;
    if (isAlias(node)) {
      out = { kind: "alias", name: node.source, target: this.anchors.get(node.source) } satisfies YamlAlias;
    } else if (isScalar(node)) {
      out = { kind: "scalar", text: String(node.value ?? ""), plain: node.type === "PLAIN", tag: node.tag?.replace(/^!!/, "tag:yaml.org,2002:") };
    } else if (isSeq(node)) {
      const items: (YamlNode | null)[] = [];
      out = { kind: "seq", items };
      if (node.anchor) this.anchors.set(node.anchor, out);
      for (const item of node.items) items.push(this.node(item as Node | null));
      return out;
    } else if (isMap(node)) {
      const pairs: [YamlNode | null, YamlNode | null][] = [];
      out = { kind: "map", pairs };
      if (node.anchor) this.anchors.set(node.anchor, out);
      for (const pair of node.items) pairs.push([this.node(pair.key as Node | null), this.node(pair.value as Node | null)]);
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
  const [doc]: Document[] = parseAllDocuments(text, { version: "1.1", schema: "failsafe", uniqueKeys: false, merge: false }) as Document[];
  if (doc === undefined) return null;
  if (doc.errors.length > 0) throw new SigsYamlError(`error converting YAML to JSON: ${syntaxMessage(doc.errors[0])}`);
  return new Converter().node(doc.contents as Node | null);
}
