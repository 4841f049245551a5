/**
 * Runs README examples as a user would run them, against the workspace's
 * sources: scripts with Node (and tsx), vitest tests with vitest, plugin
 * modules under nri-sim, and plugin programs (`runPlugin`) as external
 * plugins of nri-sim, handed a connected socket as a runtime hands one.
 */
import { type ChildProcess, execFile, spawn } from "node:child_process";
import { createRequire } from "node:module";
import { connect } from "node:net";
import { join } from "node:path";
import { pathToFileURL } from "node:url";
import { simulate, type SimReport } from "@nri-ts/sim";
import ts from "typescript";
import { ROOT } from "./workspace.js";

export type ExampleKind = "test" | "plugin-program" | "plugin-module" | "script";

export function exampleKind(code: string): ExampleKind {
  if (/from "vitest"/.test(code)) return "test";
  if (/\brunPlugin\(/.test(code)) return "plugin-program";
  if (/^export (default\b|(const|function|async function) plugin\b)/m.test(code)) return "plugin-module";
  return "script";
}

export interface RunResult {
  exitCode: number | null;
  stdout: string;
  stderr: string;
}

const requireHere = createRequire(join(ROOT, "package.json"));
const TSX = pathToFileURL(requireHere.resolve("tsx")).href;
const VITEST = join(requireHere.resolve("vitest/package.json"), "..", "vitest.mjs");
/**
 * Node's options for a TypeScript example against the workspace's sources;
 * passed in NODE_OPTIONS, so that Node programs an example starts get them too.
 */
const NODE_OPTIONS = `--conditions=@nri-ts/source --import ${TSX}`;
const { FORCE_COLOR: _, ...inherited } = process.env; // nx sets it: output would be coloured
const env = { ...inherited, NODE_OPTIONS, NO_COLOR: "1" };
/**
 * How long one example may take: sim's README test (vitest starting on the
 * workspace's sources) took 21 s at load 15-23, most of the 30 s this was.
 */
export const TIMEOUT_MS = 120_000;

function run(command: string, args: string[], cwd: string): Promise<RunResult> {
  return new Promise((resolve) => {
    execFile(command, args, { cwd, timeout: TIMEOUT_MS, env }, (error, stdout, stderr) => {
      const exitCode = error ? (typeof error.code === "number" ? error.code : null) : 0;
      resolve({ exitCode, stdout, stderr });
    });
  });
}

/** A script: `node` with tsx, from the package's directory. */
export function runScript(file: string, cwd: string): Promise<RunResult> {
  return run(process.execPath, [file], cwd);
}

/** A vitest file, with the workspace's vitest settings (`file` lies under `<dir>/test/`). */
export function runTest(file: string, dir: string): Promise<RunResult> {
  return run(process.execPath, [VITEST, "run", "--config", join(ROOT, "vitest.shared.ts"), "--root", dir, file], dir);
}

/**
 * A pod with a container through its whole life: every event a plugin can
 * subscribe to but the update ones. A plugin program gets 60 s to register:
 * it is handed its connection before it starts, and with Node and tsx on a
 * busy machine its start took longer than the default 5 s (the runtime
 * closed the connection under it: `write EPIPE` as it registered).
 */
export const LIFECYCLE = `
runtime: {registrationTimeout: 60s}
pods: [{name: web}]
containers: [{name: app, pod: web}]
steps: [{run-pod: web}, {create: app}, {start: app}, {exit: app}, {remove: app}, {stop-pod: web}, {remove-pod: web}]
`;

/** A module exporting a plugin: nri-sim runs it in a child process, as `nri-sim run --plugin` does. */
export function runPluginModule(file: string): Promise<SimReport> {
  return simulate(LIFECYCLE, { plugins: [{ module: file, index: "10", name: "example" }], clock: "virtual" });
}

/**
 * A program that calls `runPlugin`: started with `NRI_PLUGIN_SOCKET=3` and
 * fd 3 connected to nri-sim's socket (so it needs no /var/run/nri), it
 * registers under its own identity; when the scenario ends, the runtime
 * goes away and the program must exit by itself.
 */
export async function runPluginProgram(file: string, cwd: string): Promise<{ report: SimReport; program: RunResult }> {
  let program: Promise<RunResult> | undefined;
  let child: ChildProcess | undefined;
  const report = await simulate(LIFECYCLE, {
    clock: "virtual",
    waitPlugins: 1,
    waitTimeoutMs: TIMEOUT_MS / 2,
    observer: {
      listening(socketPath) {
        program = new Promise((resolve) => {
          const socket = connect(socketPath);
          socket.once("connect", () => {
            child = spawn(process.execPath, [file], {
              cwd,
              env: { ...env, NRI_PLUGIN_SOCKET: "3" },
              stdio: ["ignore", "pipe", "pipe", socket],
              timeout: TIMEOUT_MS * 2,
            });
            socket.destroy(); // the child has its own copy
            let stdout = "";
            let stderr = "";
            child.stdout!.on("data", (data: Buffer) => (stdout += data));
            child.stderr!.on("data", (data: Buffer) => (stderr += data));
            child.on("close", (exitCode) => resolve({ exitCode, stdout, stderr }));
          });
          socket.once("error", (error) => resolve({ exitCode: null, stdout: "", stderr: String(error) }));
        });
      },
    },
  }).catch(async (error: unknown) => {
    // what the program said is what tells why it did not register
    child?.kill();
    const ran = await program;
    throw new Error(
      `${(error as Error).message}\nthe program ${ran ? `exited ${ran.exitCode}, its stderr:\n${ran.stderr}` : "did not start"}`,
      { cause: error },
    );
  });
  return { report, program: await program! };
}

/** The type errors of the examples, as files at the given paths, under the workspace's strict settings. */
export function typeErrors(sources: Map<string, string>): string[] {
  const config = ts.getParsedCommandLineOfConfigFile(
    join(ROOT, "tsconfig.base.json"),
    { noEmit: true, composite: false, declaration: false, declarationMap: false, sourceMap: false },
    { ...ts.sys, onUnRecoverableConfigFileDiagnostic: () => {} },
  )!;
  const host = ts.createCompilerHost(config.options);
  const { fileExists, readFile } = host;
  host.fileExists = (file) => sources.has(file) || fileExists(file);
  host.readFile = (file) => sources.get(file) ?? readFile(file);
  const program = ts.createProgram([...sources.keys()], config.options, host);
  return [...sources.keys()].flatMap((file) => {
    const source = program.getSourceFile(file)!;
    return [...program.getSyntacticDiagnostics(source), ...program.getSemanticDiagnostics(source)].map((diagnostic) => {
      const { line } = source.getLineAndCharacterOfPosition(diagnostic.start ?? 0);
      return `${file}:${line + 1}: ${ts.flattenDiagnosticMessageText(diagnostic.messageText, "\n")}`;
    });
  });
}
