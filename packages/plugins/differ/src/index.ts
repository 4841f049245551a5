export { type Change, type ChangeType, diffMessages } from "./go-diff.js";
export { createDiffer, type DifferOptions, type DifferPlugin } from "./differ.js";
export { type DifferFlags, FlagError, parseFlags, usage } from "./flags.js";
export { IndicesError, parseIndices, registeredIndex, TOO_FEW_INDICES } from "./indices.js";
export { textFormat } from "./go-print.js";
export type { Message } from "./go-struct.js";
export { yamlDiff } from "./yaml-diff.js";
