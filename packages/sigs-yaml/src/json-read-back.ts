/**
 * Where go-yaml v2 fails to read back the JSON that Go's encoding/json
 * wrote (sigs.k8s.io/yaml's JSONToYAML), with go-yaml's words:
 *
 * - its reader refuses runes that JSON leaves unescaped: DEL, the C1
 *   controls but NEL, U+FFFE and U+FFFF ("control characters are not
 *   allowed");
 * - its parser gives up on a key whose `:` is not on the key's line (NEL
 *   is a line break to YAML) or more than 1024 runes after the key's start
 *   ("did not find expected ',' or '}'", with the line where NELs moved it).
 *
 * Which one Go reports when both are there depends on how far its reader
 * had read: it decodes its input in chunks of 512 bytes, and a refused rune
 * fails the chunk it is in as soon as that chunk is needed. So this writes
 * the JSON text as Go writes it and follows the reader through it.
 */
import { formatJsonFloat } from "./go-scalar.js";
import { type JsonValue, jsonEntries } from "./json-value.js";

const REFUSED = /[\u007f-\u0084\u0086-\u009f\ufffe\uffff]/u;
const NEL = "\u0085";
const MAX_KEY_RUNES = 1024;
const CHUNK = 512;
/** The runes go-yaml's scanner looks ahead at a token's start (its longest indicators, `--- ` and `... `). */
const LOOKAHEAD = 4;

const SHORT: Readonly<Record<string, string>> = {
  '"': '\\"',
  "\\": "\\\\",
  "\b": "\\b",
  "\f": "\\f",
  "\n": "\\n",
  "\r": "\\r",
  "\t": "\\t",
};

/** A string as encoding/json writes it, HTML characters and line and paragraph separators escaped, invalid UTF-16 as U+FFFD. */
export function goJsonString(text: string): string {
  let out = '"';
  for (const rune of text) {
    const code = rune.codePointAt(0) as number;
    const short = SHORT[rune];
    if (short) out += short;
    else if (code < 0x20 || rune === "<" || rune === ">" || rune === "&" || code === 0x2028 || code === 0x2029) {
      out += `\\u${code.toString(16).padStart(4, "0")}`;
    } else if (code >= 0xd800 && code <= 0xdfff) out += "\\ufffd";
    else out += rune;
  }
  return `${out}"`;
}

/** The JSON text Go writes for `value`, and where the `:` of the first key go-yaml's parser gives up on is (a string index). */
function jsonText(value: JsonValue): { text: string; badColon?: number } {
  let text = "";
  let badColon: number | undefined;
  const write = (item: JsonValue): void => {
    if (item === null || typeof item === "boolean") text += String(item);
    else if (typeof item === "bigint") text += item.toString();
    else if (typeof item === "number") text += formatJsonFloat(item);
    else if (typeof item === "string") text += goJsonString(item);
    else if (Array.isArray(item)) {
      text += "[";
      item.forEach((entry: JsonValue, i) => {
        if (i > 0) text += ",";
        write(entry);
      });
      text += "]";
    } else {
      text += "{";
      jsonEntries(item as ReadonlyMap<string, JsonValue>).forEach(([key, entry], i) => {
        if (i > 0) text += ",";
        const quoted = goJsonString(key);
        text += quoted;
        if (badColon === undefined && (quoted.includes(NEL) || [...quoted].length > MAX_KEY_RUNES))
          badColon = text.length;
        text += ":";
        write(entry);
      });
      text += "}";
    }
  };
  write(value);
  return { text, badColon };
}

/** The index of the reader's chunk each rune of `text` is decoded in, by string index. */
function chunkOf(text: string): (index: number) => number {
  const chunks = new Int32Array(text.length);
  let start = 0;
  let chunk = 0;
  let offset = 0;
  for (let i = 0; i < text.length; ) {
    const code = text.codePointAt(i) as number;
    const bytes = code < 0x80 ? 1 : code < 0x800 ? 2 : code < 0x10000 ? 3 : 4;
    // A rune that does not fit whole starts the next chunk.
    if (offset + bytes > start + CHUNK) {
      start = offset;
      chunk++;
    }
    const units = code >= 0x10000 ? 2 : 1;
    chunks.fill(chunk, i, i + units);
    offset += bytes;
    i += units;
  }
  return (index) => chunks[Math.min(index, text.length - 1)];
}

/** The string index `runes` runes on from `index`. */
function runesOn(text: string, index: number, runes: number): number {
  let at = index;
  for (let n = 0; n < runes && at < text.length; n++) at += (text.codePointAt(at) as number) >= 0x10000 ? 2 : 1;
  return at;
}

/** go-yaml's reason for failing to read back the JSON of `value`, without sigs.k8s.io/yaml's prefix; undefined where it reads it. */
export function readBackProblem(value: JsonValue): string | undefined {
  const { text, badColon } = jsonText(value);
  const refused = text.search(REFUSED);
  if (badColon === undefined) return refused < 0 ? undefined : "yaml: control characters are not allowed";
  if (refused >= 0) {
    const chunk = chunkOf(text);
    // The reader has decoded every chunk up to the scanner's look-ahead at the `:` when the parser gives up.
    if (chunk(refused) <= chunk(runesOn(text, badColon, LOOKAHEAD) - 1))
      return "yaml: control characters are not allowed";
  }
  const line = text.slice(0, badColon).split(NEL).length - 1;
  return `yaml: ${line > 0 ? `line ${line}: ` : ""}did not find expected ',' or '}'`;
}
