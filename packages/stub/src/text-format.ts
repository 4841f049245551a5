/**
 * Log lines in the text format of the Go reference plugins: logrus's
 * TextFormatter with padded level names. Not on a terminal (a DaemonSet, a
 * pipe): `time="2026-01-01T00:00:00Z" level=info msg="started pod" pod=web`,
 * values quoted as Go's `%q` quotes them where they hold more than letters,
 * digits and `-._/@^+`, fields sorted by name. On a terminal: `INFO
 * [0012] message` (seconds since start, the message padded to 44
 * characters) and then the fields, as logrus lays it out without colours.
 */
import { goQuote } from "@nri-ts/common";

/** The levels plugins log at; `fatal` is the line a Go plugin writes before it exits (logrus's Fatal). */
export type TextLevel = "debug" | "info" | "warn" | "error" | "fatal";

const LEVEL_NAMES: Readonly<Record<TextLevel, string>> = {
  debug: "debug",
  info: "info",
  warn: "warning",
  error: "error",
  fatal: "fatal",
};
const PLAIN = /^[A-Za-z0-9\-._/@^+]*$/;
/** The keys logrus writes itself; fields of the same name are renamed `fields.<key>`. */
const FIXED = new Set(["time", "level", "msg"]);

/** A value as logrus writes it: Go's `fmt.Sprint` of it, quoted where it needs quotes. */
export function logrusValue(value: unknown): string {
  const text = sprint(value);
  return PLAIN.test(text) ? text : goQuote(text);
}

/** Go's `fmt.Sprint` for the values plugins log: lists as `[a b]`, errors as their message. */
function sprint(value: unknown): string {
  if (typeof value === "string") return value;
  if (value instanceof Error) return value.message;
  if (Array.isArray(value)) return `[${value.map(sprint).join(" ")}]`;
  if (value === null || value === undefined) return "<nil>";
  if (typeof value === "object") {
    try {
      return JSON.stringify(value, (_key, v: unknown) => (typeof v === "bigint" ? v.toString() : v));
    } catch {
      return String(value);
    }
  }
  return String(value);
}

/** Time as Go's RFC 3339 without fractions, in UTC. */
function rfc3339(at: Date): string {
  return at.toISOString().replace(/\.\d{3}Z$/, "Z");
}

export interface TextLine {
  at: Date;
  level: TextLevel;
  msg: string;
  fields: Readonly<Record<string, unknown>>;
}

function sortedFields(fields: Readonly<Record<string, unknown>>): [string, unknown][] {
  return Object.entries(fields)
    .filter(([, value]) => value !== undefined)
    .map(([key, value]): [string, unknown] => [FIXED.has(key) ? `fields.${key}` : key, value])
    .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
}

/**
 * One line, newline included. `sinceStart` (ms) gives the terminal layout;
 * without it, the plain one.
 */
export function formatTextLine(line: TextLine, sinceStart?: number): string {
  const fields = sortedFields(line.fields);
  if (sinceStart !== undefined) {
    // only this layout drops a message's final newline
    const msg = line.msg.replace(/\n$/, "");
    const seconds = String(Math.floor(sinceStart / 1000)).padStart(4, "0");
    const head = `${LEVEL_NAMES[line.level].toUpperCase().padEnd(7)}[${seconds}] ${msg.padEnd(44)} `;
    return `${(head + fields.map(([key, value]) => ` ${key}=${logrusValue(value)}`).join("")).trimEnd()}\n`;
  }
  const pairs: [string, unknown][] = [
    ["time", rfc3339(line.at)],
    ["level", LEVEL_NAMES[line.level]],
  ];
  if (line.msg !== "") pairs.push(["msg", line.msg]);
  return `${[...pairs, ...fields].map(([key, value]) => `${key}=${logrusValue(value)}`).join(" ")}\n`;
}
