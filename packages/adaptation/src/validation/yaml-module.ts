import { createRequire } from "node:module";
import type * as Yaml from "yaml";

let loaded: typeof Yaml | undefined;

/**
 * The `yaml` package, loaded the first time a configuration or annotation
 * needs it: it is 72 CommonJS modules (about 7 MiB of a runtime's RSS and
 * 25 ms of CPU to load), and most runtimes never read YAML here (no default
 * validator, or one configured by object, and no `required-plugins`
 * annotation). `require` keeps the callers synchronous; on Node.js it loads
 * the very file an `import` would (the package's `node` export).
 */
export function yaml(): typeof Yaml {
  return (loaded ??= createRequire(import.meta.url)("yaml") as typeof Yaml);
}
