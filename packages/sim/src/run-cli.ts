/**
 * `nri-sim` without the process: parses the arguments, runs the scenario
 * and prints the report (as it goes, or as JSON), and returns the exit
 * status. `cli.ts` wires it to the process.
 */
import { readFile } from "node:fs/promises";
import { DefaultValidatorConfigError, parseDefaultValidatorConfig } from "@nri-ts/adaptation";
import { parseCommandLine, USAGE, UsageError } from "./cli-args.js";
import { loadScenario, ScenarioError } from "./scenario/parse-scenario.js";
import { PluginModuleError } from "./plugins/plugin-module.js";
import { PluginSetupError } from "./plugins/plugin-setup.js";
import { ProgressLine, type ProgressStream } from "./report/progress.js";
import { renderExpectation, renderHeader, renderSetup, renderStep, renderSummary } from "./report/render-text.js";
import { simulate, type SimObserver } from "./run/simulate.js";
import { colorWanted, makeStyle } from "./report/style.js";

export interface CliIo {
  stdout: ProgressStream;
  stderr: ProgressStream;
  env: Readonly<Record<string, string | undefined>>;
}

/** This package's version, for `--version`. */
const VERSION = "0.1.0";

function jsonText(value: unknown): string {
  return JSON.stringify(value, (_key, v: unknown) => (typeof v === "bigint" ? String(v) : v), 2);
}

/** Runs `nri-sim` with these arguments; resolves to the exit status. */
export async function runCli(argv: readonly string[], io: CliIo): Promise<number> {
  const out = (text: string) => io.stdout.write(`${text}\n`);
  const err = (text: string) => io.stderr.write(`${text}\n`);
  try {
    const command = parseCommandLine(argv);
    if (command.command === "help") {
      out(USAGE);
      return 0;
    }
    if (command.command === "version") {
      out(VERSION);
      return 0;
    }
    const scenario = await loadScenario(command.scenario);
    if (command.command === "check") {
      out(
        `${command.scenario}: ${scenario.steps.length} steps, ${scenario.expect.length} expectations, all well formed`,
      );
      return 0;
    }
    const style = makeStyle(colorWanted(io.stdout, io.env));
    const progress = new ProgressLine(io.stderr);
    const printing = !command.json;
    const observer: SimObserver = {
      listening(socketPath) {
        if (command.socketPath !== undefined || command.waitPlugins !== undefined) {
          err(`nri-sim: external plugins can connect to ${socketPath}`);
        }
        if (command.waitPlugins) progress.show(`waiting for ${command.waitPlugins} external plugin(s)…`);
      },
      setupDone(head) {
        progress.clear();
        if (!printing) return;
        out(renderHeader(head, style));
        for (const line of renderSetup(head, style)) out(line);
      },
      stepStarted(number, step, total) {
        progress.show(`[${number}/${total}] ${step.text}…`);
      },
      stepDone(step, expectations) {
        progress.clear();
        if (!printing) return;
        out(renderStep(step, style));
        for (const result of expectations.filter((e) => !e.ok)) out(renderExpectation(result, style));
      },
    };
    const validatorConfig = command.validatorConfig
      ? parseDefaultValidatorConfig(await readFile(command.validatorConfig, "utf8"))
      : undefined;
    const report = await simulate(scenario, {
      plugins: command.plugins,
      clock: command.clock,
      observer,
      ...(command.pluginDir !== undefined && { pluginDir: command.pluginDir }),
      ...(command.configDir !== undefined && { configDir: command.configDir }),
      ...(command.socketPath !== undefined && { socketPath: command.socketPath }),
      ...(command.waitPlugins !== undefined && { waitPlugins: command.waitPlugins }),
      ...(command.waitTimeoutMs !== undefined && { waitTimeoutMs: command.waitTimeoutMs }),
      ...(validatorConfig && { defaultValidator: { ...validatorConfig, enable: true } }),
      ...(command.trace && { trace: true }),
      ...(command.otlp !== undefined && { otlp: command.otlp }),
    });
    progress.clear();
    if (report.otlp) {
      const { url, spans, error } = report.otlp;
      err(`nri-sim: ${spans} spans exported to ${url}${error ? `; some were not: ${error}` : ""}`);
    }
    out(command.json ? jsonText(report) : renderSummary(report, style));
    return report.ok ? 0 : 1;
  } catch (error) {
    if (error instanceof UsageError) {
      err(`nri-sim: ${error.message}\n\n${USAGE}`);
      return 2;
    }
    if (
      error instanceof ScenarioError ||
      error instanceof PluginSetupError ||
      error instanceof PluginModuleError ||
      error instanceof DefaultValidatorConfigError
    ) {
      err(error.message);
      return 2;
    }
    const code = (error as NodeJS.ErrnoException).code;
    if (code === "ENOENT" || code === "EACCES" || code === "EISDIR") {
      err(`nri-sim: ${(error as Error).message}`);
      return 2;
    }
    throw error;
  }
}
