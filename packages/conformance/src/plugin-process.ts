/**
 * Plugin programs run as external plugins, ours from source and the Go
 * twins from cmd/, and what they log.
 */
import { spawn } from "node:child_process";
import { once } from "node:events";
import { join } from "node:path";
import { fixtureCommand } from "../fixtures/stub/harness.js";
import { moduleDir } from "./go.js";

/** The command line of our plugin `packages/plugins/<name>`'s program, run from source. */
export function ourPluginCommand(name: string): string[] {
  return [...fixtureCommand([]).slice(0, -1), join(moduleDir, "..", "plugins", name, "src", "main.ts")];
}

export interface PluginProcess {
  /** Resolves with the exit code. */
  exited: Promise<number>;
  /** What it wrote on stderr so far. */
  stderr(): string;
}

/** Starts a plugin program with `args` (and `env` added to ours), collecting its stderr. */
export function startPlugin(
  command: readonly string[],
  args: readonly string[],
  env: Record<string, string> = {},
): PluginProcess {
  let stderr = "";
  const child = spawn(command[0], [...command.slice(1), ...args], {
    stdio: ["ignore", "ignore", "pipe"],
    env: { ...process.env, ...env },
  });
  child.stderr.on("data", (chunk: Buffer) => (stderr += chunk.toString()));
  // "close", not "exit": by then every line it wrote on stderr has been read
  return { exited: once(child, "close").then(([code]) => code as number), stderr: () => stderr };
}

/**
 * The stubs' own lines (Go's capitalized, ours not; ours also say how the
 * connection and the plugin ended, Go's that its ttrpc server closed, which
 * it may print before or after the plugin's last line).
 */
const STUB_LINE =
  /^msg="?(Created|Registering|Configuring|Subscribing|Started) plugin |^msg="?(created|registering|configuring|subscribing|started) plugin |^msg="plugin \S+ ended: |^msg="connection to the runtime closed |^msg="ttrpc server closed /;

/** A plugin's own lines in logrus text as `level=... msg=...` (the time left out), without the stubs' lines. */
export function pluginLines(stderr: string): string[] {
  return stderr
    .split("\n")
    .filter(Boolean)
    .map((line) => line.replace(/^time="[^"]*" /, ""))
    .filter((line) => !STUB_LINE.test(line.replace(/^level=\S+ /, "")));
}

/** What a plugin logs when it loses the runtime, ours and the Go twins alike. */
export const LOST = 'level=info msg="Connection to the runtime lost, exiting..."';

/**
 * A plugin's lines before its session ended, and the ending apart: from its
 * first line that is LOST or starts with `runFailed`.
 */
export function splitEnding(lines: string[], runFailed: string): { lines: string[]; ending: string[] } {
  const end = lines.findIndex((line) => isEndLine(line, runFailed));
  return end < 0 ? { lines, ending: [] } : { lines: lines.slice(0, end), ending: lines.slice(end) };
}

/**
 * Whether `ending` (from splitEnding) is one a Go twin may print. How it ends
 * when the runtime goes away is a race in its stub: the on-close callback logs
 * LOST and exits 1, or Run returns and the plugin logs its error (a line
 * starting with `runFailed`) and exits 1, or both get to log before the exit.
 * Ours always end with LOST alone.
 */
export function isGoEnding(ending: string[], runFailed: string): boolean {
  return ending.length > 0 && ending.every((line) => isEndLine(line, runFailed));
}

const isEndLine = (line: string, runFailed: string) => line === LOST || line.startsWith(runFailed);
