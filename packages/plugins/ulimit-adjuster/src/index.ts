import type { Plugin } from "@nri-ts/stub";
import { createUlimitAdjuster } from "./plugin.js";

export { createUlimitAdjuster, type UlimitAdjusterOptions } from "./plugin.js";
export {
  adjustUlimits,
  annotationKeys,
  LEGACY_ULIMIT_KEY,
  parseUlimits,
  RLIMIT_TYPES,
  ULIMIT_KEY,
  type Ulimit,
  UlimitError,
} from "./ulimits.js";

/** The ulimit-adjuster for `nri-sim --plugin`; it takes no configuration. */
export function plugin(): Plugin {
  return createUlimitAdjuster();
}
