/**
 * Running the tools: every failure names the command and carries its
 * stderr, so a red run says what went wrong without a rerun.
 */
import { execFile, type ExecFileOptions, spawnSync } from "node:child_process";

export interface RunOptions {
  cwd?: string;
  env?: NodeJS.ProcessEnv;
  input?: string;
  timeoutMs?: number;
}

/** A command that exited non-zero (or could not start), with what it printed. */
export class CommandError extends Error {
  constructor(
    readonly command: string,
    readonly exitCode: number | null,
    readonly stdout: string,
    readonly stderr: string,
    cause?: unknown,
  ) {
    const detail = stderr.trim() || stdout.trim() || (cause instanceof Error ? cause.message : "");
    super(`${command} failed (exit ${exitCode ?? "none"}): ${detail}`, { cause });
    this.name = "CommandError";
  }
}

function describeCommand(file: string, args: readonly string[]): string {
  return [file, ...args].map((part) => (/^[\w@%+=:,./-]+$/.test(part) ? part : JSON.stringify(part))).join(" ");
}

/** Runs a command to its end and resolves to its stdout. */
export function run(file: string, args: readonly string[], options: RunOptions = {}): Promise<string> {
  return new Promise((resolve, reject) => {
    const execOptions: ExecFileOptions = {
      cwd: options.cwd,
      env: options.env,
      maxBuffer: 256 * 1024 * 1024,
      timeout: options.timeoutMs ?? 0,
      killSignal: "SIGKILL",
    };
    const child = execFile(file, args, { ...execOptions, encoding: "utf8" }, (error, stdout, stderr) => {
      if (error) {
        const code = typeof error.code === "number" ? error.code : null;
        reject(new CommandError(describeCommand(file, args), code, stdout, stderr, error));
      } else {
        resolve(stdout);
      }
    });
    if (options.input !== undefined) child.stdin?.end(options.input);
  });
}

/** The same, synchronously: for teardown, which must also work in an exit handler. */
export function runSync(file: string, args: readonly string[], options: RunOptions = {}): string {
  const result = spawnSync(file, args, {
    cwd: options.cwd,
    env: options.env,
    input: options.input,
    encoding: "utf8",
    maxBuffer: 64 * 1024 * 1024,
    timeout: options.timeoutMs,
    killSignal: "SIGKILL",
  });
  if (result.error || result.status !== 0) {
    throw new CommandError(
      describeCommand(file, args),
      result.status,
      result.stdout ?? "",
      result.stderr ?? "",
      result.error,
    );
  }
  return result.stdout;
}

const sleeper = new Int32Array(new SharedArrayBuffer(4));

/** Blocks the thread: only for the synchronous teardown. */
export function sleepSync(ms: number): void {
  Atomics.wait(sleeper, 0, 0, ms);
}

export function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}
