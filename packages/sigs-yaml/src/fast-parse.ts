/**
 * A fast reader for the YAML that annotations hold in practice: block
 * mappings and sequences (compact forms included), one-line flow
 * collections, one-line plain and quoted scalars, comments, anchors, aliases
 * and scalar tags. It reads in one pass over the lines and builds the same
 * {@link YamlNode}s as the full parser. Anything else (block scalars,
 * scalars over several lines, explicit keys, directives, several documents,
 * tabs, CRLF, and every error) makes it give up with `undefined`, and the
 * full parser reads the text instead: it decides what is valid and words the
 * errors. So this reader only has to be right on what it accepts.
 */
import type { YamlMap, YamlNode, YamlScalar, YamlSeq } from "./yaml-node.js";

/** Thrown inside the reader when the text is not of the kind it reads. */
class GiveUp extends Error {}

const giveUp = (): never => {
  throw new GiveUp();
};

/** Characters the reader refuses anywhere: tabs, carriage returns, control characters, BOMs, lone surrogates. */
const UNSUPPORTED_CHARS =
  // biome-ignore lint/suspicious/noControlCharactersInRegex: the control characters are what it finds
  /[\u0000-\u0009\u000b-\u001f\u007f-\u009f\u2028\u2029\ufeff\ufffe\uffff]|[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/;
/** Lines that start documents, end them or carry directives. */
const DOCUMENT_MARKERS = /^(?:---|\.\.\.)(?:[ \n]|$)|^%/m;
/** What may start a plain scalar here; indicators and anything unusual are left to the full parser. */
const PLAIN_START = /[A-Za-z0-9_.~/+$^()=;<\u0080-\uffff]|-(?=[^ \n,[\]{}#])/y;
const ANCHOR_NAME = /[A-Za-z0-9_.\-/]+/y;
const TAG = /!!?[A-Za-z0-9_.\-/:]+/y;
const ESCAPES: Readonly<Record<string, string>> = { '"': '"', "\\": "\\", n: "\n", t: "\t" };

class Reader {
  private readonly lines: string[];
  private line = 0;
  private readonly anchors = new Map<string, YamlNode>();

  constructor(text: string) {
    this.lines = text.split("\n");
  }

  document(): YamlNode | null {
    const node = this.block(-1);
    this.skipBlank();
    if (this.line < this.lines.length) giveUp();
    return node;
  }

  /** Skips empty lines and lines holding only a comment. */
  private skipBlank(): void {
    while (this.line < this.lines.length) {
      const text = this.lines[this.line];
      const start = indentOf(text);
      if (start < text.length && text[start] !== "#") return;
      this.line++;
    }
  }

  /** The node that starts on the next line indented more than `parent`; null when there is none. */
  private block(parent: number): YamlNode | null {
    this.skipBlank();
    if (this.line >= this.lines.length) return null;
    const text = this.lines[this.line];
    const indent = indentOf(text);
    if (indent <= parent) return null;
    return this.blockAt(indent);
  }

  /** A block node whose content starts at column `column` of the current line. */
  private blockAt(column: number): YamlNode {
    const text = this.lines[this.line];
    if (isSeqEntry(text, column)) return this.seq(column);
    if (keyEnd(text, column) !== undefined) return this.map(column);
    const [node, end] = this.inlineWithProperties(text, column, false);
    this.endOfLine(text, end);
    this.line++;
    return node ?? giveUp();
  }

  /** Requires nothing but a comment from `at` to the end of the line. */
  private endOfLine(text: string, at: number): void {
    let i = at;
    while (text[i] === " ") i++;
    if (i < text.length && !(text[i] === "#" && (i === 0 || text[i - 1] === " "))) giveUp();
  }

  private seq(column: number): YamlSeq {
    const items: (YamlNode | null)[] = [];
    const seq: YamlSeq = { kind: "seq", items };
    let first = true;
    for (;;) {
      if (!first) {
        this.skipBlank();
        if (this.line >= this.lines.length) break;
        const text = this.lines[this.line];
        if (indentOf(text) !== column || !isSeqEntry(text, column)) break;
      }
      first = false;
      items.push(this.entryValue(column + 1, column));
    }
    return seq;
  }

  /**
   * The value after a `- ` or a `key:` ending at column `after`: on the same
   * line (an inline node, or a compact block), or on the next lines,
   * indented more than `indent` (for a key's value, a sequence may also sit at
   * `indent` itself).
   */
  private entryValue(after: number, indent: number, key = false): YamlNode | null {
    const text = this.lines[this.line];
    let start = after;
    while (text[start] === " ") start++;
    if (start === after && start < text.length) giveUp();
    if (start >= text.length || text[start] === "#") {
      this.endOfLine(text, after);
      this.line++;
      return this.nested(indent, key);
    }
    if (!key && (isSeqEntry(text, start) || keyEnd(text, start) !== undefined)) return this.blockAt(start);
    if (key && isSeqEntry(text, start)) giveUp();
    // a line of properties only (for the block below) is left to the full parser
    const [node, end] = this.inlineWithProperties(text, start, false);
    this.endOfLine(text, end);
    this.line++;
    return node ?? giveUp();
  }

  private nested(indent: number, key: boolean): YamlNode | null {
    this.skipBlank();
    if (this.line >= this.lines.length) return null;
    const text = this.lines[this.line];
    const next = indentOf(text);
    if (key && next === indent && isSeqEntry(text, next)) return this.seq(next);
    return this.block(indent);
  }

  private map(column: number): YamlMap {
    const pairs: [YamlNode | null, YamlNode | null][] = [];
    const map: YamlMap = { kind: "map", pairs };
    let first = true;
    for (;;) {
      let text = this.lines[this.line];
      if (!first) {
        this.skipBlank();
        if (this.line >= this.lines.length) break;
        text = this.lines[this.line];
        if (indentOf(text) !== column) break;
      }
      const end = keyEnd(text, column);
      if (end === undefined) {
        if (first) giveUp();
        break;
      }
      first = false;
      const [keyNode, keyStop] = this.inline(text, column, false);
      if (keyNode === undefined || keyNode.kind !== "scalar" || keyStop !== end) giveUp();
      pairs.push([keyNode as YamlScalar, null]);
      pairs[pairs.length - 1][1] = this.entryValue(end + 1, column, true);
    }
    return map;
  }

  /** Anchors and a tag, then a node; the node is undefined when the properties end the line. */
  private inlineWithProperties(text: string, at: number, flow: boolean): [YamlNode | undefined, number] {
    let i = at;
    let anchor: string | undefined;
    let tag: string | undefined;
    for (;;) {
      if (text[i] === "&" && anchor === undefined) {
        ANCHOR_NAME.lastIndex = i + 1;
        const match = ANCHOR_NAME.exec(text) ?? giveUp();
        anchor = match[0];
        i = ANCHOR_NAME.lastIndex;
      } else if (text[i] === "!" && tag === undefined) {
        TAG.lastIndex = i;
        const match = TAG.exec(text) ?? giveUp();
        tag = match[0].startsWith("!!") ? `tag:yaml.org,2002:${match[0].slice(2)}` : match[0];
        i = TAG.lastIndex;
      } else {
        break;
      }
      if (text[i] !== " " && i < text.length && !(flow && ",]}".includes(text[i]))) giveUp();
      while (text[i] === " ") i++;
    }
    const bare = i >= text.length || text[i] === "#" || (flow && ",]}".includes(text[i]));
    if (bare) {
      // an empty node with properties is left to the full parser
      if (anchor !== undefined || tag !== undefined) giveUp();
      return [undefined, i];
    }
    const collection = text[i] === "[" || text[i] === "{";
    if (tag !== undefined && collection) giveUp();
    if (anchor !== undefined && collection) {
      // the anchor names the collection from its start, so that an alias inside it finds it
      return this.inline(text, i, flow, (opened) => this.anchors.set(anchor as string, opened));
    }
    const [node, end] = this.inline(text, i, flow);
    if (node === undefined) giveUp();
    let out = node as YamlNode;
    if (tag !== undefined) {
      if (out.kind !== "scalar") giveUp();
      out = { ...(out as YamlScalar), tag };
    }
    if (anchor !== undefined) this.anchors.set(anchor, out);
    return [out, end];
  }

  /** A node on one line starting at `at`: a flow collection, an alias, a quoted or a plain scalar. */
  private inline(
    text: string,
    at: number,
    flow: boolean,
    opened?: (collection: YamlNode) => void,
  ): [YamlNode | undefined, number] {
    const char = text[at];
    if (char === "[") return this.flowSeq(text, at, opened);
    if (char === "{") return this.flowMap(text, at, opened);
    if (opened !== undefined) giveUp();
    if (char === "*") {
      ANCHOR_NAME.lastIndex = at + 1;
      const match = ANCHOR_NAME.exec(text) ?? giveUp();
      const end = ANCHOR_NAME.lastIndex;
      if (end < text.length && text[end] !== " " && !(flow && ",]}".includes(text[end]))) giveUp();
      return [{ kind: "alias", name: match[0], target: this.anchors.get(match[0]) }, end];
    }
    if (char === '"') return doubleQuoted(text, at) ?? giveUp();
    if (char === "'") return singleQuoted(text, at) ?? giveUp();
    return plain(text, at, flow);
  }

  private flowSeq(text: string, at: number, opened?: (collection: YamlNode) => void): [YamlNode, number] {
    const items: YamlNode[] = [];
    const seq: YamlSeq = { kind: "seq", items };
    opened?.(seq);
    let i = skipSpaces(text, at + 1);
    if (text[i] === "]") return [seq, i + 1];
    for (;;) {
      const [node, end] = this.inlineWithProperties(text, i, true);
      if (node === undefined) giveUp();
      items.push(node as YamlNode);
      i = skipSpaces(text, end);
      if (text[i] === "]") return [seq, i + 1];
      if (text[i] !== ",") giveUp();
      i = skipSpaces(text, i + 1);
      if (text[i] === "]" || text[i] === ",") giveUp();
    }
  }

  private flowMap(text: string, at: number, opened?: (collection: YamlNode) => void): [YamlNode, number] {
    const pairs: [YamlNode, YamlNode | null][] = [];
    const map: YamlMap = { kind: "map", pairs };
    opened?.(map);
    let i = skipSpaces(text, at + 1);
    if (text[i] === "}") return [map, i + 1];
    for (;;) {
      const [key, keyStop] = this.inline(text, i, true);
      if (key === undefined || key.kind !== "scalar" || text[keyStop] !== ":") giveUp();
      i = keyStop + 1;
      let value: YamlNode | null = null;
      if (text[i] === " ") {
        i = skipSpaces(text, i);
        if (text[i] !== "," && text[i] !== "}") {
          const [node, end] = this.inlineWithProperties(text, i, true);
          if (node === undefined) giveUp();
          value = node as YamlNode;
          i = skipSpaces(text, end);
        }
      } else if (text[i] !== "," && text[i] !== "}") {
        giveUp();
      }
      pairs.push([key as YamlNode, value]);
      if (text[i] === "}") return [map, i + 1];
      if (text[i] !== ",") giveUp();
      i = skipSpaces(text, i + 1);
      if (text[i] === "}" || text[i] === ",") giveUp();
    }
  }
}

function indentOf(text: string): number {
  let i = 0;
  while (text[i] === " ") i++;
  return i;
}

function skipSpaces(text: string, at: number): number {
  let i = at;
  while (text[i] === " ") i++;
  return i;
}

function isSeqEntry(text: string, at: number): boolean {
  return text[at] === "-" && (at + 1 === text.length || text[at + 1] === " ");
}

/**
 * Where a block mapping's key starting at `at` ends, at its `:`: a plain key
 * of one line up to `: ` (or `:` at the end of the line), or a quoted key
 * right before `:`. Undefined when the line holds no such key.
 */
function keyEnd(text: string, at: number): number | undefined {
  const char = text[at];
  let stop: number;
  if (char === '"' || char === "'") {
    const quoted = char === '"' ? doubleQuoted(text, at, true) : singleQuoted(text, at, true);
    if (quoted === undefined) return undefined;
    stop = quoted[1];
  } else {
    PLAIN_START.lastIndex = at;
    if (!PLAIN_START.test(text)) return undefined;
    stop = -1;
    for (let i = at; i < text.length; i++) {
      const c = text[i];
      if (c === ":" && (i + 1 === text.length || text[i + 1] === " ")) {
        stop = i;
        break;
      }
      if (c === "#" && text[i - 1] === " ") return undefined;
      // keys with flow indicators, quotes or properties are left to the full parser
      if ("[]{},\"'&*!|>%@`".includes(c)) giveUp();
    }
    if (stop < 0) return undefined;
  }
  if (text[stop] !== ":" || !(stop + 1 === text.length || text[stop + 1] === " ")) return undefined;
  if (stop - at > 1000) giveUp();
  return stop;
}

/** A plain scalar of one line: up to `: `, ` #` or the end of the line (in flow, also `,`, `]`, `}` and any `:`). */
function plain(text: string, at: number, flow: boolean): [YamlScalar, number] {
  PLAIN_START.lastIndex = at;
  if (!PLAIN_START.test(text)) giveUp();
  let i = at;
  let end = at;
  for (; i < text.length; i++) {
    const char = text[i];
    if (char === ":" && (flow || i + 1 === text.length || text[i + 1] === " ")) break;
    if (char === "#" && text[i - 1] === " ") break;
    if (flow && (char === "," || char === "]" || char === "}" || char === "[" || char === "{")) break;
    if (char !== " ") end = i + 1;
  }
  return [{ kind: "scalar", text: text.slice(at, end), plain: true }, end];
}

/** A double-quoted scalar closed on the same line, with the common escapes; undefined (key probe) or give up otherwise. */
function doubleQuoted(text: string, at: number, probe = false): [YamlScalar, number] | undefined {
  let out = "";
  for (let i = at + 1; i < text.length; i++) {
    const char = text[i];
    if (char === '"') return [{ kind: "scalar", text: out, plain: false }, i + 1];
    if (char === "\\") {
      const escaped = ESCAPES[text[i + 1]];
      if (escaped === undefined) return probe ? undefined : giveUp();
      out += escaped;
      i++;
    } else {
      out += char;
    }
  }
  return probe ? undefined : giveUp();
}

/** A single-quoted scalar closed on the same line (`''` for a quote). */
function singleQuoted(text: string, at: number, probe = false): [YamlScalar, number] | undefined {
  let out = "";
  for (let i = at + 1; i < text.length; i++) {
    if (text[i] === "'") {
      if (text[i + 1] !== "'") return [{ kind: "scalar", text: out, plain: false }, i + 1];
      out += "'";
      i++;
    } else {
      out += text[i];
    }
  }
  return probe ? undefined : giveUp();
}

/**
 * The first document of `text` when it is of the kind this reader reads:
 * the node, null for an empty document, or undefined to leave the text to
 * the full parser.
 */
export function fastParse(text: string): YamlNode | null | undefined {
  if (UNSUPPORTED_CHARS.test(text) || DOCUMENT_MARKERS.test(text)) return undefined;
  try {
    return new Reader(text).document();
  } catch (error) {
    if (error instanceof GiveUp) return undefined;
    throw error;
  }
}
