// Its types use Node's (streams): the reference stays in the .d.ts for projects with "types": [].
/// <reference types="node" preserve="true" />
import { createLogger, type Plugin } from "@nri-ts/stub";
import { decodeConfig } from "./config.js";
import { createExitReporterPlugin } from "./plugin.js";
import { ExitReporter } from "./reporter.js";

export { type Address, AddressError, formatAddress, parseAddress } from "./outputs/address.js";
export { CAUSE_ANNOTATION, EXIT_CODES_ANNOTATION } from "./record/annotations.js";
export type { DeclaredCause } from "./record/causes.js";
export { type CgroupLayout, cgroupDirectory, findMemoryCgroup, memoryCgroupFromMountinfo } from "./oom/cgroups.js";
export {
  connectExitReporter,
  DEFAULT_ADDRESS,
  type ExitReporterClient,
  type ExitReporterConnection,
} from "./client.js";
export { type Command, formatCommand, stripWrapper, type WrapperPrefix } from "./record/command.js";
export type { ConfigIssue } from "./config-issues.js";
export { type ExitCodeMeaning, explainExitCode } from "./record/exit-code.js";
export {
  type ConfigDefaults,
  DEFAULT_GRPC_SOCKET,
  decodeConfig,
  defaultConfig,
  type ExitReporterConfig,
  ExitReporterConfigError,
  type GrpcConfig,
  type JsonLinesConfig,
  type PrometheusConfig,
} from "./config.js";
export { matchesFilter } from "./outputs/exit-hub.js";
export * from "./gen/nri_ts/exit_reporter/v1/exit_reporter.js";
export { exitRecordToJson } from "./outputs/json-record.js";
export { codeClass, KNOWN_REASONS, type PrometheusOptions, PrometheusOutput } from "./outputs/metrics.js";
export {
  type EventBody,
  eventBody,
  type EventSeries,
  type ObjectReference,
  REPORTING_CONTROLLER,
} from "./outputs/kubernetes/event-body.js";
export { type ContainerTermination, type KubeApi, KubeApiError } from "./outputs/kubernetes/kube-api.js";
export { clientApi, KubeConfigError, loadKubeConfig } from "./outputs/kubernetes/client-api.js";
export {
  type BucketConfig,
  type KubernetesConfig,
  DEFAULT_KUBERNETES,
  DEFAULT_RATE_LIMIT,
} from "./outputs/kubernetes/kubernetes-config.js";
export {
  type EventSelection,
  KubernetesOutput,
  type KubernetesOutputOptions,
  LAST_END_ANNOTATION,
  type RateLimits,
} from "./outputs/kubernetes/kubernetes-output.js";
export type { BucketLimits } from "./outputs/kubernetes/rate-limit.js";
export type { QueueLimits } from "./outputs/kubernetes/send-queue.js";
export { type ExitRule, matchRule, type RuleSubject } from "./rules/rules.js";
export { checkOom } from "./oom/oom.js";
export type { DropListener, ExitOutput } from "./outputs/output.js";
export { createExitReporterPlugin, type ExitReporterPluginOptions } from "./plugin.js";
export { buildExitRecord, type ExitEvent, type RecordInput } from "./record/record.js";
export { RECORD_LIMITS } from "./record/record-limits.js";
export { ExitReporter, type ExitReporterOptions } from "./reporter.js";

/**
 * The reporter for `nri-sim --plugin`: `config` is the YAML a runtime would
 * hand it (from `--plugin-config`); its logs go to stderr.
 */
export function plugin(config = ""): Plugin {
  return createExitReporterPlugin(new ExitReporter({ logger: createLogger() }), { config: decodeConfig(config) });
}
