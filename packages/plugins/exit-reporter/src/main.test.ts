/**
 * `nri-exit-reporter`, the program, as runtimes run it: launched from the
 * plugin directory with its configuration file, and external with
 * `-config`.
 */
import { spawn } from "node:child_process";
import { chmod, mkdir, mkdtemp, readFile, rm, writeFile } from "node:fs/promises";
import { createRequire } from "node:module";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { pathToFileURL } from "node:url";
import { simulate } from "@nri-ts/sim";
import { ScriptedRuntimeListener } from "@nri-ts/stub/testing";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { usage } from "./flags.js";

const loader = pathToFileURL(createRequire(import.meta.url).resolve("tsx")).href;
const main = join(import.meta.dirname, "main.ts");
const node = [process.execPath, "--conditions=@nri-ts/source", "--import", loader, main];

const scenario = `
runtime: {registrationTimeout: 60s}  # launched with Node and tsx: seconds on a busy machine
pods: [{name: web, namespace: shop}]
containers: [{name: app, pod: web, args: [sh, -c, exit 3]}]
steps: [{run-pod: web}, {create: app}, {start: app}, {exit: {container: app, code: 3}}, {remove: app}]
`;

async function jsonLines(path: string): Promise<Record<string, unknown>[]> {
  return (await readFile(path, "utf8"))
    .trim()
    .split("\n")
    .map((line) => JSON.parse(line) as Record<string, unknown>);
}

// Each test starts the program (Node with tsx), which takes seconds on a busy machine.
describe("nri-exit-reporter", { timeout: 120_000 }, () => {
  let dir: string;
  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), "nri-exit-reporter-"));
  });
  afterAll(() => rm(dir, { recursive: true, force: true }));

  it("launched by the runtime: reads its configuration file and writes the exits it names", async () => {
    const plugins = join(dir, "plugins");
    await rm(plugins, { recursive: true, force: true });
    await mkdir(plugins);
    await writeFile(
      join(plugins, "90-exit-reporter"),
      `#!/bin/sh\nexec ${node.join(" ")} 2>>${join(dir, "launched.log")}\n`,
    );
    await chmod(join(plugins, "90-exit-reporter"), 0o755);
    const out = join(dir, "launched.jsonl");
    await writeFile(
      join(plugins, "exit-reporter.conf"),
      `jsonLines: {path: ${out}}\ngrpc: false\nexitCodes: {3: the queue is unreachable}\n`,
    );
    const report = await simulate(scenario, { pluginDir: plugins, configDir: plugins, clock: "virtual" });
    expect(report.ok, report.failures.join("\n")).toBe(true);
    // The runtime got its failure policy: go on without it, keep it connected.
    expect(report.plugins).toEqual([
      { name: "90-exit-reporter", source: "executable", failurePolicy: { failRequest: false, keepConnected: true } },
    ]);
    const [record] = await jsonLines(out);
    expect(record).toMatchObject({
      sequence: 1,
      event: "StopContainer",
      exitCode: 3,
      message: "the queue is unreachable",
      messageSource: "config",
      explanation: "exited with code 3: the queue is unreachable (as the reporter's configuration says); ran for 1s",
    });
  });

  it("external: takes -config and -socket (or -socket-path), registers as exit-reporter, and exits 1 when the runtime goes away", async () => {
    const socket = join(dir, "nri.sock");
    const out = join(dir, "external.jsonl");
    await writeFile(join(dir, "external.yaml"), `jsonLines: {path: ${out}}\n`);
    let stderr = "";
    let exited: Promise<number | null> | undefined;
    const report = await simulate(scenario, {
      socketPath: socket,
      waitPlugins: 1,
      waitTimeoutMs: 60_000, // Node with tsx starts in seconds on a busy machine
      clock: "virtual",
      observer: {
        listening: () => {
          const child = spawn(node[0], [
            ...node.slice(1),
            "-config",
            join(dir, "external.yaml"),
            "-socket",
            socket,
            "-idx",
            "50",
          ]);
          child.stderr.on("data", (chunk: Buffer) => (stderr += chunk.toString()));
          exited = new Promise((resolve) => child.once("exit", resolve));
        },
      },
    });
    expect(report.ok, report.failures.join("\n")).toBe(true);
    expect(report.plugins).toEqual([expect.objectContaining({ name: "50-exit-reporter", source: "external" })]);
    expect(await exited).toBe(1);
    expect((await jsonLines(out)).map((record) => record.exitCode)).toEqual([3]);
    const messages = stderr
      .trim()
      .split("\n")
      .map((line) => (JSON.parse(line) as { msg: string }).msg);
    expect(messages).toContain("configured by nri-sim 0.1.0; using its configuration file");
    // The gRPC service goes beside the runtime's socket by default.
    expect(messages).toContain(
      `reporting exits to json-lines at ${out}, grpc at unix://${join(dir, "exit-reporter.sock")}`,
    );
    expect(messages).toContain(
      "shop/web/app exited with code 3, which only the program can explain (no meaning is declared for it); ran for 1s",
    );
    expect(messages).toContain("connection to the runtime lost, exiting");
  });

  it("asks the runtime to go on without it when it fails a request, and to keep it registered", async () => {
    const socket = join(dir, "scripted.sock");
    const listener = await ScriptedRuntimeListener.listen(socket);
    await writeFile(join(dir, "quiet.yaml"), "jsonLines: false\ngrpc: false\n");
    const child = spawn(node[0], [...node.slice(1), "-socket-path", socket, "-config", join(dir, "quiet.yaml")]);
    const runtime = await listener.next();
    const registration = await runtime.registered();
    const reply = await runtime.configure({ NRIVersion: "v0.12.5" });
    expect([registration.pluginName, registration.pluginIdx]).toEqual(["exit-reporter", "90"]);
    expect(reply.failurePolicy).toEqual({ failRequest: false, keepConnected: true });
    runtime.close();
    listener.close();
    await new Promise((resolve) => child.once("exit", resolve));
  });

  it("refuses a bad configuration file before connecting, and prints its usage for -h", async () => {
    await writeFile(join(dir, "bad.yaml"), "grpc: {listen: here}\njsonLine: {}\n");
    const run = (args: string[]) =>
      new Promise<{ code: number | null; stdout: string; stderr: string }>((resolve) => {
        const child = spawn(node[0], [...node.slice(1), ...args]);
        let stdout = "";
        let stderr = "";
        child.stdout.on("data", (chunk: Buffer) => (stdout += chunk.toString()));
        child.stderr.on("data", (chunk: Buffer) => (stderr += chunk.toString()));
        child.once("exit", (code) => resolve({ code, stdout, stderr }));
      });
    const bad = await run(["-config", join(dir, "bad.yaml")]);
    expect(bad).toEqual({
      code: 2,
      stdout: "",
      stderr: [
        `${join(dir, "bad.yaml")}:1:16: grpc.listen: expected unix:///path/to.sock, an absolute socket path, or [host]:port, got "here"`,
        `${join(dir, "bad.yaml")}:2:1: jsonLine: unknown field (known: commandWrappers, exitCodes, rules, oom, causes, jsonLines, prometheus, grpc, kubernetes)`,
        "",
      ].join("\n"),
    });
    expect((await run(["-config", join(dir, "missing.yaml")])).stderr).toBe(
      `${join(dir, "missing.yaml")}: ENOENT: no such file or directory, open '${join(dir, "missing.yaml")}'\n`,
    );
    expect(await run(["-h"])).toEqual({ code: 0, stdout: "", stderr: `${usage()}\n` });
  });
});
