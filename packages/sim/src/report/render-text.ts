/**
 * The human-readable report: a header, one block per step (events per
 * plugin, the merged adjustment with owners, updates, evictions, verdicts,
 * errors, the container's status) and the expectations with a summary.
 */
import type { Change } from "./changes.js";
import { readableLogLine } from "./log-line.js";
import { renderTrace } from "./render-trace.js";
import type {
  DeliveredEvent,
  ExpectationReport,
  FailureReport,
  FaultReport,
  OutputLine,
  PluginInfo,
  SimReport,
  StepReport,
  UpdateReport,
} from "./report.js";
import { plainStyle, type Style } from "./style.js";

const INDENT = "     ";

/** `failRequest, keepConnected`, one of them, or `defaults` when both are false. */
function policyText(policy: { failRequest: boolean; keepConnected: boolean }): string {
  const set = [policy.failRequest && "failRequest", policy.keepConnected && "keepConnected"].filter(Boolean);
  return set.length > 0 ? set.join(", ") : "defaults";
}

function pluginLabel(plugin: PluginInfo): string {
  const details = [plugin.path ? `${plugin.source} ${plugin.path}` : plugin.source];
  if (plugin.failurePolicy) details.push(`failure policy ${policyText(plugin.failurePolicy)}`);
  return `${plugin.name} (${details.join(", ")})`;
}

function renderFailure(failure: FailureReport, style: Style): string[] {
  const policy = failure.policy ? `policy ${policyText(failure.policy)}` : "no policy";
  const decision = `${failure.requestFailed ? "request failed" : "request went on without it"}, plugin ${failure.dropped ? "dropped" : "kept"}`;
  return [
    style.red(`${INDENT}${failure.plugin} failed ${failure.event}: ${failure.error}`),
    `${INDENT}  ${policy}: ${decision}`,
  ];
}

function renderFault(fault: FaultReport, style: Style): string {
  const what = `fault: ${fault.plugin} ${fault.fault}${fault.on ? ` on ${fault.on}` : ""}`;
  return fault.happened ? style.yellow(`${INDENT}${what}`) : style.red(`${INDENT}${what}: no such request came`);
}

export function renderHeader(
  report: Pick<SimReport, "scenario" | "file" | "plugins" | "runtime">,
  style: Style = plainStyle,
): string {
  const lines = [`${style.bold(`nri-sim: ${report.scenario}`)}${report.file ? style.dim(`  (${report.file})`) : ""}`];
  lines.push(
    report.plugins.length > 0
      ? `plugins: ${report.plugins.map(pluginLabel).join(", ")}`
      : style.yellow("plugins: none (the runtime runs alone)"),
  );
  return lines.join("\n");
}

function eventText(event: DeliveredEvent, style: Style): string {
  return event.error ? style.red(`${event.event} ✗ ${event.error}`) : event.event;
}

/** Events grouped by plugin, in the order the plugins first got one. */
export function renderEvents(events: readonly DeliveredEvent[], style: Style, indent = INDENT): string[] {
  const byPlugin = new Map<string, DeliveredEvent[]>();
  for (const event of events) {
    const list = byPlugin.get(event.plugin) ?? [];
    list.push(event);
    byPlugin.set(event.plugin, list);
  }
  const width = Math.max(0, ...[...byPlugin.keys()].map((name) => name.length));
  return [...byPlugin].map(
    ([plugin, list]) =>
      `${indent}${style.cyan(plugin.padEnd(width))}  ${list.map((e) => eventText(e, style)).join(", ")}`,
  );
}

function outputLine(line: OutputLine, style: Style): string {
  return style.dim(`${INDENT}│ ${line.plugin}: ${readableLogLine(line.text)}`);
}

function ownerText(change: Change, style: Style): string {
  if (!change.owner) return "";
  return change.owner.startsWith("-") ? style.dim(`removed by ${change.owner.slice(1)}`) : style.cyan(change.owner);
}

function renderChanges(changes: readonly Change[], style: Style, indent: string): string[] {
  const width = Math.min(60, Math.max(0, ...changes.map((c) => c.text.length)));
  return changes.map((change) => {
    const owner = ownerText(change, style);
    return `${indent}${owner ? change.text.padEnd(width) : change.text}${owner ? `  ${owner}` : ""}`.trimEnd();
  });
}

