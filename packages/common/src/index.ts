/**
 * What the `@nri-ts` packages share beneath the protocol. Its exports are
 * re-exported where users meet them (the `Logger` of `@nri-ts/stub` and of
 * `@nri-ts/adaptation` is this one).
 * @module @nri-ts/common
 */
export { codeOf, goPathError, isNotExist } from "./go-errors.js";
export { goQuote, goQuoteRune, goTrimSpace, ParseBoolError, parseGoBool } from "./go-text.js";
export { isGoDigit, isGoLetter, isGoPrint } from "./go-unicode.js";
export { GO_UNICODE_VERSION } from "./go-unicode-tables.js";
export { type LogFn, type Logger, logCall, silentLogger } from "./logger.js";
export { boundedText, PLUGIN_TEXT_LIMIT, pluginText, truncationMark } from "./plugin-text.js";
