// Its types use Node's (pluginProgram's child processes): the reference stays in the .d.ts for projects with "types": [].
/// <reference types="node" preserve="true" />
export { type Change, ownerKey } from "./changes.js";
export type { ClockKind } from "./clock.js";
export { type ContainerView, containerView } from "./container-view.js";
export { mismatches } from "./match.js";
export { formatIssue, loadScenario, parseScenario, ScenarioError, scenarioFromObject } from "./parse-scenario.js";
export { type Plain, plain } from "./plain.js";
export { type AdjustmentView, type PlainMessage, type PlainOf, plainOf, type ResourcesView } from "./plain-of.js";
export { PluginModuleError } from "./plugin-module.js";
export { type PluginSpec } from "./plugin-sources.js";
export { PluginSetupError, type PluginSetupFailure } from "./plugin-setup.js";
export { type PluginProgram, pluginProgram, type ProgramRun } from "./program.js";
export { formatBytes, parseDuration, parseQuantity } from "./quantity.js";
export {
  renderEvents,
  renderExpectation,
  renderHeader,
  renderReport,
  renderSetup,
  renderStep,
  renderSummary,
} from "./render-text.js";
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
} from "./report.js";
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
} from "./scenario.js";
export { type SetupReport, type SimObserver, simulate, type SimulateOptions } from "./simulate.js";
export { colorWanted, makeStyle, type Style } from "./style.js";
export type { ScenarioIssue } from "./yaml-value.js";
