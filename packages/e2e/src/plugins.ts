/**
 * NRI plugins around a runtime, in the two ways containerd knows:
 *
 * - external: a process the suite starts, connecting to the NRI socket; it
 *   is ready once containerd logs its registration (found by the pid that
 *   containerd reads from the socket, so it holds whatever name the plugin
 *   registers under) and then "connected and synchronized";
 * - pre-installed: an executable `NN-name` in `plugin_path` that containerd
 *   starts itself, with `NN-name.conf` from `plugin_config_path` as its
 *   configuration. containerd gives it no PATH, no arguments and no stderr,
 *   so the suite writes a small shell wrapper that runs the program by
 *   absolute path and sends its stderr to `<base>/logs/NN-name.log`.
 */
import { spawn } from "node:child_process";
import {
  chmodSync,
  closeSync,
  copyFileSync,
  existsSync,
  mkdirSync,
  openSync,
  readFileSync,
  writeFileSync,
} from "node:fs";
import { join } from "node:path";
import type { RuntimeLayout } from "./config.js";
import type { Containerd } from "./containerd.js";
import { LogFile } from "./log-file.js";
import { packageDir, repoDir } from "./paths.js";
import { alive, startTime, terminate } from "./procs.js";

/** A plugin program: what to run, with which arguments. */
export interface PluginCommand {
  /** Names its log file and its timings, e.g. `logger`. */
  label: string;
  command: string;
  args: readonly string[];
  env?: Readonly<Record<string, string>>;
  cwd?: string;
}

interface Manifest {
  name: string;
  bin?: string | Record<string, string>;
  dependencies?: Record<string, string>;
}

const readManifest = (dir: string) => JSON.parse(readFileSync(join(dir, "package.json"), "utf8")) as Manifest;

/**
 * The bin script of a workspace package below `packages/` (its first `bin`
 * entry), e.g. `plugins/logger`. The package must be a dependency of
 * `@nri-ts/e2e`: that is what makes `npm run e2e` build it first (nx builds
 * the dependencies of the package it runs), so a check of a package that
 * is not one fails here, on every machine, instead of finding no `dist/`
 * on a clean checkout only.
 */
export function packageBin(packagePath: string): string {
  const dir = join(repoDir, "packages", packagePath);
  const manifest = readManifest(dir);
  const bin = typeof manifest.bin === "string" ? manifest.bin : Object.values(manifest.bin ?? {})[0];
  if (!bin) throw new Error(`packages/${packagePath}/package.json has no bin`);
  if (readManifest(packageDir).dependencies?.[manifest.name] === undefined) {
    throw new Error(
      `${manifest.name} is not a dependency of @nri-ts/e2e: add it to packages/e2e/package.json, so that npm run e2e builds it before running it`,
    );
  }
  const path = join(dir, bin);
  if (!existsSync(path)) throw new Error(`${path} is missing: build ${manifest.name} first (npm run e2e does)`);
  return path;
}

/**
 * One of our plugins, run as `node <its bin>` from its built `dist/`
 * (`npm run build` first; `npm run e2e` does it through nx).
 */
export function nodePlugin(label: string, packagePath: string, args: readonly string[]): PluginCommand {
  return { label, command: process.execPath, args: [packageBin(packagePath), ...args] };
}

export const fixturesDir = join(packageDir, "fixtures");

/** A TypeScript program of `fixtures/`, run with tsx as a user runs a plugin they just wrote. */
export function fixturePlugin(label: string, file: string, args: readonly string[] = []): PluginCommand {
  return { label, command: process.execPath, args: ["--import", "tsx", file, ...args], cwd: fixturesDir };
}

const shellQuote = (text: string) => `'${text.replace(/'/g, `'\\''`)}'`;

/** A plugin that containerd starts from `plugin_path` as `<index>-<name>`. */
export interface PreinstalledPlugin {
  index: string;
  name: string;
  program: PluginCommand;
  /**
   * The program's command is the plugin, one executable file (a single
   * executable made by `npm run sea`, a Go binary): copied into
   * `plugin_path` as `<index>-<name>` and started by containerd itself, no
   * wrapper; so no arguments, no environment of its own and no log
   * (containerd discards a plugin's stderr).
   */
  executable?: boolean;
  /** The text of `<index>-<name>.conf`, handed to the plugin in Configure (a function gets the runtime's paths). */
  config?: string | ((layout: RuntimeLayout) => string);
}

/** Writes the wrapper (and config) of a pre-installed plugin; its log is `<logs>/<index>-<name>.log`. */
export function installPlugin(layout: RuntimeLayout, plugin: PreinstalledPlugin): LogFile {
  const id = `${plugin.index}-${plugin.name}`;
  mkdirSync(layout.pluginPath, { recursive: true });
  mkdirSync(layout.pluginConfigPath, { recursive: true });
  mkdirSync(layout.logs, { recursive: true });
  const log = join(layout.logs, `${id}.log`);
  const { program } = plugin;
  if (plugin.executable) {
    copyFileSync(program.command, join(layout.pluginPath, id));
    chmodSync(join(layout.pluginPath, id), 0o755);
    writeConfig(layout, plugin);
    return new LogFile(log);
  }
  const env = Object.entries(program.env ?? {}).map(([key, value]) => `${key}=${shellQuote(value)} `);
  const wrapper = [
    "#!/bin/sh",
    `# ${program.label}, started by containerd with NRI_PLUGIN_NAME, NRI_PLUGIN_IDX and the socket on fd 3`,
    ...(program.cwd ? [`cd ${shellQuote(program.cwd)} || exit 1`] : []),
    `exec ${env.join("")}${[program.command, ...program.args].map(shellQuote).join(" ")} 2>>${shellQuote(log)}`,
    "",
  ].join("\n");
  writeFileSync(join(layout.pluginPath, id), wrapper);
  chmodSync(join(layout.pluginPath, id), 0o755);
  writeConfig(layout, plugin);
  return new LogFile(log);
}

