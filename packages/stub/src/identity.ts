import { basename } from "node:path";
import { checkPluginIndex, checkPluginName, parsePluginName, PLUGIN_IDX_ENV, PLUGIN_NAME_ENV } from "@nri-ts/api";
import { StubError, messageOf } from "./errors.js";

/** A plugin's identity: it registers as `<index>-<name>`. */
export interface Identity {
  index: string;
  name: string;
}

/** Where an identity comes from. */
export interface IdentitySources {
  /** The environment (`NRI_PLUGIN_NAME`, `NRI_PLUGIN_IDX`, set by a runtime that launches the plugin). */
  env: Readonly<Record<string, string | undefined>>;
  /** The program's path; its base name, without a .js/.ts extension, may be `NN-name`. */
  programPath: string;
  /** A name given in the options; it replaces one from the environment. */
  name?: string;
  /**
   * The plugin's own name, used where Go's stub would take the executable's
   * name: a Go plugin is its own executable (`ulimit-adjuster -idx 10`
   * registers as `10-ulimit-adjuster`), a Node.js plugin is run by whatever
   * file starts it (`dist/main.js`, a bin link, a wrapper script).
   */
  defaultName?: string;
  /** An index given in the options; an error when the environment already sets one. */
  index?: string;
  /**
   * Check the name too (external plugins): the runtime refuses a bad one.
   * A runtime that launched the plugin uses the file name and ignores what the
   * plugin sends, so then only the index is checked.
   */
  checkName: boolean;
  /** Told when the options replace a name from the environment. */
  onNameOverride?: (name: string, previous: string) => void;
}

const SCRIPT_EXTENSION = /\.(?:[cm]?js|[cm]?ts)$/;

/** Whether a program name gives an index and a name (`10-logger`). */
function isFullName(program: string): boolean {
  try {
    parsePluginName(program);
    return true;
  } catch {
    return false;
  }
}

/** The base name of a program path, without a JavaScript or TypeScript extension. */
export function programName(programPath: string): string {
  return basename(programPath).replace(SCRIPT_EXTENSION, "");
}

/**
 * Works out the plugin's index and name the way Go's stub does: from the
 * environment, then the options; with only an index, the name is the
 * plugin's default name, or else the program's; with no index, the program
 * must be named `NN-name` (which then sets both, replacing a name from the
 * options). Then checks the result.
 * @throws StubError ERR_STUB_IDENTITY
 */
export function resolveIdentity(sources: IdentitySources): Identity {
  let name = sources.env[PLUGIN_NAME_ENV] ?? "";
  let index = sources.env[PLUGIN_IDX_ENV] ?? "";
  if (sources.name !== undefined) {
    if (name !== "" && name !== sources.name) sources.onNameOverride?.(sources.name, name);
    name = sources.name;
  }
  if (sources.index !== undefined) {
    if (index !== "") {
      throw new StubError("ERR_STUB_IDENTITY", `plugin ID already set (${JSON.stringify(index)})`);
    }
    index = sources.index;
  }

  const program = programName(sources.programPath);
  if (index === "" && sources.name !== undefined && !isFullName(program)) {
    // A name given (say, -name on a command line) and nothing else: what is missing is the index.
    const example = `10-${sources.name || "name"}`;
    throw new StubError(
      "ERR_STUB_IDENTITY",
      `cannot tell the plugin's identity: the name ${JSON.stringify(sources.name)} has no index to go with it ` +
        `(a plugin registers as NN-name): give one with -idx (as in -idx 10 -name ${sources.name || "name"}), ` +
        `${PLUGIN_IDX_ENV} or runPlugin's index option, or name the program ${example}`,
    );
  }
  try {
    if (index === "") ({ index, name } = parsePluginName(program));
    else if (name === "") name = sources.defaultName ?? program;
    checkPluginIndex(index);
    if (sources.checkName) checkPluginName(name);
  } catch (error) {
    throw new StubError(
      "ERR_STUB_IDENTITY",
      `cannot tell the plugin's identity: ${messageOf(error)} (set ${PLUGIN_IDX_ENV} and ${PLUGIN_NAME_ENV}, ` +
        `pass index and name, or name the program NN-name)`,
      { cause: error },
    );
  }
  return { index, name };
}
