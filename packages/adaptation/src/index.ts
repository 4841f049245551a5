/**
 * The runtime side of NRI: hosts plugins and merges their answers as the Go adaptation does.
 * @module @nri-ts/adaptation
 */
// Its types use Node's (streams, sockets, Buffer): the reference stays in the .d.ts for projects with "types": [].
/// <reference types="node" preserve="true" />
// Merge engine: ownership, merged results, validation (pure, no transport).
// where they were first; they live in @nri-ts/api now, for plugins too
export { ANNOTATION_DOMAIN, effectiveAnnotation, REQUIRED_PLUGINS_ANNOTATION } from "@nri-ts/api";
export { copyResources } from "./copy-resources.js";
export { CreateContainerResult } from "./create-container-result.js";
export {
  AnnotationValueError,
  DEFAULT_VALIDATOR_INDEX,
  DEFAULT_VALIDATOR_NAME,
  DefaultValidationError,
  checkDefaultValidation,
  defaultValidator,
} from "./default-validator.js";
export type { BuiltinValidator } from "./default-validator.js";
export {
  DefaultValidatorConfigError,
  defaultValidatorConfig,
  parseDefaultValidatorConfig,
} from "./default-validator-config.js";
export type { DefaultValidatorConfig } from "./default-validator-config.js";
export { fieldName } from "./fields.js";
export type { CompoundField, SimpleField } from "./fields.js";
export { CreationUpdateError } from "./merge-updates.js";
export type { MergedUpdate } from "./merge-updates.js";
export type {
  FilledAdjustment,
  FilledContainer,
  FilledCreateContainerRequest,
  FilledResources,
  FilledUpdateContainerRequest,
} from "./normalize.js";
export { ConflictError, Ownership, compoundOwner, compoundOwners, simpleOwner } from "./owners.js";
export { StopContainerResult, UpdateContainerResult } from "./update-container-result.js";
export type { MergedUpdateContainerResponse, UpdatesResponse } from "./update-container-result.js";
export {
  ValidationRequestBuilder,
  ValidatorFailedError,
  ValidatorRejectedError,
  firstValidationError,
  pluginMap,
  validationVerdict,
} from "./validation.js";
export { YamlListError, parseYamlStringList } from "./yaml-string-list.js";

// Hosting plugins: the adaptation, its plugins, their connections and errors.
export {
  Adaptation,
  AdaptationError,
  type AdaptationOptions,
  type MergedRequests,
  type MergeEvent,
  type PluginInfo,
  type PluginSyncBlock,
  type RequestOptions,
  type SyncCallback,
  type SyncFn,
  type UnsolicitedUpdateOrigin,
  type UpdateFn,
} from "./adaptation.js";
export type { Awaitable, BuiltinHandlers, BuiltinPlugin } from "./builtin-plugin.js";
export { DiscoveryError } from "./discovery.js";
export type { PluginFailure } from "./failure-policy.js";
export {
  Deprecation,
  type DeprecationRecorder,
  deprecationText,
  type Logger,
  type Metrics,
  noMetrics,
  silentLogger,
} from "./observability.js";
export { type PluginKind, PluginStartError } from "./plugin.js";
export { PluginError } from "./plugin-error.js";
export { CallFailure, type LocalFailure } from "./plugin-transport.js";
export { SyncError } from "./sync-paging.js";
