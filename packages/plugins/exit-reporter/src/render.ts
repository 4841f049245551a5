/**
 * How `nri-exits` shows exits: one line per exit for `watch`, a table for
 * `recent`; in colour when asked (a terminal that supports it).
 */
import { formatTimestampNs } from "@nri-ts/api";
import { styleText } from "node:util";
import { formatRunTime } from "./record/explanation.js";
import type { ExitRecord } from "./gen/nri_ts/exit_reporter/v1/exit_reporter.js";
import { sourceWord } from "./outputs/json-record.js";

type Format = Parameters<typeof styleText>[0];

export type Style = (format: Format, text: string) => string;

export const plain: Style = (_format, text) => text;
export const colored: Style = (format, text) => (text === "" ? text : styleText(format, text));

/** Colour for a stream that is a terminal able to show it (NO_COLOR, FORCE_COLOR and TERM are honoured). */
export function styleFor(stream: { isTTY?: boolean; hasColors?: () => boolean }): Style {
  return stream.isTTY && stream.hasColors?.() ? colored : plain;
}

/** Seconds precision: `2026-01-01T00:00:05Z`. */
function time(ns: bigint): string {
  return formatTimestampNs(ns)?.replace(/\.\d+Z$/, "Z") ?? "-";
}

function who(record: ExitRecord): string {
  const pod = record.pod?.name ? `${record.pod.namespace}/${record.pod.name}` : "?";
  return `${pod}/${record.container?.name || record.container?.id || "?"}`;
}

function exitColor(record: ExitRecord): Format {
  return record.exitCode === undefined ? "yellow" : record.exitCode === 0 ? "green" : "red";
}

function exitText(record: ExitRecord, style: Style): string {
  const code = record.exitCode === undefined ? "?" : `${record.exitCode}${record.signal ? ` ${record.signal}` : ""}`;
  return style(exitColor(record), `exit ${code}`);
}

function reasonText(record: ExitRecord, style: Style): string {
  if (!record.reason) return "";
  const source = sourceWord(record.reasonSource);
  return `${style("bold", record.reason)}${source ? style("dim", ` (${source})`) : ""}`;
}

/** `2026-01-01T00:00:05Z shop/web/app exit 137 SIGKILL OOMKilled (inferred): killed by ...` */
export function exitLine(record: ExitRecord, style: Style = plain): string {
  const reason = reasonText(record, style);
  return `${style("dim", time(record.finishedAt || record.reportedAt))} ${style("cyan", who(record))} ${exitText(record, style)}${reason ? ` ${reason}` : ""}: ${record.explanation}`;
}

const HEADERS = ["FINISHED", "POD", "CONTAINER", "EXIT", "REASON", "SOURCE", "RAN", "EXPLANATION"] as const;

function row(record: ExitRecord): string[] {
  return [
    time(record.finishedAt || record.reportedAt),
    record.pod?.name ? `${record.pod.namespace}/${record.pod.name}` : "?",
    record.container?.name || record.container?.id || "?",
    record.exitCode === undefined ? "?" : `${record.exitCode}${record.signal ? ` ${record.signal}` : ""}`,
    record.reason || "-",
    sourceWord(record.reasonSource) || "-",
    record.runTimeNs === undefined ? "-" : formatRunTime(record.runTimeNs),
    record.explanation,
  ];
}

const EXIT_COLUMN = HEADERS.indexOf("EXIT");

/** The exits as a table with a header; the last column is never padded or cut. */
export function exitTable(records: readonly ExitRecord[], style: Style = plain): string {
  const rows = [HEADERS as readonly string[], ...records.map(row)];
  const widths = HEADERS.map((_, column) => Math.max(...rows.map((cells) => cells[column].length)));
  return rows
    .map((cells, i) => {
      const padded = cells.map((cell, column) => (column === cells.length - 1 ? cell : cell.padEnd(widths[column])));
      if (i === 0) return style("bold", padded.join("  "));
      padded[EXIT_COLUMN] = style(exitColor(records[i - 1]), padded[EXIT_COLUMN]);
      return padded.join("  ");
    })
    .join("\n");
}
