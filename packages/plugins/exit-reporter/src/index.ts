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
export { codeClass, KNOWN_REASONS } from "./outputs/metrics.js";
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
