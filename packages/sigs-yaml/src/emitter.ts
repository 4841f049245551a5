/**
 * go-yaml v2's emitter (its port of libyaml's), for what its encoder
 * sends it when it marshals maps, slices and scalars: one document,
 * block mappings and sequences (flow `{}` and `[]` when empty), keys that
 * are scalars, and scalars asked for plain, double-quoted or literal. The
 * emitter may overrule the style asked for (plain text that would not read
 * back gets single or double quotes), wraps long plain and quoted scalars
 * at 80 columns, indents by 2 and counts columns in runes, as go-yaml does.
 */
import { analyzeScalar, isBreak, isPrintable, type ScalarAnalysis } from "./scalar-analysis.js";

export type ScalarStyle = "plain" | "single" | "double" | "literal";

export interface ScalarNode {
  readonly scalar: string;
  /** The style asked for: go-yaml's encoder asks for literal text with a newline, plain where that reads back, double quotes otherwise. */
  readonly style: Exclude<ScalarStyle, "single">;
}

export type EmitNode =
  | ScalarNode
  | { readonly sequence: readonly EmitNode[] }
  | { readonly mapping: readonly (readonly [ScalarNode, EmitNode])[] };

const BEST_INDENT = 2;
const BEST_WIDTH = 80;
/** The longest simple key, in UTF-8 bytes; a longer key is written after `? `. */
const MAX_SIMPLE_KEY = 128;

const ESCAPES: Readonly<Record<number, string>> = {
  0x00: "0",
  0x07: "a",
  0x08: "b",
  0x09: "t",
  0x0a: "n",
  0x0b: "v",
  0x0c: "f",
  0x0d: "r",
  0x1b: "e",
  0x22: '"',
  0x5c: "\\",
  0x85: "N",
  0xa0: "_",
  0x2028: "L",
  0x2029: "P",
};

interface Context {
  readonly mapping?: boolean;
  readonly simpleKey?: boolean;
}

function utf8Length(runes: readonly string[]): number {
  let length = 0;
  for (const rune of runes) {
    const code = rune.codePointAt(0) as number;
    length += code < 0x80 ? 1 : code < 0x800 ? 2 : code < 0x10000 ? 3 : 4;
  }
  return length;
}

class Emitter {
  private out = "";
  private column = 0;
  private whitespace = true;
  private indention = true;
  private indent = -1;
  private readonly indents: number[] = [];
  private mappingContext = false;
  private simpleKeyContext = false;

  document(node: EmitNode): string {
    this.node(node, {});
    this.writeIndent();
    return this.out;
  }

  private node(node: EmitNode, context: Context): void {
    this.mappingContext = context.mapping ?? false;
    this.simpleKeyContext = context.simpleKey ?? false;
    if ("scalar" in node) this.scalar(node);
    else if ("sequence" in node) this.sequence(node.sequence);
    else this.mapping(node.mapping);
  }

  private sequence(items: readonly EmitNode[]): void {
    if (items.length === 0) {
      this.emptyFlow("[", "]");
      return;
    }
    this.increaseIndent(false, this.mappingContext && !this.indention);
    for (const item of items) {
      this.writeIndent();
      this.writeIndicator("-", true, false, true);
      this.node(item, {});
    }
    this.indent = this.indents.pop() as number;
  }

  private mapping(entries: readonly (readonly [ScalarNode, EmitNode])[]): void {
    if (entries.length === 0) {
      this.emptyFlow("{", "}");
      return;
    }
    this.increaseIndent(false, false);
    for (const [key, value] of entries) {
      this.writeIndent();
      const runes = [...key.scalar];
      if (!analyzeScalar(runes).multiline && utf8Length(runes) <= MAX_SIMPLE_KEY) {
        this.node(key, { mapping: true, simpleKey: true });
        this.writeIndicator(":", false, false, false);
      } else {
        this.writeIndicator("?", true, false, true);
        this.node(key, { mapping: true });
        this.writeIndent();
        this.writeIndicator(":", true, false, true);
      }
      this.node(value, { mapping: true });
    }
    this.indent = this.indents.pop() as number;
  }

  /** An empty collection: go-yaml writes it in flow style (the only flow style it writes here, so nothing is ever inside one). */
  private emptyFlow(open: string, close: string): void {
    this.writeIndicator(open, true, true, false);
    this.writeIndicator(close, false, false, false);
  }

  private scalar(node: ScalarNode): void {
    const runes = [...node.scalar];
    const style = this.selectStyle(node.style, runes, analyzeScalar(runes));
    this.increaseIndent(true, false);
    const breaks = !this.simpleKeyContext;
    if (style === "plain") this.writePlain(runes, breaks);
    else if (style === "single") this.writeSingleQuoted(runes, breaks);
    else if (style === "double") this.writeDoubleQuoted(runes, breaks);
    else this.writeLiteral(runes);
    this.indent = this.indents.pop() as number;
  }

  private selectStyle(requested: ScalarNode["style"], runes: readonly string[], analysis: ScalarAnalysis): ScalarStyle {
    let style: ScalarStyle = requested;
    if (this.simpleKeyContext && analysis.multiline) style = "double";
    if (style === "plain" && (!analysis.blockPlain || (runes.length === 0 && this.simpleKeyContext))) style = "single";
    if (style === "single" && !analysis.singleQuoted) style = "double";
    if (style === "literal" && (!analysis.block || this.simpleKeyContext)) style = "double";
    return style;
  }

