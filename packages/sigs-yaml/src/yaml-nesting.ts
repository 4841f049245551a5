/**
 * A guard for YAML read from annotations and configuration files. The `yaml`
 * package parses nested collections recursively: a few thousand levels
 * (`[[[[...`) exhaust the stack or end the Node.js process with a fatal
 * V8 error that no `catch` sees. Text that nests that deep is refused
 * before it is parsed, so one bad annotation fails its own container and
 * not the process.
 *
 * The guard reads the text in one pass the way the `yaml` package's lexer
 * does (what is a quoted, plain or block scalar, a comment, a flow
 * collection, an indicator), and follows the collections it opens the way
 * its parser nests them: block collections by their columns, flow
 * collections by their brackets, and the single-pair mapping a `key: value`
 * entry of a flow sequence becomes. So it counts real nesting only: wide
 * lines, long flow lists, and brackets or indicators inside scalars and
 * comments do not count.
 */

/** The nesting the readers here accept; real annotations and configs stay far below it. */
export const MAX_YAML_NESTING = 300;

/**
 * Whether the collections of the text nest deeper than `limit`, judged
 * without parsing it, in time linear in its length. `[]` and `a: b` nest 1
 * level, `- [a: b]` 3 (a sequence, a flow sequence, and the single-pair
 * mapping its entry is); an alias counts as a scalar.
 *
 * On YAML the `yaml` package reads, the count is the parser's own. Where
 * the text has errors after which the parser's recovery nests in ways the
 * columns and brackets do not tell, every collection, indicator and node
 * from there on counts as a level, so that broken text cannot nest deeper
 * than the count either: it falls at most one level behind the parser,
 * however often the errors repeat. A few forms YAML forbids but the parser
 * reads without a word (a lone `:` on the line after a value, a sequence
 * at the column of an explicit key before it) may count one level more.
 */
export function yamlMayNestDeeperThan(text: string, limit = MAX_YAML_NESTING): boolean {
  return whereYamlNestsDeeperThan(text, limit) !== undefined;
}

/** Where in a text its nesting first went beyond the limit: 1-based line and column. */
export interface YamlPosition {
  line: number;
  column: number;
}

/** Like `yamlMayNestDeeperThan`, but tells where the nesting went beyond the limit; undefined when it does not. */
export function whereYamlNestsDeeperThan(text: string, limit = MAX_YAML_NESTING): YamlPosition | undefined {
  const at = new NestingScan(text, limit).exceededAt();
  if (at === undefined) return undefined;
  let line = 1;
  let lineStart = 0;
  for (let i = text.indexOf("\n"); i !== -1 && i < at; i = text.indexOf("\n", i + 1)) {
    line++;
    lineStart = i + 1;
  }
  return { line, column: at - lineStart + 1 };
}

/** A block collection, open from its column on. */
interface Block {
  column: number;
  kind: "seq" | "map";
}

/** A flow collection. */
interface Flow {
  kind: "[" | "{";
  /** The current entry of a flow sequence is a single-pair mapping (`[a: b]`). */
  pair: boolean;
  /** Levels the parser may open for block indicators inside it (an error it recovers from). */
  stray: number;
  /** The current entry had its value indicator (`:`) already. */
  valued: boolean;
  /** Nodes in the current entry before its value indicator, and after it. */
  keyNodes: number;
  valueNodes: number;
  /** The deepest nesting reached since the current entry began. */
  peak: number;
}

type State = "stream" | "line-start" | "block-start" | "doc" | "flow" | "quoted" | "block-scalar" | "plain";

const FLOW_INDICATORS = ",[]{}";
const TAG_CHARS = new Set("0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz-#;/?:@&=+$_.!~*'()");
const HEX = /^[0-9A-Fa-f]{2}$/;

function isEmpty(ch: string | undefined): boolean {
  return ch === undefined || ch === " " || ch === "\n" || ch === "\r" || ch === "\t";
}

function isAnchorEnd(ch: string | undefined): boolean {
  return isEmpty(ch) || FLOW_INDICATORS.includes(ch as string);
}

/**
 * One pass over the text. The lexing half follows the states of the `yaml`
 * package's Lexer (stream, line start, block start, document, flow, quoted,
 * block and plain scalars), including its indentation rules for where a
 * scalar ends; the nesting half keeps the open block collections by column
 * and the open flow collections.
 */
