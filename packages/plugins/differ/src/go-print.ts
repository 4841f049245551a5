/**
 * Values as Go's `%v` prints them in the Go differ's change lines: text as
 * it is, numbers in decimal, enums by name (a number the enum does not
 * know as the number), nil as `<nil>`, and a pointer to a message by its
 * String method: the protobuf text format on one line
 * (`limit:{value:536870912}`), fields in declaration order, zero scalars
 * left out, map entries sorted by key.
 */
import { compareBytes } from "@nri-ts/sigs-yaml";
import { goFields, type Kind, type Message } from "./go-struct.js";

export const GO_NIL = "<nil>";

/** A scalar or an enum value, as `%v` prints it. */
export function printScalar(value: unknown, kind: Kind): string {
  if (kind.of === "enum") return enumName(value as number, kind.names);
  return String(value);
}

function enumName(value: number, names: Readonly<Record<number, string>>): string {
  return names[value] ?? String(value);
}

/** A pointer to a message, as `%v` prints it: its String method's text. */
export function printMessage(message: Message | undefined): string {
  return message === undefined ? GO_NIL : textFormat(message);
}

/**
 * A string in the text format: double quotes; `"`, `\`, newline, return
 * and tab escaped by letter; other control characters, DEL and U+0080 to
 * U+009F by number.
 */
export function textString(text: string): string {
  let out = '"';
  for (const char of text) {
    const code = char.codePointAt(0) as number;
    if (char === '"' || char === "\\") out += `\\${char}`;
    else if (char === "\n") out += "\\n";
    else if (char === "\r") out += "\\r";
    else if (char === "\t") out += "\\t";
    else if (code < 0x20 || code === 0x7f) out += `\\x${code.toString(16).padStart(2, "0")}`;
    else if (code >= 0x80 && code <= 0x9f) out += `\\u${code.toString(16).padStart(4, "0")}`;
    else out += char;
  }
  return `${out}"`;
}

const isZero = (value: unknown) => value === "" || value === 0 || value === 0n || value === false;

function textScalar(value: unknown, names?: Readonly<Record<number, string>>): string {
  if (typeof value === "string") return textString(value);
  if (names) return enumName(value as number, names);
  return String(value);
}

function textValue(value: unknown): string {
  return typeof value === "object" && value !== null ? `{${textFormat(value as Message)}}` : textScalar(value);
}

/** A message in the text format on one line, as protobuf-go's String methods write it. */
export function textFormat(message: Message): string {
  const parts: string[] = [];
  for (const { field, textName, kind } of goFields(message)) {
    const value = message[field];
    if (kind.of === "slice") {
      for (const item of value as readonly unknown[]) {
        parts.push(`${textName}:${typeof item === "object" ? textValue(item) : textScalar(item, kind.element)}`);
      }
    } else if (kind.of === "map") {
      const entries = Object.entries(value as Message).sort(([a], [b]) => compareBytes(a, b));
      for (const [key, item] of entries) parts.push(`${textName}:{key:${textString(key)} value:${textValue(item)}}`);
    } else if (kind.of === "message") {
      if (value !== undefined) parts.push(`${textName}:${textValue(value)}`);
    } else if (!isZero(value)) {
      parts.push(`${textName}:${textScalar(value, kind.of === "enum" ? kind.names : undefined)}`);
    }
  }
  return parts.join(" ");
}
