/**
 * The command line of `nri-sim`, parsed with node's `util.parseArgs`.
 */
import { readFileSync } from "node:fs";
import { extname } from "node:path";
import { parseArgs } from "node:util";
import type { ClockKind } from "./run/clock.js";
import { checkPluginIndex, checkPluginName } from "@nri-ts/api";
import { defaultPluginIndex, pluginIdentity } from "./plugins/plugin-sources.js";
import type { PluginSpec } from "./plugins/plugin-spec.js";
import { parseDuration } from "./scenario/quantity.js";

export const USAGE = `usage: nri-sim run <scenario.yaml> [options]
       nri-sim check <scenario.yaml>
       nri-sim --help | --version

Runs NRI plugins through the pod and container lifecycles of a scenario, as
containerd or CRI-O would, and reports what each plugin received and asked for.

options of run:
  --plugin [NN-name=]FILE  a plugin module (.ts or .js) exporting a plugin object; repeatable
  --exec [NN-name=]FILE    an executable plugin of any language, launched as the runtime
                           launches plugins (socket on fd 3); repeatable
  --plugin-config NN-name=FILE
                           configuration for the plugin of that name: an --exec plugin gets
                           it from the runtime; a --plugin module's exported function gets it
  --plugin-dir DIR         launch every NN-name executable in DIR (as /opt/nri/plugins)
  --config-dir DIR         their configuration files, NN-name.conf or name.conf
  --socket PATH            listen for external plugins on PATH (printed on stderr)
  --wait-plugins N         wait for N external plugins to connect before the first step
  --wait-timeout DURATION  how long to wait for plugins (default 60s with --wait-plugins, else 15s)
  --validator-config FILE  enable the runtime's default validator with this YAML configuration
  --clock wall|virtual     virtual: timestamps start at 2026-01-01 and move 1s per step
  --trace                  show each step's trace: the runtime's requests, its calls to each
                           plugin and the plugins' own spans, with their timings
  --otlp URL               export the traces (one per step) to an OpenTelemetry collector's
                           OTLP/HTTP endpoint, e.g. http://localhost:4318
  --json                   print the report as JSON

Exit status: 0 when every step and expectation passed; 1 when one failed or a
plugin was lost during the run; 2 for a bad command line or scenario, or a
plugin that did not run (its file missing, not executable or not a program,
or it died or did not register at launch), which names the plugin and why.`;

/** A mistake on the command line. */
export class UsageError extends Error {
  override readonly name = "UsageError";
}

export type Command =
  | { command: "help" }
  | { command: "version" }
  | { command: "check"; scenario: string }
  | {
      command: "run";
      scenario: string;
      plugins: PluginSpec[];
      pluginDir?: string;
      configDir?: string;
      socketPath?: string;
      waitPlugins?: number;
      waitTimeoutMs?: number;
      validatorConfig?: string;
      clock: ClockKind;
      trace: boolean;
      otlp?: string;
      json: boolean;
    };

const NAMED = /^(\d\d)-([^=/]+)=(.+)$/;

type FilePluginSpec = Exclude<PluginSpec, { plugin: unknown }>;

/**
 * A `--plugin` or `--exec` value: `NN-name=FILE`, or a file. A value with
 * an `=` before any `/` means the first and must be one: `1-x=a.js` or
 * `x=a.js` is a mistake, not a file of that name (write `./x=a.js` for it).
 */
function pluginArg(value: string, kind: "module" | "executable"): FilePluginSpec {
  const option = kind === "module" ? "--plugin" : "--exec";
  const equals = value.indexOf("=");
  const slash = value.indexOf("/");
  let index: string | undefined;
  let name: string | undefined;
  let path = value;
  if (equals !== -1 && (slash === -1 || equals < slash)) {
    const named = NAMED.exec(value);
    if (!named) {
      throw new UsageError(`${option} ${value}: expected NN-name=FILE (a two-digit index, a dash, a name), or a file`);
    }
    [, index, name, path] = named;
    try {
      checkPluginIndex(index);
      checkPluginName(name);
    } catch (error) {
      throw new UsageError(`${option} ${value}: ${(error as Error).message}`);
    }
  }
  if (kind === "module" && ![".ts", ".mts", ".cts", ".js", ".mjs", ".cjs"].includes(extname(path))) {
    throw new UsageError(`--plugin ${value}: expected a .ts or .js module; use --exec for executables`);
  }
  const identity = { ...(index !== undefined && { index }), ...(name !== undefined && { name }) };
  return kind === "module" ? { module: path, ...identity } : { executable: path, ...identity };
}