class NestingScan {
  private readonly src: string;
  private readonly limit: number;
  private pos = 0;
  private flowLevel = 0;
  /** A `:` right after this node is a value indicator even without a space (after a quoted scalar or a flow collection, in flow). */
  private flowKey = false;
  /** The least indentation a line needs to continue the current scalar. */
  private indentNext = 0;
  /** The indentation of the current line, block indicators included. */
  private indentValue = 0;
  private blockScalarIndent = -1;
  private readonly blocks: Block[] = [];
  private readonly flows: Flow[] = [];
  /** Open flow collections plus the single-pair mappings among them. */
  private flowDepth = 0;
  /** Where the last node in block context began, and the deepest nesting inside it: a `:` after it makes it a key. */
  private nodeColumn = -1;
  private nodePeak = 0;
  /** Where the line began on which a `:` or `?` came last in block context (after the line's block indicators); -1 for none. */
  private indicated = -1;
  /** Where the line of the last node began (a key must be on one line). */
  private nodeLine = 0;
  /** The deepest nesting so far. */
  private peak = 0;
  /**
   * Set at the first YAML error after which the parser's recovery may nest
   * in ways the columns and brackets do not tell: from there on every
   * collection, indicator and node counts as one more level, closed or not.
   */
  private recovering = false;
  /** A flow collection in block context closed, and no indicator came after it yet. */
  private afterFlow = false;
  private exceeded = false;
  private exceededPos = 0;
  /** The line `lineBeginOf()` found last: where it begins and ends. */
  private lineBegin = 0;
  private lineEndAt = -1;

  constructor(src: string, limit: number) {
    this.src = src;
    this.limit = limit;
  }

  /** Where the nesting first went beyond the limit (an offset), or undefined. */
  exceededAt(): number | undefined {
    let state: State = "stream";
    let last = -1;
    let still = 0;
    while (this.pos < this.src.length && !this.exceeded) {
      state = this.step(state);
      // every state but the line's first moves on; never stand still for good
      if (this.pos !== last) {
        last = this.pos;
        still = 0;
      } else if (++still > 8) this.pos++;
    }
    return this.exceeded ? Math.min(this.exceededPos, this.src.length) : undefined;
  }

  private step(state: State): State {
    switch (state) {
      case "stream":
        return this.stream();
      case "line-start":
        return this.lineStart();
      case "block-start":
        return this.blockStart();
      case "doc":
        return this.doc();
      case "flow":
        return this.flow();
      case "quoted":
        return this.quoted();
      case "block-scalar":
        return this.blockScalar();
      case "plain":
        return this.plain();
    }
  }

  // --- nesting ---

  private get depth(): number {
    return this.blocks.length + this.flowDepth;
  }

  private reach(depth: number): void {
    if (depth > this.peak) this.peak = depth;
    if (depth > this.limit) this.exceed();
    const top = this.flows.at(-1);
    if (top !== undefined && depth > top.peak) top.peak = depth;
    if (depth > this.nodePeak) this.nodePeak = depth;
  }

  private exceed(): void {
    if (!this.exceeded) this.exceededPos = this.pos;
    this.exceeded = true;
  }

  /** An error the parser recovers from unpredictably: see `recovering`. */
  private error(): void {
    this.recovering = true;
  }

  /** A structural token while recovering: one more level. */
  private count(): void {
    if (this.recovering && ++this.peak > this.limit) this.exceed();
  }

  /** A line in block context has content at `column`: collections to its right are over, and a sequence there unless an item follows. */
  private lineAt(column: number, item: boolean): void {
    while ((this.blocks.at(-1)?.column ?? -1) > column) this.blocks.pop();
    const top = this.blocks.at(-1);
    if (!item && top?.column === column && top.kind === "seq") this.blocks.pop();
  }

  private seqItem(column: number): void {
    this.count();
    const top = this.blocks.at(-1);
    if (top?.column === column && top.kind === "seq") return;
    this.blocks.push({ column, kind: "seq" });
    this.reach(this.depth);
  }

  /** A key at `column`; `keyPeak` is the deepest nesting inside the key itself (a flow collection as key). */
  private mapKey(column: number, keyPeak: number): void {
    this.count();
    let top = this.blocks.at(-1);
    if (top?.column === column && top.kind === "seq") {
      this.blocks.pop();
      top = this.blocks.at(-1);
    }
    if (top?.column === column && top.kind === "map") return;
    this.blocks.push({ column, kind: "map" });
    this.reach(Math.max(this.depth, keyPeak + 1));
  }

