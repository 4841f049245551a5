/**
 * The plugins a simulation runs, by where they come from:
 * - plugin objects (handlers as @nri-ts/stub takes them), run in this
 *   process by a stub connected to the simulator's socket;
 * - plugin modules, run in a child process the same way, their output
 *   captured for the report;
 * - executables of any language, launched by the adaptation from a plugin
 *   directory exactly as a runtime launches them (fd 3, `NN-name`, config
 *   from the config directory), and WebAssembly plugins, which the
 *   adaptation loads from the same directory into a thread of its own.
 * External plugins started by the user connect to the socket themselves.
 */
import { type ChildProcess, spawn } from "node:child_process";
import { copyFile, mkdir, readdir, symlink, writeFile } from "node:fs/promises";
import { getCompileCacheDir } from "node:module";
import { basename, extname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { readPluginLines } from "@nri-ts/adaptation";
import { checkPluginIndex, checkPluginName } from "@nri-ts/api";
import { logCall } from "@nri-ts/common";
import { type FailurePolicyInput, type LogFn, type Logger, type Plugin, Stub } from "@nri-ts/stub";
import { type ArmedFault, FaultSwitch, faultingHandlers } from "./faults.js";
import { childNodeOptions, RUNNING_FROM_SOURCES } from "./node-options.js";
import {
  FAULT_ARMED_MARK,
  FAULT_DISARMED_MARK,
  FAULT_FIRED_MARK,
  HANDLER_DONE_MARK,
  SPAN_MARK,
} from "./output-marks.js";
import { pluginStubLogger } from "./plugin-log.js";
import {
  firstErrorLine,
  LastLines,
  PluginSetupError,
  type PluginSetupFailure,
  type RuntimeView,
  registeredThen,
  within,
} from "./plugin-setup.js";
import type { Identity, PluginSpec } from "./plugin-spec.js";
import type { PluginSource } from "../report/report.js";

/** How long the output of a module plugin that ended may take to arrive. */
const OUTPUT_GRACE_MS = 1000;
/**
 * The stub's words when it cannot tell a plugin's index and name: the
 * plugin host always gives both, so a module whose output has them called
 * runPlugin on its own, with the host's file name to go by.
 */
const RUNS_ITSELF = /invalid plugin (index|name) /;
const RUNS_ITSELF_HINT =
  "the module seems to call runPlugin itself: --plugin takes a module that exports its plugin, and runs it; " +
  "a program that runs itself runs with --exec, through an executable wrapper (see @nri-ts/sim's README, Plugins)";

const FULL_NAME = /^(\d\d)-(.+)$/;

/** The index of the plugin at `position` (from 0) when neither it nor its file name gives one: 10, 20, ... 90, 99. */
export function defaultPluginIndex(position: number): string {
  return String(Math.min(99, 10 * (position + 1))).padStart(2, "0");
}

/**
 * The index and name of a plugin: as given, else from its file name
 * (`10-logger.ts` → 10, logger), else the file name with index `default`.
 */
export function pluginIdentity(spec: PluginSpec, defaultIndex: string): Identity {
  const path = "module" in spec ? spec.module : "executable" in spec ? spec.executable : undefined;
  const base = path ? basename(path, extname(path)) : "";
  const fromFile = FULL_NAME.exec(base);
  const index = spec.index ?? fromFile?.[1] ?? defaultIndex;
  const name = spec.name ?? fromFile?.[2] ?? base.replace(/[^A-Za-z0-9_.+-]/g, "-");
  try {
    checkPluginIndex(index);
    checkPluginName(name);
  } catch (error) {
    throw new PluginSetupError(`plugin ${path ?? name}: ${(error as Error).message}`);
  }
  return { index, name };
}

export interface PluginDirs {
  pluginPath: string;
  configPath: string;
}

/**
 * The plugin and config directories the adaptation reads. With executables
 * to add, a private directory links the user's plugin directory entries
 * and the executables (as `NN-name`); configs given inline are written to
 * a private config directory next to copies of the user's.
 */
export async function preparePluginDirs(
  work: string,
  executables: { spec: Extract<PluginSpec, { executable: string }>; identity: Identity }[],
  pluginDir: string | undefined,
  configDir: string | undefined,
): Promise<PluginDirs> {
  let pluginPath = pluginDir ?? join(work, "no-plugins");
  let configPath = configDir ?? join(work, "conf.d");
  if (executables.length === 0) return { pluginPath, configPath };
  pluginPath = join(work, "plugins");
  await mkdir(pluginPath, { recursive: true });
  if (pluginDir) {
    for (const entry of await readdir(pluginDir)) await symlink(resolve(pluginDir, entry), join(pluginPath, entry));
  }
  const configs = executables.filter(({ spec }) => spec.config !== undefined);
  if (configs.length > 0) {
    configPath = join(work, "conf.d");
    await mkdir(configPath, { recursive: true });
    if (configDir) {
      for (const entry of await readdir(configDir)) await copyFile(join(configDir, entry), join(configPath, entry));
    }
  }
  for (const { spec, identity } of executables) {
    const file = `${identity.index}-${identity.name}`;
    await symlink(resolve(spec.executable), join(pluginPath, file));
    if (spec.config !== undefined) await writeFile(join(configPath, `${file}.conf`), spec.config);
  }
  return { pluginPath, configPath };
}

/** A plugin the simulator started itself; it connects to the socket. */
export interface ConnectedPlugin {
  fullName: string;
  source: PluginSource;
  path?: string;
  /** Whether its process has ended (module plugins). */
  ended?(): boolean;
  /** Why it did not register after `waitedMs`: how its process ended and its last lines (module plugins). */
  setupFailure?(waitedMs: number, seen: RuntimeView): Promise<PluginSetupFailure>;
  /**
   * Resolves once the plugin has finished `calls` handler calls in all (so
   * that their output has arrived), or after `timeoutMs` (module plugins).
   */
  settled?(calls: number, timeoutMs: number): Promise<void>;
  /** Disconnects it (and ends its process). */
  stop(): Promise<void>;
  /** Arms a fault for its next matching request (plugins the simulator runs: objects and modules). */
  arm?(fault: ArmedFault): Promise<void>;
  /** Disarms; resolves to whether the fault happened. */
  disarm?(): Promise<boolean>;
}

/** Receives a line a plugin printed or logged. */
export type OutputSink = (plugin: string, text: string) => void;

/** A plugin object's stub logger: its lines are the plugin's output, as a module plugin's are. */
function reportingLogger(fullName: string, output: OutputSink): Logger {
  return pluginStubLogger({
    write: (line: string) => {
      output(fullName, line.replace(/\n$/, ""));
      return true;
    },
  });
}

/**
 * The adaptation's logger for a simulation: what WASM plugins log through
 * the runtime (lines the adaptation marks `pluginLog`) is their output in
 * the report, as a module plugin's prints are; everything goes on to the
 * user's logger too.
 */
export function pluginOutputLogger(output: OutputSink, logger: Logger | undefined): Logger {
  const route =
    (level: "debug" | "info" | "warn" | "error"): LogFn =>
    (first: object | string, msg?: string): void => {
      const { fields, message } = logCall(first, msg);
      const { plugin, pluginLog } = fields as { plugin?: unknown; pluginLog?: unknown };
      if (pluginLog === true && typeof plugin === "string") {
        output(plugin, `${level === "info" ? "" : `${level}: `}${message}`);
      }
      logger?.[level](fields, message);
    };
  return { debug: route("debug"), info: route("info"), warn: route("warn"), error: route("error") };
}

/** Runs a plugin object in this process with a stub connected to `socketPath`. */
export async function startObjectPlugin(
  plugin: Plugin,
  identity: Identity,
  socketPath: string,
  output: OutputSink,
  source: PluginSource = "object",
  failurePolicy?: FailurePolicyInput,
): Promise<ConnectedPlugin & { stub: Stub }> {
  const fullName = `${identity.index}-${identity.name}`;
  const faults = new FaultSwitch();
  const stub = new Stub(faultingHandlers(plugin, faults), {
    ...identity,
    socketPath,
    env: {},
    logger: reportingLogger(fullName, output),
    onClose: () => {},
    failurePolicy,
  });
  await stub.start();
  return {
    fullName,
    source,
    stub,
    stop: () => stub.stop(),
    arm: async (fault) => faults.arm(fault),
    disarm: async () => faults.disarm(),
  };
}

/** The host script beside this module: `.ts` when running from sources. */
function hostScript(): string {
  return join(fileURLToPath(import.meta.url), "..", RUNNING_FROM_SOURCES ? "plugin-host.ts" : "plugin-host.js");
}

/** A child's output, line by line, each bounded as the runtime bounds a launched plugin's stderr. */
function forwardLines(stream: NodeJS.ReadableStream | null, onLine: (line: string) => void): void {
  if (stream) readPluginLines(stream, onLine);
}

/**
 * Runs a plugin module in a child process that connects to `socketPath`;
 * `config` goes to the module's factory. With `onSpanLine`, the process
 * traces and each span it ends comes to `onSpanLine` as a line (see
 * trace/span-lines.ts).
 */
export function startModulePlugin(
  modulePath: string,
  identity: Identity,
  socketPath: string,
  output: OutputSink,
  config = "",
  failurePolicy?: FailurePolicyInput,
  onSpanLine?: (line: string) => void,
): ConnectedPlugin {
  const fullName = `${identity.index}-${identity.name}`;
  const path = resolve(modulePath);
  const options = JSON.stringify({ failurePolicy, ...(onSpanLine && { trace: true }) });
  // the host loads its modules with Node's compile cache where nri-sim has it on (its bin does): a later run compiles less
  const cache = getCompileCacheDir();
  const child: ChildProcess = spawn(
    process.execPath,
    [...childNodeOptions(path), hostScript(), path, identity.index, identity.name, socketPath, config, options],
    { stdio: ["pipe", "pipe", "pipe"], ...(cache && { env: { ...process.env, NODE_COMPILE_CACHE: cache } }) },
  );
  child.stdin?.on("error", () => {}); // a child that is gone takes no more commands
  let stopping = false;
  let gone = false;
  let calls = 0;
  const waiting = new Set<() => void>();
  /** Answers to fault commands, in order, and whether the armed fault happened. */
  const answers: Array<() => void> = [];
  let fired = false;
  const outputDone = new Promise<void>((done) => (child.stdout ? child.stdout.once("close", () => done()) : done()));
  const command = (line: object): Promise<void> =>
    new Promise((answer) => {
      if (gone) return answer();
      answers.push(answer);
      child.stdin?.write(`${JSON.stringify(line)}\n`);
    });
  const last = new LastLines();
  let exit: string | undefined;
  const printed = (line: string) => {
    last.push(line);
    output(fullName, line);
  };
  forwardLines(child.stdout, (line) => {
    if (line === FAULT_FIRED_MARK) return void (fired = true);
    if (line === FAULT_ARMED_MARK || line === FAULT_DISARMED_MARK) return answers.shift()?.();
    if (line.startsWith(SPAN_MARK)) return onSpanLine?.(line);
    if (line !== HANDLER_DONE_MARK) return printed(line);
    calls += 1;
    for (const check of waiting) check();
  });
  forwardLines(child.stderr, printed);
  const ended = new Promise<void>((done) => {
    const end = () => {
      gone = true;
      for (const check of waiting) check();
      for (const answer of answers.splice(0)) answer();
      done();
    };
    child.on("error", (error) => {
      exit = `could not run: ${error.message}`;
      output(fullName, `cannot run: ${error.message}`);
      end();
    });
    child.on("exit", (code, signal) => {
      exit = `exited ${signal ? `on ${signal}` : `with code ${code}`}`;
      if (!stopping) output(fullName, exit);
      end();
    });
  });
  return {
    fullName,
    source: "module",
    path: modulePath,
    ended: () => gone,
    async setupFailure(waitedMs, seen) {
      if (gone) await within(outputDone, OUTPUT_GRACE_MS);
      if (seen.registered) {
        const said = firstErrorLine(last.lines);
        const reason = [
          registeredThen(seen.error),
          ...(exit ? [`its process then ${exit}`] : []),
          ...(said !== undefined ? [`it said: ${said}`] : []),
        ].join("; ");
        return { plugin: fullName, path: modulePath, reason, output: last.lines };
      }
      const reason = exit ? `its process ${exit} before it registered` : `it did not register within ${waitedMs} ms`;
      const hint = last.lines.some((line) => RUNS_ITSELF.test(line)) ? `; ${RUNS_ITSELF_HINT}` : "";
      return { plugin: fullName, path: modulePath, reason: `${reason}${hint}`, output: last.lines };
    },
    settled: (count, timeoutMs) =>
      new Promise<void>((done) => {
        const finish = () => {
          clearTimeout(timer);
          waiting.delete(check);
          done();
        };
        const check = () => {
          if (calls >= count || gone) finish();
        };
        const timer = setTimeout(finish, timeoutMs);
        waiting.add(check);
        check();
      }),
    async stop() {
      stopping = true;
      child.kill("SIGTERM");
      await ended;
    },
    async arm(fault) {
      fired = false;
      await command({ arm: fault });
    },
    // its fired line comes before the answer, or before the end of its output
    async disarm() {
      await command({ disarm: true });
      if (gone) await outputDone;
      return fired;
    },
  };
}