export function parseCommandLine(argv: readonly string[]): Command {
  let parsed;
  try {
    parsed = parseArgs({
      args: [...argv],
      allowPositionals: true,
      options: {
        help: { type: "boolean", short: "h" },
        version: { type: "boolean" },
        plugin: { type: "string", multiple: true },
        exec: { type: "string", multiple: true },
        "plugin-config": { type: "string", multiple: true },
        "plugin-dir": { type: "string" },
        "config-dir": { type: "string" },
        socket: { type: "string" },
        "wait-plugins": { type: "string" },
        "wait-timeout": { type: "string" },
        "validator-config": { type: "string" },
        clock: { type: "string" },
        trace: { type: "boolean" },
        otlp: { type: "string" },
        json: { type: "boolean" },
      },
    });
  } catch (error) {
    // parseArgs adds advice about "--" that does not apply here.
    throw new UsageError((error as Error).message.split(". To specify a positional argument")[0]);
  }
  const { values, positionals } = parsed;
  if (values.help) return { command: "help" };
  if (values.version) return { command: "version" };
  const [command, scenario, ...rest] = positionals;
  if (command !== "run" && command !== "check") {
    throw new UsageError(command === undefined ? "no command given" : `unknown command "${command}"`);
  }
  if (scenario === undefined) throw new UsageError(`${command}: which scenario? (a YAML file)`);
  if (rest.length > 0) throw new UsageError(`unexpected argument "${rest[0]}"`);
  if (command === "check") return { command, scenario };

  const waitPlugins = values["wait-plugins"];
  if (waitPlugins !== undefined && !/^\d+$/.test(waitPlugins)) {
    throw new UsageError(`--wait-plugins ${waitPlugins}: expected a number of plugins`);
  }
  const waitTimeout = values["wait-timeout"];
  const waitTimeoutMs = waitTimeout === undefined ? undefined : parseDuration(waitTimeout);
  if (waitTimeout !== undefined && waitTimeoutMs === undefined) {
    throw new UsageError(`--wait-timeout ${waitTimeout}: expected a duration such as 30s`);
  }
  const plugins = [
    ...(values.plugin ?? []).map((p) => pluginArg(p, "module")),
    ...(values.exec ?? []).map((p) => pluginArg(p, "executable")),
  ];
  for (const entry of values["plugin-config"] ?? []) {
    const named = NAMED.exec(entry);
    if (!named) throw new UsageError(`--plugin-config ${entry}: expected NN-name=FILE`);
    const target = plugins.find((p, i) => {
      const identity = pluginIdentity(p, defaultPluginIndex(i));
      return identity.index === named[1] && identity.name === named[2];
    });
    if (!target) {
      throw new UsageError(`--plugin-config ${entry}: no --plugin or --exec is named ${named[1]}-${named[2]}`);
    }
    target.config = readFileSync(named[3], "utf8");
  }
  const otlp = values.otlp;
  if (otlp !== undefined && !/^https?:\/\/[^/]/.test(otlp)) {
    throw new UsageError(`--otlp ${otlp}: expected an http:// or https:// URL, e.g. http://localhost:4318`);
  }
  const clock = values.clock ?? "wall";
  if (clock !== "wall" && clock !== "virtual") throw new UsageError(`--clock ${clock}: expected wall or virtual`);
  return {
    command,
    scenario,
    plugins,
    ...(values["plugin-dir"] !== undefined && { pluginDir: values["plugin-dir"] }),
    ...(values["config-dir"] !== undefined && { configDir: values["config-dir"] }),
    ...(values.socket !== undefined && { socketPath: values.socket }),
    ...(waitPlugins !== undefined && { waitPlugins: Number(waitPlugins) }),
    ...(waitTimeoutMs !== undefined && { waitTimeoutMs }),
    ...(values["validator-config"] !== undefined && { validatorConfig: values["validator-config"] }),
    clock,
    trace: values.trace ?? false,
    ...(otlp !== undefined && { otlp }),
    json: values.json ?? false,
  };
}