  /** A node begins in block context, at the indentation its line has so far (what the parser nests by). */
  private nested(kind: Block["kind"]): void {
    if (kind === "seq") this.error();
    this.count();
    this.blocks.push({ column: this.indentValue, kind });
    this.reach(this.depth);
  }

  private startNode(): void {
    this.count();
    if (this.flowLevel === 0) {
      this.nodeLine = this.lineBeginOf(this.pos);
      this.nodeColumn = this.indentValue;
      this.nodePeak = this.depth;
    }
  }

  private openFlow(kind: "[" | "{"): void {
    this.count();
    this.flowNode();
    this.flows.push({ kind, pair: false, stray: 0, valued: false, keyNodes: 0, valueNodes: 0, peak: 0 });
    this.flowDepth++;
    this.reach(this.depth);
  }

  private closeFlow(): void {
    const flow = this.flows.pop();
    if (flow === undefined) return;
    this.flowDepth -= (flow.pair ? 2 : 1) + flow.stray;
    const parent = this.flows.at(-1);
    if (parent !== undefined && flow.peak > parent.peak) parent.peak = flow.peak;
  }

  /**
   * A node begins in the current flow entry. Two nodes without a comma
   * between (an error) make the parser nest: a flow sequence's entry
   * becomes a pair, anything else a block mapping inside.
   */
  private flowNode(): void {
    const flow = this.flows.at(-1);
    if (flow === undefined) return;
    this.count();
    const count = flow.valued ? ++flow.valueNodes : ++flow.keyNodes;
    if (count < 2) return;
    this.error();
    if (!flow.valued && flow.kind === "[" && !flow.pair) this.flowPair();
    else this.stray(1);
  }

  /**
   * A value indicator in a flow entry: in a sequence the entry becomes a
   * single-pair mapping; a second one in the same entry (`[a: b: c]`, an
   * error) makes the parser open a block mapping inside.
   */
  private flowValue(): void {
    const flow = this.flows.at(-1);
    if (flow === undefined) return;
    if (flow.valued) this.stray(1);
    else this.flowPair();
    flow.valued = true;
  }

  /** A `:` or `?` in a flow sequence: the entry is a single-pair mapping around what came before. */
  private flowPair(): void {
    this.count();
    const flow = this.flows.at(-1);
    if (flow === undefined || flow.kind !== "[" || flow.pair) return;
    flow.pair = true;
    this.flowDepth++;
    flow.peak = Math.max(flow.peak + 1, this.depth);
    this.reach(flow.peak);
  }

  /**
   * Levels the parser opens inside a flow collection when it recovers from
   * block indicators there (`[- a]`: a block sequence whose item may become
   * a mapping), until the flow collection ends at the latest.
   */
  private stray(levels: number): void {
    this.error();
    this.count();
    const flow = this.flows.at(-1);
    if (flow === undefined) return;
    flow.stray += levels;
    this.flowDepth += levels;
    this.reach(this.depth);
  }

  private nextEntry(): void {
    const flow = this.flows.at(-1);
    if (flow === undefined) return;
    if (flow.pair) {
      flow.pair = false;
      this.flowDepth--;
    }
    flow.valued = false;
    flow.keyNodes = 0;
    flow.valueNodes = 0;
    flow.peak = this.depth;
  }

  /** A document marker: what the parser nests starts over. */
  private resetDocument(): void {
    this.recovering = false;
    this.peak = 0;
    this.blocks.length = 0;
    this.flows.length = 0;
    this.flowDepth = 0;
    this.flowLevel = 0;
  }

  // --- lexing, after the yaml package's Lexer ---

  /** Where the line holding `at` begins; its end (newline or end of text) is then `lineEndAt`. Linear over a pass. */
  private lineBeginOf(at: number): number {
    if (at < this.lineBegin || at > this.lineEndAt) {
      this.lineBegin = this.src.lastIndexOf("\n", at - 1) + 1;
      const end = this.src.indexOf("\n", at);
      this.lineEndAt = end === -1 ? this.src.length : end;
    }
    return this.lineBegin;
  }

  private lineEnd(): number {
    this.lineBeginOf(this.pos);
    return this.lineEndAt;
  }

  private ch(offset = 0): string | undefined {
    return this.src[this.pos + offset];
  }

  private skipSpaces(tabs: boolean): number {
    const start = this.pos;
    while (this.src[this.pos] === " " || (tabs && this.src[this.pos] === "\t")) this.pos++;
    return this.pos - start;
  }

