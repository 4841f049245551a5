/**
 * Plugin identity and the well-known paths, variables and timeouts shared by
 * plugins and runtimes.
 *
 * A plugin is known as `<index>-<name>`: a two-digit index that orders the
 * plugins (00 runs first) and a base name. Launched plugins get both from
 * their file name in the plugin directory; external ones send them in
 * RegisterPlugin. The error texts match the Go reference's.
 */

import { goQuote, goQuoteRune } from "@nri-ts/common";

/** Where a runtime listens for external plugins. */
export const DEFAULT_SOCKET_PATH = "/var/run/nri/nri.sock";
/** Where a runtime looks for plugins to launch. */
export const DEFAULT_PLUGIN_PATH = "/opt/nri/plugins";
/** Where a runtime looks for `<index>-<name>.conf` or `<name>.conf` of launched plugins. */
export const DEFAULT_PLUGIN_CONFIG_PATH = "/etc/nri/conf.d";

/** Set for launched plugins: the number of the file descriptor of their connection (3). */
export const PLUGIN_SOCKET_ENV = "NRI_PLUGIN_SOCKET";
/** Set for launched plugins: their base name. */
export const PLUGIN_NAME_ENV = "NRI_PLUGIN_NAME";
/** Set for launched plugins: their index. */
export const PLUGIN_IDX_ENV = "NRI_PLUGIN_IDX";

/** How long a runtime waits for a plugin to register. */
export const DEFAULT_REGISTRATION_TIMEOUT_MS = 5_000;
/** How long a runtime waits for a plugin to answer a request. */
export const DEFAULT_REQUEST_TIMEOUT_MS = 2_000;

export class InvalidPluginIndexError extends Error {
  override readonly name = "InvalidPluginIndexError";

  constructor(
    readonly index: string,
    message: string,
  ) {
    super(message);
  }
}

export class InvalidPluginNameError extends Error {
  override readonly name = "InvalidPluginNameError";

  constructor(
    readonly pluginName: string,
    message: string,
  ) {
    super(message);
  }
}

const utf8 = new TextEncoder();

/**
 * Checks a plugin index: exactly two ASCII digits, `00` to `99`.
 * @throws InvalidPluginIndexError
 */
export function checkPluginIndex(index: string): void {
  // Go measures the length in bytes, so a non-ASCII character counts as several.
  if (utf8.encode(index).length !== 2) {
    throw new InvalidPluginIndexError(index, `invalid plugin index ${goQuote(index)}, must be 2 digits`);
  }
  if (!/^[0-9]{2}$/.test(index)) {
    throw new InvalidPluginIndexError(index, `invalid plugin index ${goQuote(index)} (not [0-9][0-9])`);
  }
}

/**
 * Checks a plugin base name: not empty, only `A-Z a-z 0-9 _ . + -`. Runtimes
 * apply this to external plugins.
 * @throws InvalidPluginNameError
 */
export function checkPluginName(name: string): void {
  if (name === "") throw new InvalidPluginNameError(name, "invalid plugin name: name is empty");
  for (const char of name) {
    if (!/^[A-Za-z0-9_.+-]$/.test(char)) {
      throw new InvalidPluginNameError(
        name,
        `invalid plugin name ${goQuote(name)}: contains invalid character ${goQuoteRune(char)}`,
      );
    }
  }
}

/**
 * Splits `<index>-<name>` at the first `-` and checks the index. The name is
 * not checked and may be empty (`"10-"`), as for launched plugins.
 * @throws InvalidPluginNameError without a `-`; InvalidPluginIndexError for a bad index
 */
export function parsePluginName(fullName: string): { index: string; name: string } {
  const dash = fullName.indexOf("-");
  if (dash < 0) {
    throw new InvalidPluginNameError(fullName, `invalid plugin name ${goQuote(fullName)}, idx-pluginname expected`);
  }
  const index = fullName.slice(0, dash);
  checkPluginIndex(index);
  return { index, name: fullName.slice(dash + 1) };
}

/**
 * `<index>-<name>`, after checking the index. Whatever the name, the result
 * parses back into the same index and name.
 * @throws InvalidPluginIndexError
 */
export function formatPluginName(index: string, name: string): string {
  checkPluginIndex(index);
  return `${index}-${name}`;
}
