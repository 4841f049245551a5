/**
 * A plugin program (a file that calls `runPlugin`, such as a reference
 * plugin's `main.ts`) run with Node as a user or a runtime starts it: by
 * hand with flags, or installed in a plugin directory as `NN-name`, which
 * the runtime (or `simulate({pluginDir})`) launches without arguments.
 */
import { type ChildProcess, type SpawnOptions, spawn } from "node:child_process";
import { chmod, writeFile } from "node:fs/promises";
import { join, resolve } from "node:path";
import { nodeOptionsFor } from "./node-options.js";

/** How a program run ended, and what it wrote. */
export interface ProgramRun {
  /** The exit code; `null` when a signal ended it. */
  code: number | null;
  signal: NodeJS.Signals | null;
  stdout: string;
  stderr: string;
}

export interface PluginProgram {
  /** Node and its arguments that run the program: a TypeScript loader for `.ts` files (tsx), then the file. */
  readonly command: readonly string[];
  /** Runs the program with `args` to its end. */
  run(...args: string[]): Promise<ProgramRun>;
  /** Starts the program with `args`. */
  spawn(args: readonly string[], options?: SpawnOptions): ChildProcess;
  /**
   * Writes `dir/<file>`, an executable that runs the program with `args`:
   * what a runtime finds in its plugin directory (`10-my-plugin`) and
   * launches with the socket on fd 3. Resolves to its path.
   */
  install(dir: string, file: string, args?: readonly string[]): Promise<string>;
}

/** A word for `sh`, quoted where it needs it. */
function shellWord(word: string): string {
  return /^[\w@%+=:,./-]+$/.test(word) ? word : `'${word.replaceAll("'", `'\\''`)}'`;
}

/** The program at `path` (TypeScript needs tsx installed next to it or in the working directory). */
export function pluginProgram(path: string): PluginProgram {
  const file = resolve(path);
  const command = [process.execPath, ...nodeOptionsFor(file), file];
  const start = (args: readonly string[], options: SpawnOptions = {}) =>
    spawn(command[0], [...command.slice(1), ...args], options);
  return {
    command,
    spawn: start,
    run: (...args) =>
      new Promise((done, fail) => {
        const child = start(args, { stdio: ["ignore", "pipe", "pipe"] });
        let stdout = "";
        let stderr = "";
        child.stdout?.on("data", (chunk: Buffer) => (stdout += chunk.toString()));
        child.stderr?.on("data", (chunk: Buffer) => (stderr += chunk.toString()));
        child.on("error", fail);
        child.on("close", (code, signal) => done({ code, signal, stdout, stderr }));
      }),
    async install(dir, name, args = []) {
      const target = join(dir, name);
      await writeFile(target, `#!/bin/sh\nexec ${[...command, ...args].map(shellWord).join(" ")}\n`);
      await chmod(target, 0o755);
      return target;
    },
  };
}
