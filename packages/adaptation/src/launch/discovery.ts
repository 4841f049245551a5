import { lstat, readdir, readFile } from "node:fs/promises";
import { join } from "node:path";
import { parsePluginName } from "@nri-ts/api";
import { errorText } from "../error-text.js";

/** A plugin found in the plugin directory, to be launched. */
export interface DiscoveredPlugin {
  /** The executable. */
  path: string;
  index: string;
  name: string;
  /** Its configuration from the config directory, verbatim; "" when there is none. */
  config: string;
}

/** Discovery failed; the adaptation does not start. */
export class DiscoveryError extends Error {
  override readonly name = "DiscoveryError";
}

function isNotFound(error: unknown): boolean {
  return (error as NodeJS.ErrnoException).code === "ENOENT";
}

/**
 * The plugin's configuration: `<configDir>/<idx>-<name>.conf`, else
 * `<configDir>/<name>.conf`, else "".
 */
async function readPluginConfig(configDir: string, index: string, name: string): Promise<string> {
  const fullName = `${index}-${name}`;
  for (const file of [`${fullName}.conf`, `${name}.conf`]) {
    try {
      return await readFile(join(configDir, file), "utf8");
    } catch (error) {
      if (!isNotFound(error)) {
        throw new Error(`failed to read configuration for plugin "${fullName}": ${errorText(error)}`, { cause: error });
      }
    }
  }
  return "";
}

/**
 * The plugins to launch: the executable files of `pluginDir`, in name order,
 * each named `<idx>-<name>`. A missing directory holds no plugins.
 * Directories and files without any execute bit are skipped; symbolic links
 * count by their own mode, as in Go.
 *
 * @throws DiscoveryError for an unreadable directory, an executable whose
 *   name has no valid index (one is enough to fail the lot, as in Go), or an
 *   unreadable configuration file
 */
export async function discoverPlugins(pluginDir: string, configDir: string): Promise<DiscoveredPlugin[]> {
  const fail = (error: unknown) =>
    new DiscoveryError(`failed to discover plugins in ${pluginDir}: ${errorText(error)}`, { cause: error });
  let entries: string[];
  try {
    entries = await readdir(pluginDir);
  } catch (error) {
    if (isNotFound(error)) return [];
    throw fail(error);
  }
  const plugins: DiscoveredPlugin[] = [];
  for (const entry of entries.sort()) {
    const path = join(pluginDir, entry);
    let mode: number;
    try {
      const stats = await lstat(path);
      if (stats.isDirectory()) continue;
      mode = stats.mode;
    } catch {
      continue;
    }
    if ((mode & 0o111) === 0) continue;
    try {
      const { index, name } = parsePluginName(entry);
      plugins.push({ path, index, name, config: await readPluginConfig(configDir, index, name) });
    } catch (error) {
      throw fail(error);
    }
  }
  return plugins;
}
