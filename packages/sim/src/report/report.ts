/**
 * What a simulation returns (and `--json` prints): per step, the events each
 * plugin received, the merged adjustment with the owner of each change, the
 * updates and evictions, validation verdicts, errors and dropped plugins;
 * then the verdict of every `expect:` entry. Everything is plain JSON.
 */
import type { Change } from "./changes.js";
import type { ContainerView } from "./container-view.js";
import type { AdjustmentView, ResourcesView } from "./plain-of.js";
import type { ExportSummary } from "../trace/sim-tracing.js";
import type { TraceReport } from "../trace/trace-tree.js";

/**
 * `object`: a plugin object run in-process; `module`: a module run in a child
 * process; `executable`: launched by the runtime from the plugin directory;
 * `external`: connected to the socket on its own; `builtin`: the runtime's
 * default validator; `scripted`: sends a scenario's `plugin-update` steps.
 */
export type PluginSource = "object" | "module" | "executable" | "wasm" | "external" | "builtin" | "scripted";

export interface PluginInfo {
  /** `<index>-<name>`, e.g. `10-logger`. */
  name: string;
  source: PluginSource;
  /** The module or executable, when there is one. */
  path?: string;
  /** The failure policy it declared in Configure, if any. */
  failurePolicy?: { failRequest: boolean; keepConnected: boolean };
}

/**
 * A plugin failed a request (timed out, lost its connection, broke the
 * protocol), and what its failure policy decided.
 */
export interface FailureReport {
  plugin: string;
  event: string;
  /** Why, as Go says it: `context deadline exceeded`, `ttrpc: closed`, ... */
  error: string;
  /** The plugin's policy; absent: none (both false). */
  policy?: { failRequest: boolean; keepConnected: boolean };
  /** The step's request failed because of it. */
  requestFailed: boolean;
  /** The runtime disconnected the plugin (false: kept it). */
  dropped: boolean;
}

/** A fault the step's `faults:` asked for, and whether it happened. */
export interface FaultReport {
  plugin: string;
  fault: "timeout" | "disconnect";
  on?: string;
  happened: boolean;
}

/** One request or event the runtime sent to one plugin. */
export interface DeliveredEvent {
  plugin: string;
  /** e.g. `CreateContainer`, `ValidateContainerAdjustment`, `Synchronize`. */
  event: string;
  /** The plugin's error, or why the call failed (timeout, connection lost). */
  error?: string;
}

/** A container update the runtime applied (or failed to apply). */
export interface UpdateReport {
  /** The container, as the scenario names it (or its id when unknown). */
  container: string;
  /** Where it came from: `CreateContainer`, `UpdateContainer`, `StopContainer`, `Synchronize` or `unsolicited`. */
  from: string;
  resources?: ResourcesView;
  ignoreFailure: boolean;
  /** Each change with its owner, when the adaptation recorded one. */
  changes: Change[];
  applied: boolean;
  /** Why it was not applied. */
  error?: string;
  /** Parts a runtime does not apply on update (e.g. `linux.resources.pids`). */
  ignored?: string[];
}

export interface EvictionReport {
  container: string;
  reason: string;
  from: string;
}

export interface VerdictReport {
  plugin: string;
  accepted: boolean;
  reason?: string;
}

/** Lines a plugin printed (module plugins run as child processes). */
export interface OutputLine {
  plugin: string;
  text: string;
}

export interface StepReport {
  /** 1-based. */
  number: number;
  /** e.g. `create app`. */
  step: string;
  line?: number;
  ok: boolean;
  error?: string;
  events: DeliveredEvent[];
  /** The merged adjustment of a create step, empty parts left out. */
  adjustment?: AdjustmentView;
  /** The adjustment as a list of changes with owners. */
  changes: Change[];
  updates: UpdateReport[];
  evictions: EvictionReport[];
  validation: VerdictReport[];
  /** Plugins the runtime dropped during the step. */
  closed: string[];
  /** Plugins' failures and what their policies decided. */
  failures: FailureReport[];
  /** The faults the step asked for (only when it asked for some). */
  faults?: FaultReport[];
  /** Adjusted fields a real runtime would not apply. */
  ignored: string[];
  output: OutputLine[];
  /** The step's container after the step. */
  container?: ContainerView;
  /** The step's trace (with `trace`): the runtime's requests, its calls to plugins and the plugins' spans. */
  trace?: TraceReport;
}

export interface ExpectationReport {
  line?: number;
  /** 1-based step number. */
  step: number;
  stepText: string;
  ok: boolean;
  /** What did not match, one line each. */
  failures: string[];
}

export interface SimReport {
  scenario: string;
  file?: string;
  runtime: { name: string; version: string };
  plugins: PluginInfo[];
  /** What happened while the plugins connected and synchronized. */
  setup: { events: DeliveredEvent[]; updates: UpdateReport[]; errors: string[]; output: OutputLine[] };
  steps: StepReport[];
  expectations: ExpectationReport[];
  /** True when no expectation failed and no step failed unexpectedly. */
  ok: boolean;
  /** One line per reason `ok` is false. */
  failures: string[];
  /** How exporting the traces went (with `otlp`). */
  otlp?: ExportSummary;
}