  private skipNewline(): number {
    if (this.ch() === "\n") {
      this.pos += 1;
      return 1;
    }
    if (this.ch() === "\r" && this.ch(1) === "\n") {
      this.pos += 2;
      return 2;
    }
    return 0;
  }

  /** Past the rest of the line (not its newline). */
  private skipLine(): void {
    this.pos = this.lineEnd();
    if (this.src[this.pos - 1] === "\r") this.pos--;
  }

  private atNewline(): boolean {
    return this.ch() === "\n" || (this.ch() === "\r" && this.ch(1) === "\n");
  }

  private atLineEnd(): boolean {
    let i = this.pos;
    while (this.src[i] === " " || this.src[i] === "\t") i++;
    const ch = this.src[i];
    return ch === undefined || ch === "#" || ch === "\n" || (ch === "\r" && this.src[i + 1] === "\n");
  }

  private isDocumentMarker(at: number): boolean {
    const marker = this.src.substr(at, 3);
    return (marker === "---" || marker === "...") && isEmpty(this.src[at + 3]);
  }

  private stream(): State {
    if (this.ch() === "\uFEFF") this.pos++;
    if (this.ch() === "%" || this.atLineEnd()) {
      this.skipLine();
      this.skipNewline();
      return "stream";
    }
    return this.lineStart();
  }

  private lineStart(): State {
    if ((this.ch() === "-" || this.ch() === ".") && this.isDocumentMarker(this.pos)) {
      const marker = this.ch();
      this.pos += 3;
      this.indentValue = 0;
      this.indentNext = 0;
      this.resetDocument();
      return marker === "-" ? "doc" : "stream";
    }
    this.indicated = -1;
    this.indentValue = this.skipSpaces(false);
    if (this.indentNext > this.indentValue && !isEmpty(this.ch(1))) this.indentNext = this.indentValue;
    if (!this.atLineEnd()) {
      this.lineAt(this.indentValue, this.ch() === "-" && isEmpty(this.ch(1)));
    }
    return this.blockStart();
  }

  private blockStart(): State {
    const ch = this.ch();
    if ((ch === "-" || ch === "?" || ch === ":") && isEmpty(this.ch(1))) {
      if (ch === "-") this.seqItem(this.indentValue);
      else this.mapKey(this.indentValue, 0);
      this.pos++;
      const n = 1 + this.skipSpaces(true);
      this.indentNext = this.indentValue + 1;
      this.indentValue += n;
      return "block-start";
    }
    return "doc";
  }

  private indicators(): void {
    for (;;) {
      const ch = this.ch();
      if (ch === "!" || ch === "&") {
        if (ch === "!") this.skipTag();
        else while (!isAnchorEnd(this.ch())) this.pos++;
        this.skipSpaces(true);
        continue;
      }
      if (ch === "-" || ch === "?" || ch === ":") {
        const inFlow = this.flowLevel > 0;
        const next = this.ch(1);
        if (isEmpty(next) || (inFlow && FLOW_INDICATORS.includes(next as string))) {
          if (inFlow) {
            this.flowKey = false;
            if (ch === "-") this.stray(2);
            else if (ch === "?") this.flowPair();
            else this.flowValue();
          } else {
            // `- ` here, and a second `:` or `?` on a line (`a: b: c`), are errors the parser recovers from by nesting
            const line = this.lineBeginOf(this.pos);
            if (ch === "-") this.nested("seq");
            else if (this.indicated === line) this.nested("map");
            else if (ch === ":" && this.nodeColumn >= 0) {
              if (this.nodeLine !== line) this.error(); // a key over several lines
              this.mapKey(this.nodeColumn, this.nodePeak);
            } else this.mapKey(this.indentValue, 0);
            if (ch !== "-") this.indicated = line;
            this.nodeColumn = -1;
            this.afterFlow = false;
            this.indentNext = this.indentValue + 1;
          }
          this.pos++;
          this.skipSpaces(true);
          continue;
        }
      }
      return;
    }
  }

  private skipTag(): void {
    const src = this.src;
    let i = this.pos + 1;
    if (src[i] === "<") {
      while (!isEmpty(src[++i]) && src[i] !== ">");
      this.pos = src[i] === ">" ? i + 1 : i;
      return;
    }
    for (;;) {
      const ch = src[i];
      if (ch !== undefined && TAG_CHARS.has(ch)) i++;
      else if (ch === "%" && HEX.test(src.substr(i + 1, 2))) i += 3;
      else break;
    }
    this.pos = i;
  }

