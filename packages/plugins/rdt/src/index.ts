import type { Plugin } from "@nri-ts/stub";
import { createRdtPlugin } from "./plugin.js";

export { createRdtPlugin, type RdtOptions } from "./plugin.js";
export { adjustRdt, RDT_FIELDS, RDT_KEY_SUFFIX, RdtAnnotationError } from "./rdt.js";

/** The rdt plugin for `nri-sim --plugin`; it takes no configuration. */
export function plugin(): Plugin {
  return createRdtPlugin();
}
