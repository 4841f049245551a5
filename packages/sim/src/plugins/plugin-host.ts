/**
 * The child process that runs a plugin module for nri-sim:
 * `plugin-host <module> <index> <name> <socket> [<config> [<options JSON>]]`
 * (options: `{failurePolicy, trace}`; with `trace`, it registers an
 * OpenTelemetry SDK that writes the spans it ends to stdout, see
 * trace/host-tracing.ts). It imports the module,
 * takes its plugin (see `pluginFromModule`) and runs it with @nri-ts/stub
 * against the simulator's socket, as an external plugin. The stub logs
 * (see `pluginStubLogger`) and what the plugin prints go to the report.
 * Everything goes to stdout, where a marker follows each handler call
 * (see `output-marks.ts`). Stdin takes the simulator's fault commands.
 */
import { createInterface } from "node:readline";
import { pathToFileURL } from "node:url";
import { type FailurePolicyInput, runPlugin } from "@nri-ts/stub";
import { type ArmedFault, FaultSwitch, faultingHandlers } from "./faults.js";
import {
  FAULT_ARMED_MARK,
  FAULT_DISARMED_MARK,
  FAULT_FIRED_MARK,
  HANDLER_DONE_MARK,
  markingHandlers,
} from "./output-marks.js";
import { pluginStubLogger } from "./plugin-log.js";
import { pluginFromModule } from "./plugin-module.js";
import { errorText } from "../error-text.js";

process.stderr.write = process.stdout.write.bind(process.stdout) as typeof process.stderr.write;

/** Takes the simulator's fault commands from stdin, one JSON object a line. */
function followFaultCommands(faults: FaultSwitch): void {
  createInterface({ input: process.stdin, crlfDelay: Infinity }).on("line", (line) => {
    const command = JSON.parse(line) as { arm?: ArmedFault; disarm?: true };
    if (command.arm) {
      faults.arm(command.arm);
      process.stdout.write(`${FAULT_ARMED_MARK}\n`);
    } else if (command.disarm) {
      faults.disarm();
      process.stdout.write(`${FAULT_DISARMED_MARK}\n`);
    }
  });
}

async function main(): Promise<void> {
  const [modulePath, index, name, socketPath, config = "", options = "{}"] = process.argv.slice(2);
  if (!modulePath || !index || !name || !socketPath) {
    process.stderr.write("usage: plugin-host <module> <index> <name> <socket> [<config> [<options JSON>]]\n");
    process.exit(2);
  }
  const { failurePolicy, trace } = JSON.parse(options) as { failurePolicy?: FailurePolicyInput; trace?: boolean };
  if (trace) {
    // loaded only when tracing: the SDK is nri-sim's, not every plugin run's
    const { startHostTracing } = await import("../trace/host-tracing.js");
    await startHostTracing(`${index}-${name}`, (line) => process.stdout.write(line));
  }
  const plugin = await pluginFromModule(await import(pathToFileURL(modulePath).href), modulePath, config);
  const faults = new FaultSwitch();
  followFaultCommands(faults);
  const faulting = faultingHandlers(plugin, faults, () => process.stdout.write(`${FAULT_FIRED_MARK}\n`));
  await runPlugin(
    markingHandlers(faulting, () => process.stdout.write(`${HANDLER_DONE_MARK}\n`)),
    {
      index,
      name,
      socketPath,
      env: {},
      logger: pluginStubLogger(process.stdout),
      failurePolicy,
    },
  );
}

main().catch((error: unknown) => {
  process.stderr.write(`${errorText(error)}\n`);
  process.exit(1);
});
