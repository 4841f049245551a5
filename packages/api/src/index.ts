export * from "./gen/nri/pkg/api/v1alpha1/api.js";

export { ANNOTATION_DOMAIN, effectiveAnnotation, REQUIRED_PLUGINS_ANNOTATION } from "./annotations.js";
export {
  AdjustmentBuilder,
  type DeviceInput,
  type HookInput,
  type HooksInput,
  type MountInput,
  type ValueOrWrapper,
} from "./adjustment.js";
export { fromPartialChecked, PartialMessageError } from "./checked-partial.js";
export { describeExitCode, exitSignal, signalName } from "./exit-status.js";
export { decodeMessage, encodeMessage, type MessageType, ProtocolDecodeError } from "./decode.js";
export { envToKeyValues, keyValuesToEnv, keyValueToEnv, parseEnvEntry } from "./env.js";
export {
  ALL_EVENTS,
  clearEvents,
  type EventMask,
  eventMask,
  eventName,
  formatEventMask,
  hasEvent,
  isValidEventMask,
  parseEventMask,
  setEvents,
  UnknownEventError,
} from "./events.js";
export {
  type Int64Like,
  optionalBool,
  optionalFileMode,
  optionalInt,
  optionalInt32,
  optionalInt64,
  optionalRepeatedString,
  optionalString,
  optionalUInt32,
  optionalUInt64,
} from "./optional.js";
export {
  checkPluginIndex,
  checkPluginName,
  DEFAULT_PLUGIN_CONFIG_PATH,
  DEFAULT_PLUGIN_PATH,
  DEFAULT_REGISTRATION_TIMEOUT_MS,
  DEFAULT_REQUEST_TIMEOUT_MS,
  DEFAULT_SOCKET_PATH,
  formatPluginName,
  InvalidPluginIndexError,
  InvalidPluginNameError,
  parsePluginName,
  PLUGIN_IDX_ENV,
  PLUGIN_NAME_ENV,
  PLUGIN_SOCKET_ENV,
} from "./plugin.js";
export {
  clearRemovalMarker,
  isMarkedForRemoval,
  type MarkedKey,
  markForRemoval,
  parseRemovalMarker,
} from "./removal.js";
export { type DeviceCgroupRule, LinuxResourceSetters } from "./resource-setters.js";
export {
  type ContainerStatus,
  dateToNs,
  describeContainerStatus,
  formatDurationNs,
  formatTimestampNs,
  nsToDate,
  runDurationNs,
  sinceExitNs,
} from "./status.js";
export {
  answerAttributes,
  TraceAttribute,
  type TracedAnswer,
  type TracedRequest,
  traceAttributes,
} from "./trace-attributes.js";
export { UpdateBuilder } from "./update.js";
export {
  DEVEL_NRI_VERSION,
  FAILURE_POLICY_NRI_VERSION,
  inferRuntimeNriVersion,
  isUnknownNriVersion,
  NRI_VERSION,
  runtimeAppliesFailurePolicy,
  UNKNOWN_NRI_VERSION,
  VersionInferenceError,
} from "./version.js";
