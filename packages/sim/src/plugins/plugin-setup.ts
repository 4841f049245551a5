/**
 * Plugins that did not run. A simulation in which a plugin is missing, not
 * executable, not a program, or dies or fails to register at launch has
 * tested nothing about it: it is a setup error (nri-sim exits 2), never a
 * passing run. This module checks the files before anything starts, and
 * keeps what a failing plugin left behind: the runtime's error about it and
 * the last lines it printed.
 */
import { lstat, open, readdir, stat } from "node:fs/promises";
import { join } from "node:path";
import { type Logger, logCall } from "@nri-ts/common";
import { parsePluginName } from "@nri-ts/api";
import { logLineMessage, readableLogLine } from "../report/log-line.js";
import type { Identity, PluginSpec } from "./plugin-spec.js";

/** Why one plugin did not run. */
export interface PluginSetupFailure {
  /** `NN-name`, when it is known. */
  plugin?: string;
  /** Its file, as given. */
  path?: string;
  /** What went wrong: the file, the runtime's launch error, how its process ended. */
  reason: string;
  /** The last lines it printed (an executable's stderr, a module's output), oldest first. */
  output: string[];
}

/** Plugins that could not be set up: a bad name or file, or plugins that did not start. */
export class PluginSetupError extends Error {
  override readonly name = "PluginSetupError";
  /** One entry per plugin that did not run; empty for a problem of the command or options. */
  readonly failures: PluginSetupFailure[];

  constructor(problem: string | PluginSetupFailure[]) {
    super(typeof problem === "string" ? problem : problem.map(describeFailure).join("\n"));
    this.failures = typeof problem === "string" ? [] : problem;
  }
}

function describeFailure({ plugin, path, reason, output }: PluginSetupFailure): string {
  const who = plugin && path ? `plugin ${plugin} (${path})` : `plugin ${plugin ?? path}`;
  // a failure of no one plugin (external plugins that did not come) is its reason
  const head = plugin === undefined && path === undefined ? reason : `${who} did not run: ${reason}`;
  return [head, ...output.map((line) => `  │ ${readableLogLine(line)}`)].join("\n");
}

/** What the runtime saw of a plugin that connected to its socket: whether it registered, and its error. */
export interface RuntimeView {
  registered: boolean;
  /** The runtime's error when it dropped the plugin (failed to start or synchronize it). */
  error?: string;
}

const START_FAILURE = "failed to start external plugin: ";
const CONFIGURE_FAILURE = `${START_FAILURE}failed to configure plugin: `;
const SYNC_FAILURE = "failed to synchronize plugin: ";

/**
 * At which stage a plugin that registered was dropped, in the runtime's
 * words: `it registered, then failed Configure: rpc error: ...`.
 */
export function registeredThen(error: string | undefined): string {
  if (error === undefined) return "it registered, then its connection closed";
  if (error.startsWith(CONFIGURE_FAILURE))
    return `it registered, then failed Configure: ${error.slice(CONFIGURE_FAILURE.length)}`;
  if (error.startsWith(SYNC_FAILURE))
    return `it registered and was configured, then failed Synchronize: ${error.slice(SYNC_FAILURE.length)}`;
  if (error.startsWith(START_FAILURE))
    return `it registered, then the runtime refused it: ${error.slice(START_FAILURE.length)}`;
  return `it registered, then: ${error}`;
}

/** The message of the first error a plugin logged among `lines` (its own words for what went wrong). */
export function firstErrorLine(lines: readonly string[]): string | undefined {
  for (const line of lines) {
    const logged = logLineMessage(line);
    if (logged && (logged.level === "error" || logged.level === "fatal")) return logged.message;
  }
  return undefined;
}

/** Resolves when `promise` does, or after `ms`: for output a plugin that ended may still be delivering. */
export function within(promise: Promise<unknown>, ms: number): Promise<void> {
  return new Promise((resolve) => {
    const timer = setTimeout(resolve, ms);
    void promise.then(() => {
      clearTimeout(timer);
      resolve();
    });
  });
}

/** How many of a plugin's last lines a failure keeps. */
const KEPT_LINES = 10;

/** The last lines a plugin printed. */
export class LastLines {
  readonly #lines: string[] = [];

