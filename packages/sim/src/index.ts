// Its types use Node's (pluginProgram's child processes): the reference stays in the .d.ts for projects with "types": [].
/// <reference types="node" preserve="true" />
export { type Change, ownerKey } from "./report/changes.js";
export type { ClockKind } from "./run/clock.js";
export { type ContainerView, containerView } from "./report/container-view.js";
export { mismatches } from "./run/match.js";
export {
  formatIssue,
  loadScenario,
  parseScenario,
  ScenarioError,
  scenarioFromObject,
} from "./scenario/parse-scenario.js";
export { type Plain, plain } from "./report/plain.js";
export {
  type AdjustmentView,
  type PlainMessage,
  type PlainOf,
  plainOf,
  type ResourcesView,
} from "./report/plain-of.js";
export { PluginModuleError } from "./plugins/plugin-module.js";
export type { PluginSpec } from "./plugins/plugin-spec.js";
export { PluginSetupError, type PluginSetupFailure } from "./plugins/plugin-setup.js";
export { type PluginProgram, pluginProgram, type ProgramRun } from "./plugins/program.js";
export { formatBytes, parseDuration, parseQuantity } from "./scenario/quantity.js";
export {
  renderEvents,
  renderExpectation,
  renderHeader,
  renderReport,
  renderSetup,
  renderStep,
  renderSummary,
} from "./report/render-text.js";
export type {
  DeliveredEvent,
  EvictionReport,
  FailureReport,
  FaultReport,
  ExpectationReport,
  OutputLine,
  PluginInfo,
  PluginSource,
  SimReport,
  StepReport,
  UpdateReport,
  VerdictReport,
} from "./report/report.js";
export type {
  ContainerSpec,
  EvictionSpec,
  Expectation,
  FaultKind,
  FaultSpec,
  PluginSettings,
  PodSpec,
  RuntimeSpec,
  Scenario,
  Step,
  StepBase,
  StepKind,
  UpdateSpec,
} from "./scenario/scenario.js";
export { type SetupReport, type SimObserver, simulate, type SimulateOptions } from "./run/simulate.js";
export { colorWanted, makeStyle, type Style } from "./report/style.js";
export { renderTrace } from "./report/render-trace.js";
export { SdkRegisteredError } from "./trace/sdk-registered-error.js";
export type { ExportSummary } from "./trace/sim-tracing.js";
export type { TraceReport, TraceSpan } from "./trace/trace-tree.js";
export type { IssuePlace, ScenarioIssue } from "./scenario/yaml-value.js";
