/**
 * What the @nri-ts packages share beneath the protocol. Its exports are
 * re-exported where users meet them (the `Logger` of `@nri-ts/stub` and of
 * `@nri-ts/adaptation` is this one).
 * @module @nri-ts/common
 */
export { type LogFn, type Logger, logCall, silentLogger } from "./logger.js";