function renderUpdate(update: UpdateReport, style: Style): string[] {
  const state = update.applied ? "" : style.red(` not applied: ${update.error ?? "failed"}`);
  const lines = [
    `${INDENT}update ${update.container} (from ${update.from}${update.ignoreFailure ? ", failure ignored" : ""})${state}`,
  ];
  lines.push(...renderChanges(update.changes, style, `${INDENT}  `));
  for (const field of update.ignored ?? [])
    lines.push(style.yellow(`${INDENT}  ${field}: not applied by runtimes on update`));
  return lines;
}

export function renderStep(step: StepReport, style: Style = plainStyle): string {
  const mark = step.ok ? style.green("✓") : style.red("✗");
  const where = step.line !== undefined ? style.dim(`  line ${step.line}`) : "";
  const lines = [`${mark} ${String(step.number).padStart(2)} ${style.bold(step.step)}${where}`];
  if (step.error) lines.push(style.red(`${INDENT}error: ${step.error}`));
  lines.push(...renderEvents(step.events, style));
  for (const fault of step.faults ?? []) lines.push(renderFault(fault, style));
  for (const failure of step.failures) lines.push(...renderFailure(failure, style));
  if (step.changes.length > 0) {
    lines.push(`${INDENT}adjustment:`);
    lines.push(...renderChanges(step.changes, style, `${INDENT}  `));
  }
  for (const field of step.ignored) lines.push(style.yellow(`${INDENT}  ${field}: not applied by runtimes`));
  for (const update of step.updates) lines.push(...renderUpdate(update, style));
  for (const eviction of step.evictions) {
    lines.push(
      style.yellow(
        `${INDENT}evict ${eviction.container} (from ${eviction.from}): ${eviction.reason || "no reason given"}`,
      ),
    );
  }
  for (const verdict of step.validation) {
    lines.push(
      verdict.accepted
        ? `${INDENT}${style.cyan(verdict.plugin)} accepted the adjustment`
        : style.red(`${INDENT}${verdict.plugin} rejected the adjustment: ${verdict.reason ?? "no reason given"}`),
    );
  }
  for (const plugin of step.closed) lines.push(style.red(`${INDENT}plugin ${plugin} was dropped by the runtime`));
  for (const line of step.output) lines.push(outputLine(line, style));
  const status = step.container?.status;
  if (typeof status === "string") lines.push(`${INDENT}${style.dim("container")} ${step.container?.name}: ${status}`);
  if (step.trace) lines.push(...renderTrace(step.trace, style, INDENT));
  return lines.join("\n");
}

export function renderExpectation(result: ExpectationReport, style: Style = plainStyle): string {
  const where = `${result.line !== undefined ? `line ${result.line}, ` : ""}after step ${result.step} (${result.stepText})`;
  if (result.ok) return `${style.green("✓")} ${where}`;
  return [`${style.red("✗")} ${where}`, ...result.failures.map((f) => style.red(`    ${f}`))].join("\n");
}

export function renderSummary(report: SimReport, style: Style = plainStyle): string {
  const lines: string[] = [];
  if (report.expectations.length > 0) {
    lines.push(style.bold("expectations"));
    lines.push(...report.expectations.map((e) => renderExpectation(e, style)));
  }
  const steps = `${report.steps.length} step${report.steps.length === 1 ? "" : "s"}`;
  const passed = report.expectations.filter((e) => e.ok).length;
  const expectations = `${passed}/${report.expectations.length} expectation${report.expectations.length === 1 ? "" : "s"} met`;
  lines.push(
    report.ok
      ? style.green(`✓ ${steps}, ${expectations}`)
      : style.red(`✗ ${steps}, ${expectations}\n${report.failures.map((f) => `  ${f}`).join("\n")}`),
  );
  return lines.join("\n");
}

/** What happened while the plugins connected: events (Synchronize), errors, updates, output. */
export function renderSetup(report: Pick<SimReport, "setup">, style: Style = plainStyle): string[] {
  const { setup } = report;
  const lines: string[] = [];
  if (setup.events.length > 0) lines.push(style.dim("setup"), ...renderEvents(setup.events, style));
  for (const error of setup.errors) lines.push(style.red(`${INDENT}${error}`));
  for (const update of setup.updates) lines.push(...renderUpdate(update, style));
  for (const line of setup.output) lines.push(outputLine(line, style));
  return lines;
}

/** The whole report as text (what the CLI prints, step by step). */
export function renderReport(report: SimReport, style: Style = plainStyle): string {
  return [
    renderHeader(report, style),
    ...renderSetup(report, style),
    ...report.steps.map((step) => renderStep(step, style)),
    renderSummary(report, style),
  ].join("\n");
}
