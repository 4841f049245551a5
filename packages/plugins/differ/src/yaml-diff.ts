/**
 * The `-yaml` diff. The Go differ marshals both objects with
 * sigs.k8s.io/yaml, reads the YAML back as generic values
 * (sters/yaml-diff v0.4.0 on goccy/go-yaml) and logs go-cmp's report of the
 * two, type names shortened by yaml-diff (`map[String]any`, `[]any`,
 * `String("x")`, `Number(5)`, `Boolean(true)`):
 *
 * ```
 *   map[String]any{
 * + 	"annotations": map[String]any{"seen-by": String("logger")},
 *   	"args":        []any{String("nginx")},
 *   	... // 6 identical entries
 *   }
 * ```
 *
 * This is go-cmp v0.7.0's layout, rebuilt: lines start with `  `, `- ` or
 * `+ ` and a tab per level; map entries sorted, two identical records shown
 * around each change and longer runs counted; a composite value on one line
 * unless it holds changes or, inserted or removed, its contents pass 80
 * columns; keys aligned in runs of one-line records; values cut down by
 * go-cmp's verbosity limits (identical context shows nested maps and lists
 * three levels deep, at most 16, 8, 4 entries, text up to 256, 128, 64 bytes).
 * go-cmp's report is deliberately unstable (per process it picks regular or
 * non-breaking spaces; yaml-diff renames types in random order, so 64-bit
 * numbers show as `Number` or `uNumber`): ours is the regular-space,
 * `Number` form. Where go-cmp goes further (character diffs of text of 32
 * bytes or more, its own edit script for lists, triple-quoted text), ours
 * shows the old and the new value whole and lists along their longest
 * common subsequence.
 */
import { goQuote, isGoPrint } from "@nri-ts/common";
import { compareBytes, goJson, type JsonValue, marshalMessageYaml, SigsYamlError } from "@nri-ts/sigs-yaml";

type Value = JsonValue;
type Mapping = ReadonlyMap<string, Value> | { readonly [key: string]: Value };
/** go-cmp's diff modes: none, identical, removed, inserted. */
type Mode = "" | " " | "-" | "+";

/** A node of go-cmp's text tree: a line, or a list between a prefix and a suffix. */
type Node = string | Wrap;

interface Wrap {
  prefix: string;
  records: TextRecord[];
  suffix: string;
}

interface TextRecord {
  diff: Mode;
  key: string;
  value: Node;
  elideComma?: boolean;
  comment?: string;
}

const MAX_COLUMN = 80;
const CONTEXT = 2;
const ELLIPSIS = "...";

const isMapping = (value: Value): value is Mapping =>
  value !== null && typeof value === "object" && !Array.isArray(value);
const sortedEntries = (value: Mapping): [string, Value][] =>
  (value instanceof Map ? [...value] : Object.entries(value)).sort(([a], [b]) => compareBytes(a, b));

/** A string as go-cmp writes it: quoted, or raw in backquotes where quoting would escape something printable. */
function cmpString(text: string): string {
  const quoted = goQuote(text);
  if (quoted.length === text.length + 2) return quoted;
  const rawInvalid = [...text].some((char) => char === "`" || char === "\n" || !(isGoPrint(char) || char === "\t"));
  return rawInvalid ? quoted : `\`${text}\``;
}

function same(a: Value, b: Value): boolean {
  if (Array.isArray(a) && Array.isArray(b)) return a.length === b.length && a.every((item, i) => same(item, b[i]));
  if (isMapping(a) && isMapping(b)) {
    const x = sortedEntries(a);
    const y = sortedEntries(b);
    return x.length === y.length && x.every(([key, item], i) => key === y[i][0] && same(item, y[i][1]));
  }
  return typeof a === typeof b && a === b;
}

/** How many entries or elements go-cmp shows at a verbosity level; the level below is for what they hold. */
const entriesAt = (verbosity: number) => ((1 << Math.max(verbosity, 0)) >> 1) << 2;
const bytesAt = (verbosity: number) => (1 << Math.max(verbosity, 0)) << 5;

/** A value as go-cmp's FormatValue writes an interface holding it, at a verbosity level. */
function formatValue(value: Value, verbosity: number): Node {
  if (value === null) return "nil";
  if (typeof value === "string") {
    const bytes = Buffer.from(value);
    const max = bytesAt(verbosity);
    const shown =
      bytes.length > max + ELLIPSIS.length
        ? `${cmpString(bytes.subarray(0, max).toString())}${ELLIPSIS}`
        : cmpString(value);
    return `String(${shown})`;
  }
  if (typeof value === "boolean") return `Boolean(${value})`;
  if (typeof value === "bigint" || Number.isInteger(value)) return `Number(${value})`;
  if (typeof value === "number") return `float64(${value})`;
  const max = entriesAt(verbosity);
  const records: TextRecord[] = [];
  const items: [string, Value][] = Array.isArray(value)
    ? value.map((item) => ["", item])
    : sortedEntries(value as Mapping).map(([key, item]) => [cmpString(key), item]);
  for (const [i, [key, item]] of items.entries()) {
    if (i >= max) {
      records.push({ diff: "", key: "", value: ELLIPSIS, elideComma: true });
      break;
    }
    records.push({ diff: "", key, value: formatValue(item, verbosity - 1) });
  }
  return { prefix: Array.isArray(value) ? "[]any{" : "map[String]any{", records, suffix: "}" };
}