  private doc(): State {
    this.skipSpaces(true);
    this.indicators();
    const ch = this.atNewline() ? "\n" : this.ch();
    // A node right after a flow collection, with no indicator between (`[\n]x: `), is an error whose
    // recovery nests more than the columns tell: the flow collection and the node may become one key.
    if (this.afterFlow && ch !== "#" && ch !== "\n" && ch !== undefined) this.error();
    this.afterFlow = false;
    switch (ch) {
      case "#":
      case undefined:
      case "\n":
        if (ch === "#") this.skipLine();
        this.nodeColumn = -1;
        this.skipNewline();
        return "line-start";
      case "[":
      case "{":
        this.startNode();
        this.openFlow(ch);
        this.pos++;
        this.flowKey = false;
        this.flowLevel = 1;
        return "flow";
      case "]":
      case "}":
        this.error();
        this.pos++;
        return "doc";
      case "*":
        this.startNode();
        while (!isAnchorEnd(this.ch())) this.pos++;
        return "doc";
      case '"':
      case "'":
        this.startNode();
        return this.quoted();
      case "|":
      case ">":
        this.nodeColumn = -1;
        this.blockScalarHeader();
        this.skipLine();
        this.skipNewline();
        return this.blockScalar();
      default:
        this.startNode();
        return this.plain();
    }
  }

  private flow(): State {
    let indent = -1;
    for (;;) {
      const newline = this.skipNewline();
      let spaces = 0;
      if (newline > 0) indent = this.indentValue = spaces = this.skipSpaces(false);
      spaces += this.skipSpaces(true);
      if (newline + spaces === 0) break;
    }
    if (this.ch() === undefined) return "flow";
    if (
      (indent !== -1 && indent < this.indentNext && this.ch() !== "#") ||
      (indent === 0 && this.isDocumentMarker(this.pos))
    ) {
      const atFlowEnd =
        indent === this.indentNext - 1 && this.flowLevel === 1 && (this.ch() === "]" || this.ch() === "}");
      if (!atFlowEnd) {
        // the lexer ends every open flow collection here (an error)
        this.error();
        while (this.flows.length > 0) this.closeFlow();
        this.flowLevel = 0;
        return this.lineStart();
      }
    }
    while (this.ch() === ",") {
      this.pos++;
      this.skipSpaces(true);
      this.flowKey = false;
      this.nextEntry();
    }
    this.indicators();
    const ch = this.atNewline() ? "\n" : this.ch();
    if (ch === ":" && (this.flowKey || isEmpty(this.ch(1)) || this.ch(1) === ",")) {
      // a value indicator: after a quoted key or a collection no space is needed
      this.flowKey = false;
      this.flowValue();
      this.pos++;
      this.skipSpaces(true);
      return "flow";
    }
    switch (ch) {
      case undefined:
      case "\n":
        return "flow";
      case "#":
        this.skipLine();
        return "flow";
      case "[":
      case "{":
        this.openFlow(ch);
        this.pos++;
        this.flowKey = false;
        this.flowLevel++;
        return "flow";
      case "]":
      case "}":
        this.pos++;
        this.flowKey = true;
        this.flowLevel--;
        this.closeFlow();
        this.afterFlow = this.flowLevel === 0;
        return this.flowLevel > 0 ? "flow" : "doc";
      case "*":
        this.flowNode();
        while (!isAnchorEnd(this.ch())) this.pos++;
        return "flow";
      case '"':
      case "'":
        this.flowNode();
        this.flowKey = true;
        return this.quoted();
      default:
        this.flowNode();
        this.flowKey = false;
        return this.plain();
    }
  }

  /** Where a scalar may go on at `offset` (the start of a line), or -1 where it ends (after the Lexer's continueScalar). */
  private continueScalar(offset: number): number {
    let ch = this.src[offset];
    if (this.indentNext > 0) {
      let indent = 0;
      while (ch === " ") ch = this.src[++indent + offset];
      if (ch === "\r" && this.src[indent + offset + 1] === "\n") return offset + indent + 1;
      return ch === "\n" || indent >= this.indentNext ? offset + indent : -1;
    }
    return this.isDocumentMarker(offset) ? -1 : offset;
  }

