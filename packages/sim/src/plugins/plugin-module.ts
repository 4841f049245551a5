/**
 * What a plugin module for `nri-sim --plugin` exports: a plugin object
 * (handlers, as @nri-ts/stub takes them) as its default export or as
 * `plugin`, or a function (possibly async) that returns one. The function
 * gets the plugin's configuration text (`--plugin-config`; "" without):
 * module plugins connect as external plugins, which a runtime configures
 * with nothing.
 */
import type { Plugin } from "@nri-ts/stub";

/** The module does not export a plugin. */
export class PluginModuleError extends Error {
  override readonly name = "PluginModuleError";
}

function isPluginObject(value: unknown): value is Plugin {
  return typeof value === "object" && value !== null && Object.values(value).some((v) => typeof v === "function");
}

export async function pluginFromModule(exports: Record<string, unknown>, path: string, config = ""): Promise<Plugin> {
  for (const key of ["default", "plugin"]) {
    const value = exports[key];
    const candidate = typeof value === "function" ? await (value as (config: string) => unknown)(config) : value;
    if (isPluginObject(candidate)) return candidate;
  }
  throw new PluginModuleError(
    `${path} exports no plugin: export default (or export const plugin =) an object of handlers such as createContainer, or a function returning one`,
  );
}