function writeConfig(layout: RuntimeLayout, plugin: PreinstalledPlugin): void {
  if (plugin.config === undefined) return;
  const text = typeof plugin.config === "function" ? plugin.config(layout) : plugin.config;
  writeFileSync(join(layout.pluginConfigPath, `${plugin.index}-${plugin.name}.conf`), text);
}

/**
 * How long containerd gets to register and synchronize a plugin: a Node
 * program on a busy two-core machine can take seconds to start, and a
 * plugin that dies first is reported as soon as it does, so a long wait
 * costs nothing when something is wrong.
 */
const REGISTRATION_TIMEOUT_MS = 60_000;

/** `error` with the plugin's own log appended: what it said is most often why containerd did not register it. */
function withPluginLog(error: unknown, what: string, log: LogFile): Error {
  return new Error(`${(error as Error).message}\n${what}'s own log, ${log.path}: ${log.tail()}`, { cause: error });
}

/** Waits until containerd has synchronized a pre-installed plugin. */
export async function waitPreinstalled(containerd: Containerd, plugin: PreinstalledPlugin, from = 0): Promise<void> {
  const id = `${plugin.index}-${plugin.name}`;
  try {
    await containerd.waitForEntry(
      `the pre-installed plugin ${id} to synchronize`,
      (entry) => entry.msg === `pre-installed NRI plugin "${id}" synchronization success`,
      { from, timeoutMs: REGISTRATION_TIMEOUT_MS },
    );
  } catch (error) {
    throw withPluginLog(error, id, new LogFile(join(containerd.layout.logs, `${id}.log`)));
  }
}

const REGISTERED = /^plugin "external:[^"]*\[(\d+)\]" registered as "([^"]+)"/;

/**
 * Waits until containerd has registered the external plugin with process id
 * `pid` (as containerd sees it: a containerized plugin's host pid) after the
 * log mark `from`, then synchronized it; resolves to its registered name.
 * `abandon` gives a reason to stop waiting early (the plugin exited).
 */
export async function waitRegistered(
  containerd: Containerd,
  pid: number,
  what: string,
  from: number,
  abandon?: () => string | undefined,
): Promise<string> {
  const options = { from, timeoutMs: REGISTRATION_TIMEOUT_MS, abandon };
  const name = await containerd.waitForEntry(
    `the registration of ${what} (pid ${pid})`,
    (entry) => {
      const match = REGISTERED.exec(entry.msg);
      return match !== null && Number(match[1]) === pid && match[2];
    },
    options,
  );
  await containerd.waitForEntry(
    `the synchronization of ${name}`,
    (entry) => entry.msg === `plugin "${name}" connected and synchronized`,
    options,
  );
  return name;
}

/** An external plugin process. */
export class ExternalPlugin {
  /** The name containerd registered it under (`NN-name`). */
  name = "";
  readonly log: LogFile;
  readonly exited: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
  /** How it exited, once it has: `code 1`, `signal SIGKILL`. */
  #exit: string | undefined;

  private constructor(
    readonly program: PluginCommand,
    readonly pid: number,
    logPath: string,
    exited: ExternalPlugin["exited"],
  ) {
    this.log = new LogFile(logPath);
    this.exited = exited;
    void exited.then(({ code, signal }) => {
      this.#exit = signal ? `signal ${signal}` : `code ${code}`;
    });
  }

  /**
   * Starts the program (stdout and stderr to `<logs>/<label>.log`), records
   * its pid for the sweep, and waits until containerd has registered and
   * synchronized it.
   */
  static async start(layout: RuntimeLayout, containerd: Containerd, program: PluginCommand): Promise<ExternalPlugin> {
    mkdirSync(layout.logs, { recursive: true });
    const logPath = join(layout.logs, `${program.label}.log`);
    const from = containerd.log.mark();
    const fd = openSync(logPath, "a");
    let plugin: ExternalPlugin;
    try {
      const child = spawn(program.command, program.args, {
        stdio: ["ignore", fd, fd],
        cwd: program.cwd,
        env: { ...process.env, ...program.env },
      });
      if (child.pid === undefined) throw new Error(`${program.label} did not start`);
      const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) =>
        child.on("exit", (code, signal) => resolve({ code, signal })),
      );
      child.on("error", () => {});
      plugin = new ExternalPlugin(program, child.pid, logPath, exited);
      mkdirSync(join(layout.base, "pids"), { recursive: true });
      writeFileSync(join(layout.base, "pids", String(child.pid)), startTime(child.pid) ?? "");
    } finally {
      closeSync(fd);
    }
    await plugin.waitRegistered(containerd, from);
    return plugin;
  }

  /**
   * Waits for containerd's registration of this process after the log mark
   * `from` (e.g. after a restart); fails as soon as the process exits, and
   * a failure shows the plugin's own log.
   */
  async waitRegistered(containerd: Containerd, from: number): Promise<void> {
    const { label } = this.program;
    const abandon = () => this.#exit && `${label} exited (${this.#exit})`;
    try {
      this.name = await waitRegistered(containerd, this.pid, label, from, abandon);
    } catch (error) {
      throw withPluginLog(error, label, this.log);
    }
  }

  get running(): boolean {
    return alive(this.pid);
  }

  /** SIGTERM (SIGKILL after 5 s), synchronous. */
  stop(): void {
    terminate(this.pid, 5_000);
  }
}