  private increaseIndent(flow: boolean, indentless: boolean): void {
    this.indents.push(this.indent);
    if (this.indent < 0) this.indent = flow ? BEST_INDENT : 0;
    else if (!indentless) this.indent += BEST_INDENT;
  }

  /** Writes ASCII text; columns count one per character. */
  private put(text: string): void {
    this.out += text;
    this.column += text.length;
  }

  /** Writes one rune of the scalar; a rune is one column. */
  private writeRune(rune: string): void {
    this.out += rune;
    this.column++;
  }

  private putBreak(): void {
    this.out += "\n";
    this.column = 0;
  }

  /** A line break of the scalar: LF as a newline, the others as they are (the column starts again all the same). */
  private writeBreak(rune: string): void {
    if (rune === "\n") this.putBreak();
    else {
      this.out += rune;
      this.column = 0;
    }
  }

  private writeIndent(): void {
    const indent = Math.max(this.indent, 0);
    if (!this.indention || this.column > indent || (this.column === indent && !this.whitespace)) this.putBreak();
    while (this.column < indent) this.put(" ");
    this.whitespace = true;
    this.indention = true;
  }

  private writeIndicator(
    indicator: string,
    needWhitespace: boolean,
    isWhitespace: boolean,
    isIndention: boolean,
  ): void {
    if (needWhitespace && !this.whitespace) this.put(" ");
    this.put(indicator);
    this.whitespace = isWhitespace;
    this.indention = this.indention && isIndention;
  }

  private writePlain(runes: readonly string[], allowBreaks: boolean): void {
    if (!this.whitespace) this.put(" ");
    let spaces = false;
    let breaks = false;
    runes.forEach((rune, i) => {
      if (rune === " ") {
        if (allowBreaks && !spaces && this.column > BEST_WIDTH && runes[i + 1] !== " ") this.writeIndent();
        else this.writeRune(rune);
        spaces = true;
      } else if (isBreak(rune)) {
        if (!breaks && rune === "\n") this.putBreak();
        this.writeBreak(rune);
        this.indention = true;
        breaks = true;
      } else {
        if (breaks) this.writeIndent();
        this.writeRune(rune);
        this.indention = false;
        spaces = false;
        breaks = false;
      }
    });
    this.whitespace = false;
    this.indention = false;
  }

  private writeSingleQuoted(runes: readonly string[], allowBreaks: boolean): void {
    this.writeIndicator("'", true, false, false);
    let spaces = false;
    let breaks = false;
    runes.forEach((rune, i) => {
      if (rune === " ") {
        const fold =
          allowBreaks && !spaces && this.column > BEST_WIDTH && i > 0 && i < runes.length - 1 && runes[i + 1] !== " ";
        if (fold) this.writeIndent();
        else this.writeRune(rune);
        spaces = true;
      } else if (isBreak(rune)) {
        if (!breaks && rune === "\n") this.putBreak();
        this.writeBreak(rune);
        this.indention = true;
        breaks = true;
      } else {
        if (breaks) this.writeIndent();
        if (rune === "'") this.put("'");
        this.writeRune(rune);
        this.indention = false;
        spaces = false;
        breaks = false;
      }
    });
    this.writeIndicator("'", false, false, false);
    this.whitespace = false;
    this.indention = false;
  }

  private writeDoubleQuoted(runes: readonly string[], allowBreaks: boolean): void {
    this.writeIndicator('"', true, false, false);
    // go-yaml's check for a byte order mark looks at the start of the scalar, whatever rune it is at.
    const bom = runes[0] === "\ufeff";
    let spaces = false;
    runes.forEach((rune, i) => {
      if (bom || !isPrintable(rune) || isBreak(rune) || rune === '"' || rune === "\\") {
        const code = rune.codePointAt(0) as number;
        const short = ESCAPES[code];
        if (short !== undefined) this.put(`\\${short}`);
        else {
          const [letter, width] = code <= 0xff ? ["x", 2] : code <= 0xffff ? ["u", 4] : ["U", 8];
          this.put(`\\${letter}${code.toString(16).toUpperCase().padStart(width, "0")}`);
        }
        spaces = false;
      } else if (rune === " ") {
        if (allowBreaks && !spaces && this.column > BEST_WIDTH && i > 0 && i < runes.length - 1) {
          this.writeIndent();
          if (runes[i + 1] === " ") this.put("\\");
        } else this.writeRune(rune);
        spaces = true;
      } else {
        this.writeRune(rune);
        spaces = false;
      }
    });
    this.writeIndicator('"', false, false, false);
    this.whitespace = false;
    this.indention = false;
  }

  private writeLiteral(runes: readonly string[]): void {
    this.writeIndicator("|", true, false, false);
    if (runes[0] === " " || isBreak(runes[0])) this.writeIndicator(String(BEST_INDENT), false, false, false);
    const last = runes.length - 1;
    let chomp = "";
    if (!isBreak(runes[last])) chomp = "-";
    else if (last === 0 || isBreak(runes[last - 1])) chomp = "+";
    if (chomp) this.writeIndicator(chomp, false, false, false);
    this.putBreak();
    this.indention = true;
    this.whitespace = true;
    let breaks = true;
    for (const rune of runes) {
      if (isBreak(rune)) {
        this.writeBreak(rune);
        this.indention = true;
        breaks = true;
      } else {
        if (breaks) this.writeIndent();
        this.writeRune(rune);
        this.indention = false;
        breaks = false;
      }
    }
  }
}

/** The YAML document go-yaml v2's emitter writes for `node`, ending in a newline. */
export function emitYaml(node: EmitNode): string {
  return new Emitter().document(node);
}