  private quoted(): State {
    const src = this.src;
    const quote = src[this.pos];
    let end = src.indexOf(quote, this.pos + 1);
    if (quote === "'") {
      while (end !== -1 && src[end + 1] === "'") end = src.indexOf("'", end + 2);
    } else {
      while (end !== -1) {
        let backslashes = 0;
        while (src[end - 1 - backslashes] === "\\") backslashes++;
        if (backslashes % 2 === 0) break;
        end = src.indexOf('"', end + 1);
      }
    }
    if (end === -1) {
      // unclosed: the rest is the scalar
      this.pos = src.length;
      return "doc";
    }
    // a line indented too little ends the scalar (an error) at its newline
    this.lineBeginOf(this.pos);
    let newline = this.lineEndAt;
    while (newline < end) {
      const next = this.continueScalar(newline + 1);
      if (next === -1) {
        this.error();
        end = newline - (src[newline - 1] === "\r" ? 2 : 1);
        break;
      }
      const found = src.indexOf("\n", next);
      newline = found === -1 ? src.length : found;
    }
    this.endScalar(this.pos, end + 1);
    return this.flowLevel > 0 ? "flow" : "doc";
  }

  /**
   * A scalar ends. One over several lines that something follows on its
   * last line (a key over several lines, an error) leaves the parser
   * nesting what follows in ways the columns do not tell.
   */
  private endScalar(start: number, end: number): void {
    this.pos = end;
    if (this.flowLevel > 0 || end <= start || this.lineBeginOf(end - 1) <= start || this.atLineEnd()) return;
    this.error();
  }

  private blockScalarHeader(): void {
    this.blockScalarIndent = -1;
    let i = this.pos;
    for (;;) {
      const ch = this.src[++i];
      if (ch !== undefined && ch > "0" && ch <= "9") this.blockScalarIndent = Number(ch) - 1;
      else if (ch !== "+" && ch !== "-") break;
    }
    if (!isEmpty(this.src[i]) && this.src[i] !== "#") this.error(); // more after the header
    while (!isEmpty(this.ch()) && this.ch() !== "#") this.pos++;
    // The rest of the line after spaces is one more token to the parser: a comment, or else
    // (`|2 [`) a stray node or indicator that it takes as one, wherever that leaves it.
    let rest = this.pos;
    while (this.src[rest] === " " || this.src[rest] === "\t") rest++;
    const next = this.src[rest];
    if (next !== undefined && next !== "\n" && next !== "\r" && next !== "#") {
      this.error();
      this.count();
    }
  }

  private blockScalar(): State {
    const src = this.src;
    let newline = this.pos - 1;
    let indent = 0;
    let i = this.pos;
    for (; i < src.length; i++) {
      const ch = src[i];
      if (ch === " ") indent++;
      else if (ch === "\n") {
        newline = i;
        indent = 0;
      } else if (!(ch === "\r" && src[i + 1] === "\n")) break;
    }
    if (i >= src.length) {
      this.pos = src.length;
      return "line-start";
    }
    if (indent >= this.indentNext) {
      this.indentNext =
        this.blockScalarIndent === -1 ? indent : this.blockScalarIndent + (this.indentNext === 0 ? 1 : this.indentNext);
      do {
        const next = this.continueScalar(newline + 1);
        if (next === -1) break;
        newline = src.indexOf("\n", next);
      } while (newline !== -1);
      if (newline === -1) newline = src.length;
    }
    // like the lexer, take a run of tabs and blank lines after it into the scalar
    let next = newline + 1;
    while (src[next] === " ") next++;
    if (src[next] === "\t") {
      while (src[next] === "\t" || src[next] === " " || src[next] === "\r" || src[next] === "\n") next++;
      newline = next - 1;
    }
    this.pos = newline + 1;
    return "line-start";
  }

  private plain(): State {
    const src = this.src;
    const inFlow = this.flowLevel > 0;
    let i = this.pos - 1;
    let end = i;
    let ch: string | undefined;
    while ((ch = src[++i]) !== undefined) {
      if (ch === ":") {
        const next = src[i + 1];
        if (isEmpty(next) || (inFlow && FLOW_INDICATORS.includes(next as string))) break;
        end = i;
      } else if (isEmpty(ch)) {
        let next = src[i + 1];
        if (ch === "\r") {
          if (next === "\n") {
            i++;
            ch = "\n";
            next = src[i + 1];
          } else end = i;
        }
        if (next === "#" || (inFlow && FLOW_INDICATORS.includes(next as string))) break;
        if (ch === "\n") {
          const resume = this.continueScalar(i + 1);
          if (resume === -1) break;
          i = Math.max(i, resume - 2);
        }
      } else {
        if (inFlow && FLOW_INDICATORS.includes(ch)) break;
        end = i;
      }
    }
    this.endScalar(this.pos, end + 1);
    return inFlow ? "flow" : "doc";
  }
}