  push(line: string): void {
    this.#lines.push(line);
    if (this.#lines.length > KEPT_LINES) this.#lines.shift();
  }

  get lines(): string[] {
    return [...this.#lines];
  }
}

function modeText(mode: number): string {
  return (mode & 0o777).toString(8).padStart(4, "0");
}

/** What is wrong with an executable plugin's file, if anything. */
async function executableProblem(path: string): Promise<string | undefined> {
  try {
    const stats = await stat(path);
    if (stats.isDirectory()) return "it is a directory, not a program";
    if ((stats.mode & 0o111) === 0)
      return `it is not executable (mode ${modeText(stats.mode)}): a runtime would not run it; chmod +x it`;
    return undefined;
  } catch (error) {
    return fileError(error);
  }
}

async function moduleProblem(path: string): Promise<string | undefined> {
  try {
    if ((await stat(path)).isDirectory()) return "it is a directory, not a module";
    return undefined;
  } catch (error) {
    return fileError(error);
  }
}

function fileError(error: unknown): string {
  const { code, message } = error as NodeJS.ErrnoException;
  return code === "ENOENT" ? "no such file" : message;
}

/**
 * The files of module and executable plugins, and the plugins in the plugin
 * directory, as a runtime would find them: each must be there, and an
 * executable must have an execute bit (a runtime skips the plugin
 * directory's others silently; here that is a failure, since the user asked
 * for it to run). Entries of the plugin directory not named `NN-name` are
 * left to the runtime, as they are in Go.
 */
export async function checkPluginFiles(
  specs: readonly PluginSpec[],
  identities: readonly Identity[],
  pluginDir: string | undefined,
): Promise<PluginSetupFailure[]> {
  const failures: PluginSetupFailure[] = [];
  for (const [i, spec] of specs.entries()) {
    const plugin = `${identities[i].index}-${identities[i].name}`;
    const problem =
      "module" in spec
        ? await moduleProblem(spec.module)
        : "executable" in spec
          ? await executableProblem(spec.executable)
          : undefined;
    if (problem !== undefined) {
      failures.push({
        plugin,
        path: "module" in spec ? spec.module : (spec as { executable: string }).executable,
        reason: problem,
        output: [],
      });
    }
  }
  if (pluginDir === undefined) return failures;
  let entries: string[];
  try {
    entries = await readdir(pluginDir);
  } catch (error) {
    const { code, message } = error as NodeJS.ErrnoException;
    return [
      ...failures,
      { path: pluginDir, reason: code === "ENOENT" ? "no such plugin directory" : message, output: [] },
    ];
  }
  for (const entry of entries.sort()) {
    let named = true;
    try {
      parsePluginName(entry);
    } catch {
      named = false;
    }
    const path = join(pluginDir, entry);
    const stats = await lstat(path).catch(() => undefined);
    if (!named || stats === undefined || stats.isDirectory() || (stats.mode & 0o111) !== 0) continue;
    failures.push({
      plugin: entry,
      path,
      reason: `it is not executable (mode ${modeText(stats.mode)}): a runtime skips it; chmod +x it`,
      output: [],
    });
  }
  return failures;
}

/**
 * A hint for a launched plugin that failed with status 127: libuv runs a
 * file that is no program with /bin/sh, which then fails (Go's runtimes
 * refuse it with "exec format error").
 */
export async function notAProgramHint(path: string): Promise<string | undefined> {
  try {
    const file = await open(path, "r");
    try {
      const head = Buffer.alloc(4);
      const { bytesRead } = await file.read(head, 0, 4, 0);
      const text = head.subarray(0, bytesRead);
      if (text.subarray(0, 2).toString("latin1") === "#!" || text.toString("latin1") === "\x7fELF") return undefined;
    } finally {
      await file.close();
    }
  } catch {
    return undefined;
  }
  return "it is not a program (neither a #! script nor an ELF binary): a runtime fails to execute it";
}

/**
 * A logger for the adaptation that also keeps, while `recording`, the
 * warnings it logs about a named plugin: why a launched plugin failed to
 * start (the runtime's own words); and, for plugins that connect to the
 * socket, which registered and the error that dropped one (`seen`).
 * Everything goes on to `next`.
 */
export class LaunchFailureLog implements Logger {
  readonly failures = new Map<string, string>();
  recording = false;
  readonly #registered = new Set<string>();
  readonly #dropped = new Map<string, string>();
  readonly #next: Logger | undefined;

  constructor(next: Logger | undefined) {
    this.#next = next;
  }

  debug(first: object | string, msg?: string): void {
    const { fields, message } = logCall(first, msg);
    this.#next?.debug(fields, message);
  }

  info(first: object | string, msg?: string): void {
    const { fields, message } = logCall(first, msg);
    const { plugin, kind } = fields as { plugin?: unknown; kind?: unknown };
    if (kind === "external" && typeof plugin === "string" && message === `plugin ${plugin} registered`) {
      this.#registered.add(plugin);
    }
    this.#next?.info(fields, message);
  }

  /** The plugins that registered through the runtime's socket, in order. */
  get registered(): string[] {
    return [...this.#registered];
  }

  /** What the runtime saw of a plugin that connects to its socket. */
  seen(plugin: string): RuntimeView {
    const error = this.#dropped.get(plugin);
    return { registered: this.#registered.has(plugin), ...(error !== undefined && { error }) };
  }

  warn(first: object | string, msg?: string): void {
    const { fields, message } = logCall(first, msg);
    const { plugin } = fields as { plugin?: unknown };
    if (this.recording && typeof plugin === "string" && !this.failures.has(plugin)) this.failures.set(plugin, message);
    this.#next?.warn(fields, message);
  }

  error(first: object | string, msg?: string): void {
    const { fields, message } = logCall(first, msg);
    const { plugin } = fields as { plugin?: unknown };
    if (typeof plugin === "string" && !this.#dropped.has(plugin)) this.#dropped.set(plugin, message);
    this.#next?.error(fields, message);
  }
}
