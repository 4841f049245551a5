/**
 * The runtime side of NRI: hosts plugins and merges their answers as the Go adaptation does.
 * @module @nri-ts/adaptation
 */
// Its types use Node's (streams, sockets, Buffer): the reference stays in the .d.ts for projects with "types": [].
/// <reference types="node" preserve="true" />
// Merge engine: ownership, merged results, validation (pure, no transport).
// where they were first; they live in @nri-ts/api now, for plugins too
export { ANNOTATION_DOMAIN, effectiveAnnotation, REQUIRED_PLUGINS_ANNOTATION } from "@nri-ts/api";
export { copyResources } from "./merge/copy-resources.js";
export { CreateContainerResult } from "./create-container-result.js";
export {
  AnnotationValueError,
  DEFAULT_VALIDATOR_INDEX,
  DEFAULT_VALIDATOR_NAME,
  DefaultValidationError,
  checkDefaultValidation,
  defaultValidator,
} from "./validation/default-validator.js";
export type { BuiltinValidator } from "./validation/default-validator.js";
export {
  DefaultValidatorConfigError,
  defaultValidatorConfig,
  parseDefaultValidatorConfig,
} from "./validation/default-validator-config.js";
export type { DefaultValidatorConfig } from "./validation/default-validator-config.js";
export { fieldName } from "./merge/fields.js";
export type { CompoundField, SimpleField } from "./merge/fields.js";
export { CreationUpdateError } from "./merge/merge-updates.js";
export type { MergedUpdate } from "./merge/merge-updates.js";
export type {
  FilledAdjustment,
  FilledContainer,
  FilledCreateContainerRequest,
  FilledResources,
  FilledUpdateContainerRequest,
} from "./merge/normalize.js";
export { ConflictError, Ownership, compoundOwner, compoundOwners, simpleOwner } from "./merge/owners.js";
export { StopContainerResult, UpdateContainerResult } from "./update-container-result.js";
export type { MergedUpdateContainerResponse, UpdatesResponse } from "./update-container-result.js";
export {
  ValidationRequestBuilder,
  ValidatorFailedError,
  ValidatorRejectedError,
  firstValidationError,
  pluginMap,
  validationVerdict,
} from "./validation/validation.js";
export { YamlListError, parseYamlStringList } from "./validation/yaml-string-list.js";

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
export type { Awaitable, BuiltinHandlers, BuiltinPlugin } from "./transport/builtin-plugin.js";
export { DiscoveryError } from "./launch/discovery.js";
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
export { PluginError, type PluginFailure } from "./plugin-error.js";
export { readPluginLines } from "./launch/plugin-lines.js";
// Kept here too: they were exported from here first.
export { boundedText, PLUGIN_TEXT_LIMIT, pluginText } from "@nri-ts/common";
export { CallFailure, type LocalFailure } from "./transport/plugin-transport.js";
export { SyncError } from "./transport/sync-paging.js";
