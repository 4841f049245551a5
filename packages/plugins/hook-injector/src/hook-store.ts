/**
 * The hooks the plugin injects from, kept current: read from the hook
 * directories at start-up, and, when watching, read again whenever anything
 * in a directory changes, as the hooks library's `Monitor` does (all
 * directories, from scratch; files that fail are left out and logged).
 */
import { EventEmitter } from "node:events";
import { type FSWatcher, watch } from "node:fs";
import { mkdir } from "node:fs/promises";
import { join } from "node:path";
import { goPathError, goQuote } from "@nri-ts/common";
import type { Logger } from "@nri-ts/stub";
import { type HookSet, type HooksRead, readHooksDirs, startupError } from "./hook-dirs.js";

/** Start-up failed: the hooks could not be read, or the directories not watched. The message is the Go plugin's. */
export class HookSetupError extends Error {
  override readonly name = "HookSetupError";
}

export interface HookStoreEvents {
  /** A reload finished (after a change in a directory). */
  reload: [read: HooksRead];
}

export class HookStore extends EventEmitter<HookStoreEvents> {
  private current: HookSet;
  private readonly watchers: FSWatcher[] = [];
  private reloading: Promise<void> | undefined;
  private again = false;

  private constructor(
    readonly dirs: readonly string[],
    read: HooksRead,
    private readonly logger: Logger,
  ) {
    super();
    this.current = read.hooks;
  }

  /**
   * Reads the directories, lowest precedence first.
   * @throws HookSetupError when a directory has a bad hook file, unless the first failure in it is something missing
   */
  static async open(dirs: readonly string[], logger: Logger): Promise<HookStore> {
    const read = await readHooksDirs(dirs);
    const error = startupError(read);
    if (error !== undefined)
      throw new HookSetupError(`failed to set up hook manager: ${error.message}`, { cause: error });
    return new HookStore(dirs, read, logger);
  }

  /** The hooks now, by file name. */
  get hooks(): HookSet {
    return this.current;
  }

  /** Reads all directories again; a change during a reload leads to one more. */
  reload(changed: string): Promise<void> {
    if (this.reloading !== undefined) {
      this.again = true;
      return this.reloading;
    }
    this.reloading = (async () => {
      do {
        this.again = false;
        const read = await readHooksDirs(this.dirs);
        for (const { error } of read.errors) this.logger.error(`Failed loading hooks for ${changed}: ${error.message}`);
        this.current = read.hooks;
        this.emit("reload", read);
      } while (this.again);
      this.reloading = undefined;
    })();
    return this.reloading;
  }

  /**
   * Creates the directories (0755) where missing and reloads on every
   * change in them from now on.
   * @throws HookSetupError when a directory cannot be created or watched
   */
  async watch(): Promise<void> {
    for (const dir of this.dirs) {
      try {
        await mkdir(dir, { recursive: true, mode: 0o755 });
      } catch (error) {
        throw new HookSetupError(
          `failed to create directory ${goQuote(dir)}: ${goPathError("mkdir", dir, error).message}`,
          { cause: error },
        );
      }
    }
    for (const dir of this.dirs) {
      try {
        const watcher = watch(
          dir,
          { persistent: false },
          (_event, file) => void this.reload(file === null ? dir : join(dir, file)),
        );
        watcher.on("error", (error) => this.logger.error(`watching ${goQuote(dir)} failed: ${error.message}`));
        this.watchers.push(watcher);
      } catch (error) {
        this.close();
        throw new HookSetupError(`failed to monitor hook directories: ${goPathError("watch", dir, error).message}`, {
          cause: error,
        });
      }
      this.logger.debug(`monitoring ${goQuote(dir)} for hooks`);
    }
  }

  /** Stops watching. */
  close(): void {
    for (const watcher of this.watchers.splice(0)) watcher.close();
  }
}
