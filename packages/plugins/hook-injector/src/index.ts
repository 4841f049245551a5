// Its types use Node's (EventEmitter, file watchers): the reference stays in the .d.ts for projects with "types": [].
/// <reference types="node" preserve="true" />
import { createLogger, type Plugin } from "@nri-ts/stub";
import { HOOKS_DIRS } from "./hook-dirs.js";
import { HookStore } from "./hook-store.js";
import { createHookInjector } from "./plugin.js";

export {
  DEFAULT_HOOKS_DIR,
  HOOKS_DIRS,
  MAX_HOOK_FILE_BYTES,
  type HookSet,
  type HooksRead,
  OVERRIDE_HOOKS_DIR,
  readHooksDir,
  readHooksDirs,
  startupError,
} from "./hook-dirs.js";
export {
  HOOK_STAGES,
  HOOK_VERSION,
  type HookDefinition,
  HookFileError,
  type HookWhen,
  LEGACY_HOOK_VERSION,
  type OciHook,
  parseHookFile,
} from "./hook-file.js";
export { HookSetupError, HookStore, type HookStoreEvents } from "./hook-store.js";
export { HookMatchError, type MatchInput, type MatchObserver, matchingHooks, whenMatches } from "./match.js";
export { createHookInjector, type HookInjectorOptions } from "./plugin.js";

/**
 * The hook-injector for `nri-sim --plugin`. Its configuration, if any, lists
 * hook directories, one per line, lowest precedence first; they are
 * watched (and created where missing). Without one it reads the Go
 * plugin's two directories once, creating nothing.
 */
export async function plugin(config = ""): Promise<Plugin> {
  const dirs = config
    .split("\n")
    .map((line) => line.trim())
    .filter(Boolean);
  const logger = createLogger();
  const store = await HookStore.open(dirs.length > 0 ? dirs : HOOKS_DIRS, logger);
  if (dirs.length > 0) await store.watch();
  return createHookInjector({ hooks: store, logger });
}
