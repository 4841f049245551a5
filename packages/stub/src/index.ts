/**
 * The plugin side of NRI: a plugin as an object of handlers, run with `runPlugin`.
 * @module @nri-ts/stub
 */
// Its types use Node's (streams, sockets, Buffer): the reference stays in the .d.ts for projects with "types": [].
/// <reference types="node" preserve="true" />
export type { ReconnectOptions } from "./backoff.js";
export { type Dialer, dialUnix } from "./connect.js";
export { StubError, type StubErrorCode } from "./errors.js";
export type { FailurePolicyInput } from "./failure-policy.js";
export {
  FlagError,
  type FlagSpec,
  type FlagValues,
  flagsOrExit,
  flagUsage,
  parseGoFlags,
  parseGoInt,
  socketFlags,
} from "./go-flags.js";
export type { Identity } from "./identity.js";
export { createLogger, type LogFn, type Logger, type LoggerOptions, type LogLevel, silentLogger } from "./logger.js";
export { formatTextLine, logrusValue, type TextLevel, type TextLine } from "./text-format.js";
export type {
  AdjustmentInput,
  Awaitable,
  ConfigureInput,
  CreateContainerReply,
  CreateContainerResult,
  EvictionInput,
  HandlerContext,
  Plugin,
  RuntimeInfo,
  StubHandle,
  UpdateContainerReply,
  UpdateContainerResult,
  UpdateInput,
} from "./plugin.js";
export { type CheckedPlugin, type CheckResultKeys, definePlugin, type StrayResultKeys } from "./plugin-check.js";
export { type ReadRegularFileOptions, readRegularFile } from "./regular-file.js";
export { type RunPluginOptions, runPlugin } from "./run-plugin.js";
export { Stub, type StubOptions } from "./stub.js";
export { HANDLER_EVENTS } from "./subscription.js";
// What handlers throw to fail a request with a status code, so that plugins need no import of nice-grpc-common.
export { ClientError, ServerError, Status } from "nice-grpc-common";
