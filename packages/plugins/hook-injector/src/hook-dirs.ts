/**
 * The hook directories, read as the hooks library reads them: every
 * `*.json` file of each directory in name order, later directories
 * replacing same-named files of earlier ones, files that vanished while
 * being read skipped, and the errors of one directory chained into one.
 */
import { readdir } from "node:fs/promises";
import { join } from "node:path";
import { codeOf, goPathError, isNotExist } from "@nri-ts/common";
import { readRegularFile } from "@nri-ts/stub";
import { type HookDefinition, parseHookFile } from "./hook-file.js";

/** Where packages install hooks (the lower precedence). */
export const DEFAULT_HOOKS_DIR = "/usr/share/containers/oci/hooks.d";
/** Where administrators put hooks; a file here replaces the same-named one of the default directory. */
export const OVERRIDE_HOOKS_DIR = "/etc/containers/oci/hooks.d";
/** The directories the Go plugin reads, lowest precedence first. */
export const HOOKS_DIRS: readonly string[] = [DEFAULT_HOOKS_DIR, OVERRIDE_HOOKS_DIR];

/**
 * The largest hook file read; hook files are a few hundred bytes. Go's
 * library reads any size, and a device such as `/dev/zero` until memory
 * runs out; a named pipe hangs it.
 */
export const MAX_HOOK_FILE_BYTES = 1024 * 1024;

/** The hooks read, by file name. */
export type HookSet = Map<string, HookDefinition>;

/** Of several failing files, the message names the last one read first (`<last>: ...: <first>`). */
function chain(errors: readonly Error[]): Error | undefined {
  return errors.reduce<Error | undefined>(
    // each newer error only in the text, the older chain as the cause, as Go's "%v: %w"
    (older, error) => (older === undefined ? error : new Error(`${error.message}: ${older.message}`, { cause: older })),
    undefined,
  );
}

/**
 * Reads one directory's hooks into `hooks` (by file name, replacing earlier
 * ones) and resolves to the error of the files that could not be read, if
 * any: a missing directory, unreadable or invalid files, anything but a
 * regular file (read without blocking: a named pipe does not hang it), a
 * file over {@link MAX_HOOK_FILE_BYTES}. A file that is gone by the time it
 * is read (a dangling link) is skipped silently.
 */
export async function readHooksDir(dir: string, hooks: HookSet): Promise<Error | undefined> {
  let names: string[];
  try {
    names = (await readdir(dir)).sort((a, b) => Buffer.compare(Buffer.from(a), Buffer.from(b)));
  } catch (error) {
    return goPathError("open", dir, error);
  }
  const errors: Error[] = [];
  for (const name of names) {
    if (!name.endsWith(".json")) continue;
    const path = join(dir, name);
    let content: Buffer;
    try {
      content = await readRegularFile(path, { maxBytes: MAX_HOOK_FILE_BYTES });
    } catch (error) {
      const code = codeOf(error);
      const reading = code === "EISDIR" || code === "ERR_NOT_REGULAR_FILE" || code === "EFBIG";
      if (code !== "ENOENT") errors.push(goPathError(reading ? "read" : "open", path, error));
      continue;
    }
    try {
      hooks.set(name, parseHookFile(path, content));
    } catch (error) {
      errors.push(error as Error);
    }
  }
  return chain(errors);
}

/** What reading all directories gave: the hooks, and each directory's error. */
export interface HooksRead {
  hooks: HookSet;
  errors: { dir: string; error: Error }[];
}

/** Reads every directory, lowest precedence first. */
export async function readHooksDirs(dirs: readonly string[]): Promise<HooksRead> {
  const hooks: HookSet = new Map();
  const errors: HooksRead["errors"] = [];
  for (const dir of dirs) {
    const error = await readHooksDir(dir, hooks);
    if (error !== undefined) errors.push({ dir, error });
  }
  return { hooks, errors };
}

/**
 * The error that stops the plugin at start-up, as the library's `New`
 * decides: a directory's error counts unless the first failure in it was
 * something missing (the directory itself, or a hook's program).
 */
export function startupError(read: HooksRead): Error | undefined {
  return read.errors.find(({ error }) => !isNotExist(error))?.error;
}