interface Pair {
  key: string;
  a?: Value;
  b?: Value;
}

const has = (pair: Pair, side: "a" | "b") => Object.hasOwn(pair, side);

/** Whether two composite values are more alike than not (go-cmp then diffs inside them). */
function similar(a: Value, b: Value): boolean {
  if (Array.isArray(a) && Array.isArray(b)) {
    const sameCount = a.filter((item, i) => i < b.length && same(item, b[i])).length;
    return sameCount + 1 >= Math.max(a.length, b.length) - sameCount;
  }
  if (!isMapping(a) || !isMapping(b)) return false;
  const x = new Map(sortedEntries(a));
  const y = new Map(sortedEntries(b));
  const keys = new Set([...x.keys(), ...y.keys()]);
  const sameCount = [...keys].filter(
    (key) => x.has(key) && y.has(key) && same(x.get(key) as Value, y.get(key) as Value),
  ).length;
  return sameCount + 1 >= keys.size - sameCount;
}

/** The records of a diff of two maps or lists, given as pairs (a key or index with the value on each side). */
function diffRecords(pairs: readonly Pair[], noun: string): TextRecord[] {
  const records: TextRecord[] = [];
  const record = (diff: Mode, key: string, value: Node) => records.push({ diff, key, value });
  const identical = (pair: Pair) => has(pair, "a") && has(pair, "b") && same(pair.a as Value, pair.b as Value);
  let i = 0;
  while (i < pairs.length) {
    let end = i;
    while (end < pairs.length && identical(pairs[end])) end++;
    if (end > i) {
      const run = pairs.slice(i, end);
      let lo = i === 0 ? 0 : Math.min(CONTEXT, run.length);
      let hi = end === pairs.length ? 0 : Math.min(CONTEXT, run.length - lo);
      if (run.length - lo - hi === 1) hi++;
      if (lo + hi > run.length) lo = run.length - hi;
      for (const pair of run.slice(0, lo)) record("", pair.key, formatValue(pair.b as Value, 3));
      if (run.length > lo + hi)
        records.push({
          diff: "",
          key: "",
          value: ELLIPSIS,
          elideComma: true,
          comment: `${run.length - lo - hi} identical ${noun}`,
        });
      for (const pair of run.slice(run.length - hi)) record("", pair.key, formatValue(pair.b as Value, 3));
      i = end;
      continue;
    }
    const pair = pairs[i++];
    const a = pair.a as Value;
    const b = pair.b as Value;
    if (
      has(pair, "a") &&
      has(pair, "b") &&
      ((isMapping(a) && isMapping(b)) || (Array.isArray(a) && Array.isArray(b)))
    ) {
      record("", pair.key, diffNode(a, b));
    } else {
      if (has(pair, "a")) record("-", pair.key, formatValue(a, 3));
      if (has(pair, "b")) record("+", pair.key, formatValue(b, 3));
    }
  }
  return records;
}

/** The pairs of two lists: along their longest common subsequence, similar composites paired as modified. */
function listPairs(a: readonly Value[], b: readonly Value[]): Pair[] {
  const table = Array.from({ length: a.length + 1 }, () => new Array<number>(b.length + 1).fill(0));
  for (let i = a.length - 1; i >= 0; i--) {
    for (let j = b.length - 1; j >= 0; j--)
      table[i][j] = same(a[i], b[j]) ? table[i + 1][j + 1] + 1 : Math.max(table[i + 1][j], table[i][j + 1]);
  }
  const pairs: Pair[] = [];
  let i = 0;
  let j = 0;
  while (i < a.length || j < b.length) {
    if (i < a.length && j < b.length && same(a[i], b[j])) {
      pairs.push({ key: "", a: a[i++], b: b[j++] });
      continue;
    }
    const removed: Value[] = [];
    const inserted: Value[] = [];
    while (i < a.length && (j >= b.length || table[i + 1][j] >= table[i][j + 1]) && !(j < b.length && same(a[i], b[j])))
      removed.push(a[i++]);
    while (j < b.length && !(i < a.length && same(a[i], b[j]))) inserted.push(b[j++]);
    const paired = Math.min(removed.length, inserted.length);
    let k = 0;
    for (; k < paired && similar(removed[k], inserted[k]); k++) pairs.push({ key: "", a: removed[k], b: inserted[k] });
    for (const item of removed.slice(k)) pairs.push({ key: "", a: item });
    for (const item of inserted.slice(k)) pairs.push({ key: "", b: item });
  }
  return pairs;
}

