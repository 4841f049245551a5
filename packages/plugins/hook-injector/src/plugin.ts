/**
 * The hook-injector plugin: on CreateContainer it adds the OCI hooks whose
 * hook files match the container (its annotations and its pod's, its
 * command, whether it has mounts). A container that matches nothing gets no
 * adjustment; one whose match cannot be decided fails, with the Go
 * plugin's error.
 */
import type { Hooks } from "@nri-ts/api";
import type { Logger, Plugin } from "@nri-ts/stub";
import type { HookSet } from "./hook-dirs.js";
import { matchingHooks } from "./match.js";

export interface HookInjectorOptions {
  /** The hooks to inject from, read at each CreateContainer (a `HookStore`'s, or a fixed set). */
  hooks: { readonly hooks: HookSet };
  /** Where its lines go; default the stub's logger. */
  logger?: Logger;
}

/** The plugin object for @nri-ts/stub: it handles CreateContainer only. */
export function createHookInjector(options: HookInjectorOptions): Plugin {
  return {
    createContainer(pod, container, ctx) {
      const logger = options.logger ?? ctx.logger;
      const name = `${pod.name}/${container.name}`;
      let hooks: Hooks | undefined;
      try {
        hooks = matchingHooks(
          options.hooks.hooks,
          {
            annotations: { ...container.annotations, ...pod.annotations },
            args: container.args,
            hasBindMounts: container.mounts.length > 0,
          },
          (file, hook, matched) =>
            logger.debug(
              matched
                ? `hook ${file} matched; adding to stages [${(hook.stages ?? []).join(" ")}]`
                : `hook ${file} did not match`,
            ),
        );
      } catch (error) {
        logger.error(`${name}: failed to generate hooks: ${(error as Error).message}`);
        throw new Error(`hook generation failed: ${(error as Error).message}`, { cause: error });
      }
      if (hooks === undefined) {
        logger.info(`${name}: no hooks to inject, ignoring`);
        return;
      }
      logger.info(`${name}: OCI hooks injected`);
      return { hooks };
    },
  };
}
