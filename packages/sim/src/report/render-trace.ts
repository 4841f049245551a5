/**
 * A step's trace as text (`nri-sim run --trace`): one line per span,
 * indented under its parent, with how long it took and what it says:
 *
 *   trace 4bf92f3577b34da6a3ce929d0e0e4736
 *     create nginx                         3.12 ms
 *       CreateContainer                    1.83 ms
 *         → 10-logger CreateContainer      1.02 ms  adjusted
 *             10-logger handler            0.21 ms
 *         → 20-env CreateContainer         0.40 ms
 */
import { TraceAttribute } from "@nri-ts/api";
import type { TraceReport, TraceSpan } from "../trace/trace-tree.js";
import type { Style } from "./style.js";

const STEP = "  ";
const WIDEST_LABEL = 64;

/** Milliseconds as the tree shows them: `0.21 ms`, `12.4 ms`, `1.52 s`. */
export function durationText(ms: number): string {
  if (ms >= 1000) return `${(ms / 1000).toFixed(2)} s`;
  return `${ms >= 10 ? ms.toFixed(1) : ms.toFixed(2)} ms`;
}

function pluginName(span: TraceSpan): string | undefined {
  const { [TraceAttribute.pluginIndex]: index, [TraceAttribute.pluginName]: name } = span.attributes;
  return typeof name === "string" ? `${String(index)}-${name}` : undefined;
}

/** What a span is, in a few words. */
function label(span: TraceSpan): string {
  const plugin = pluginName(span);
  const method = span.attributes["rpc.method"];
  if (plugin !== undefined && typeof method === "string") {
    if (span.attributes["rpc.service"] === "nri.pkg.api.v1alpha1.Runtime") {
      return span.kind === "client" ? `${plugin} → ${method}` : `${method} from ${plugin}`;
    }
    // the runtime's call, or the plugin's handling of it (in the plugin's process, or its stub's)
    return span.kind === "server" ? `${plugin} handler` : `→ ${plugin} ${method}`;
  }
  return span.name.startsWith("nri.") ? span.name.slice("nri.".length) : span.name;
}

/** What a span says besides its timing: its error, a verdict, a policy's decision, changes asked for. */
function notes(span: TraceSpan, style: Style): string {
  const a = span.attributes;
  const said: string[] = [];
  if (a[TraceAttribute.conflictPlugins] !== undefined) {
    said.push(
      `conflict: ${(a[TraceAttribute.conflictPlugins] as string[]).join(", ")} on ${String(a[TraceAttribute.conflictField])}`,
    );
  } else if (span.error !== undefined) said.push(style.red(`✗ ${span.error}`));
  if (a[TraceAttribute.failureDecision] !== undefined) said.push(String(a[TraceAttribute.failureDecision]));
  if (a[TraceAttribute.verdict] === "rejected")
    said.push(style.red(`rejected: ${String(a[TraceAttribute.verdictReason])}`));
  if (a[TraceAttribute.adjusted] === true && span.kind !== "server") said.push("adjusted");
  return said.join(", ");
}

function lines(span: TraceSpan, depth: number, rows: Array<{ text: string; span: TraceSpan }>): void {
  rows.push({ text: `${STEP.repeat(depth)}${label(span)}`, span });
  for (const child of span.children) lines(child, depth + 1, rows);
}

/** The trace's lines, each starting with `indent`. */
export function renderTrace(trace: TraceReport, style: Style, indent: string): string[] {
  const rows: Array<{ text: string; span: TraceSpan }> = [];
  for (const root of trace.spans) lines(root, 1, rows);
  const width = Math.min(WIDEST_LABEL, Math.max(0, ...rows.map((row) => row.text.length)));
  return [
    style.dim(`${indent}trace ${trace.traceId}`),
    ...rows.map(({ text, span }) => {
      const said = notes(span, style);
      const time = style.dim(durationText(span.durationMs).padStart(8));
      return `${indent}${text.padEnd(width)}  ${time}${said ? `  ${said}` : ""}`.trimEnd();
    }),
  ];
}