/** go-cmp's FormatDiff of two maps or two lists. */
function diffNode(a: Value, b: Value): Wrap {
  if (Array.isArray(a) && Array.isArray(b))
    return { prefix: "[]any{", records: diffRecords(listPairs(a, b), "elements"), suffix: "}" };
  const x = new Map(sortedEntries(a as Mapping));
  const y = new Map(sortedEntries(b as Mapping));
  const keys = [...new Set([...x.keys(), ...y.keys()])].sort(compareBytes);
  const pairs = keys.map((key) => ({
    key: cmpString(key),
    ...(x.has(key) && { a: x.get(key) }),
    ...(y.has(key) && { b: y.get(key) }),
  }));
  return { prefix: "map[String]any{", records: diffRecords(pairs, "entries"), suffix: "}" };
}

/** A mode inside another (go-cmp ORs the mode bytes: a change mode wins over none and identical). */
const inside = (outer: Mode, inner: Mode): Mode =>
  inner === "-" || inner === "+" ? inner : outer === "" ? inner : outer;

/** go-cmp's formatCompactTo: a list on one line unless it holds changes, comments or lists that stay expanded, or (inserted or removed) it is long. */
function compact(node: Node, mode: Mode): Node {
  if (typeof node === "string") return node;
  let multiLine = false;
  const parts: string[] = [];
  const records = node.records.map((record) => {
    if (record.diff === "-" || record.diff === "+" || record.comment !== undefined) multiLine = true;
    const value = compact(record.value, inside(mode, record.diff));
    if (typeof value !== "string") multiLine = true;
    parts.push(`${record.key ? `${record.key}: ` : ""}${typeof value === "string" ? value : ""}`);
    return { ...record, value };
  });
  const content = parts.join(", ");
  if ((mode === "-" || mode === "+") && Buffer.byteLength(content) > MAX_COLUMN) multiLine = true;
  return multiLine ? { ...node, records } : `${node.prefix}${content}${node.suffix}`;
}

function indent(mode: Mode, depth: number): string {
  return `${mode === "-" || mode === "+" ? mode : " "} ${"\t".repeat(depth)}`;
}

/** go-cmp's alignment: in each run of records with a key and a one-line value, keys padded to the longest. */
function keyPadding(records: readonly TextRecord[]): number[] {
  const pads = new Array<number>(records.length).fill(0);
  let start = 0;
  const close = (end: number) => {
    const longest = Math.max(0, ...records.slice(start, end).map((record) => [...record.key].length));
    for (let j = start; j < end; j++) pads[j] = longest - [...records[j].key].length;
  };
  records.forEach((record, i) => {
    if (record.key === "" || typeof record.value !== "string") {
      close(i);
      start = i + 1;
    }
  });
  close(records.length);
  return pads;
}

/** go-cmp's formatExpandedTo. */
function expanded(node: Node, mode: Mode, depth: number): string {
  if (typeof node === "string") return node;
  let out = node.prefix;
  const simple = node.records.every(
    (record) =>
      record.diff === "" && record.key === "" && typeof record.value === "string" && record.comment === undefined,
  );
  if (simple) {
    let batch = "";
    const emit = () => {
      if (batch) out += `\n${indent(mode, depth + 1)}${batch.trimEnd()}`;
      batch = "";
    };
    for (const record of node.records) {
      const line = record.value as string;
      if (Buffer.byteLength(batch) + Buffer.byteLength(line) + 2 > MAX_COLUMN) emit();
      batch += `${line}, `;
    }
    emit();
  } else {
    const pads = keyPadding(node.records);
    node.records.forEach((record, i) => {
      const recordMode = inside(mode, record.diff);
      out += `\n${indent(recordMode, depth + 1)}${record.key ? `${record.key}: ` : ""}${" ".repeat(pads[i])}`;
      out += expanded(record.value, recordMode, depth + 1);
      if (!record.elideComma) out += ",";
      if (record.comment !== undefined) out += ` // ${record.comment}`;
    });
  }
  return `${out}\n${indent(mode, depth)}${node.suffix}`;
}

/** Whether sigs.k8s.io/yaml can write the message (it refuses DEL and C1 controls in text, for one). */
function marshals(message: object): boolean {
  try {
    marshalMessageYaml(message);
    return true;
  } catch (error) {
    if (error instanceof SigsYamlError) return false;
    throw error;
  }
}

/**
 * What the Go differ logs after `<event>: <object>: ` in `-yaml` mode for
 * two messages: the report of their differences, "" when they are the same
 * (the Go differ then logs `<no changes>`), or undefined when either
 * cannot be written as YAML (the Go differ then logs nothing).
 */
export function yamlDiff(before: object, after: object): string | undefined {
  if (!marshals(before) || !marshals(after)) return undefined;
  const a = goJson(before);
  const b = goJson(after);
  if (same(a, b)) return "";
  return `${indent("", 0)}${expanded(compact(diffNode(a, b), ""), "", 0)}\n`;
}
