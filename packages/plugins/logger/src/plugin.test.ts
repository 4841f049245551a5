import { mkdtemp, readFile, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { pluginProgram, simulate } from "@nri-ts/sim";
import type { HandlerContext } from "@nri-ts/stub";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createLoggerPlugin, type LoggerPluginOptions } from "./plugin.js";
import { TextLog } from "./text-log.js";

const scenario = `
name: logger
runtime: {registrationTimeout: 60s}  # launched with Node and tsx: seconds on a busy machine
pods: [{name: web, namespace: shop}]
containers:
  - {name: app, pod: web, env: {MODE: prod}}
steps:
  - run-pod: web
  - create: app
  - start: app
  - exit: {container: app, code: 137, reason: OOMKilled, message: memory limit exceeded}
  - remove: app
`;

function capturingLog(): { log: TextLog; lines: string[] } {
  const lines: string[] = [];
  const log = new TextLog({ sink: { isTTY: false, write: (text: string) => lines.push(text) } });
  return { log, lines };
}

/** The messages logged, without logfmt around them. */
function messages(lines: string[]): string[] {
  return lines.map((line) => JSON.parse(line.slice(line.indexOf(" msg=") + 5).replace(/^([^"].*)$/, '"$1"')) as string);
}

async function run(options: LoggerPluginOptions = {}) {
  const { log, lines } = capturingLog();
  const report = await simulate(scenario, {
    plugins: [{ plugin: createLoggerPlugin({ log, pid: 4242, ...options }), index: "10", name: "logger" }],
    clock: "virtual",
  });
  return { report, logged: messages(lines) };
}

describe("the logger plugin under nri-sim", () => {
  it("subscribes to every event by default and logs each one", async () => {
    const { report, logged } = await run();
    expect(report.ok).toBe(true);
    expect(report.steps.map((s) => s.events.map((e) => e.event))).toEqual([
      ["RunPodSandbox"],
      ["CreateContainer", "ValidateContainerAdjustment", "PostCreateContainer"],
      ["StartContainer", "PostStartContainer"],
      ["StopContainer"],
      ["RemoveContainer"],
    ]);
    const headers = logged.filter((m) => /^[A-Za-z]+: [a-zA-Z]+:$/.test(m));
    expect(headers).toEqual([
      "Synchronize: pods:",
      "Synchronize: containers:",
      "RunPodSandbox: pod:",
      "CreateContainer: pod:",
      "CreateContainer: container:",
      "ValidateContainerAdjustment: request:",
      "PostCreateContainer: pod:",
      "PostCreateContainer: container:",
      "StartContainer: pod:",
      "StartContainer: container:",
      "PostStartContainer: pod:",
      "PostStartContainer: container:",
      "StopContainer: pod:",
      "StopContainer: container:",
      "RemoveContainer: pod:",
      "RemoveContainer: container:",
    ]);
    expect(logged).toContain("RunPodSandbox:    namespace: shop");
  });

  it("logs the container status fields it receives, and with statusLines a line about them", async () => {
    expect((await run()).logged.filter((m) => m.includes(" status: "))).toEqual([]);
    const { logged } = await run({ statusLines: true });
    expect(logged.filter((m) => m.includes(" status: "))).toEqual([
      "CreateContainer: container app status: created (created_at 2026-01-01T00:00:02.000Z)",
      "PostCreateContainer: container app status: created (created_at 2026-01-01T00:00:02.000Z)",
      "StartContainer: container app status: created (created_at 2026-01-01T00:00:02.000Z)",
      "PostStartContainer: container app status: running (created_at 2026-01-01T00:00:02.000Z, started_at 2026-01-01T00:00:03.000Z)",
      'StopContainer: container app status: exited 137 (OOMKilled): memory limit exceeded (created_at 2026-01-01T00:00:02.000Z, started_at 2026-01-01T00:00:03.000Z, finished_at 2026-01-01T00:00:04.000Z, exit_code 137, status_reason OOMKilled, status_message "memory limit exceeded")',
      'RemoveContainer: container app status: exited 137 (OOMKilled): memory limit exceeded (created_at 2026-01-01T00:00:02.000Z, started_at 2026-01-01T00:00:03.000Z, finished_at 2026-01-01T00:00:04.000Z, exit_code 137, status_reason OOMKilled, status_message "memory limit exceeded")',
    ]);
    expect(logged).toContain("StopContainer:    exit_code: 137");
    expect(logged).toContain("StopContainer:    status_reason: OOMKilled");
  });

  it("stamps containers with its annotation and variable, taking the set ones over", async () => {
    const { report } = await run({
      config: {
        events: ["CreateContainer"],
        addAnnotation: "a.example/logger",
        setAnnotation: "s.example/logger",
        addEnv: "SEEN",
        setEnv: "MODE",
      },
    });
    const create = report.steps[1];
    expect(report.steps.map((s) => s.events.length)).toEqual([0, 1, 0, 0, 0]);
    expect(create.changes.map(({ text, owner }) => [text, owner])).toEqual([
      ["annotation -s.example/logger (remove)", "10-logger"],
      ["annotation a.example/logger=logger-pid-4242", "10-logger"],
      ["annotation s.example/logger=logger-pid-4242", "10-logger"],
      ["env SEEN=logger-pid-4242", "10-logger"],
      ["env MODE=logger-pid-4242", "10-logger"],
    ]);
    expect(create.container).toMatchObject({
      annotations: { "a.example/logger": "logger-pid-4242", "s.example/logger": "logger-pid-4242" },
      env: { MODE: "logger-pid-4242", SEEN: "logger-pid-4242" },
    });
  });
});

describe("configure", () => {
  const ctx = {} as HandlerContext;
  const input = {
    runtimeName: "containerd",
    runtimeVersion: "2.1.0",
    runtimeNriVersion: "v0.9.0",
    registrationTimeoutMs: 5000,
    requestTimeoutMs: 2000,
  };

  it("logs the configuration and keeps the flags' events without one", () => {
    const { log, lines } = capturingLog();
    const plugin = createLoggerPlugin({ log, config: { events: ["CreateContainer,StopContainer"] } });
    expect(plugin.configure?.({ ...input, config: "" }, ctx)).toBe(0b1000001000);
    expect(messages(lines)).toEqual(['got configuration data: "" from runtime containerd 2.1.0']);
  });

  it("takes events from the configuration, and all of them when it names none", () => {
    const plugin = createLoggerPlugin({ log: capturingLog().log, config: { events: ["CreateContainer"] } });
    expect(plugin.configure?.({ ...input, config: "events: [pod]\n" }, ctx)).toBe(0b1000000000111 | 0b100000000000);
    expect(createLoggerPlugin({ log: capturingLog().log }).configure?.({ ...input, config: "addEnv: X\n" }, ctx)).toBe(
      0,
    );
  });

  it("fails on an unknown event or a bad configuration", () => {
    const plugin = createLoggerPlugin({ log: capturingLog().log });
    expect(() => plugin.configure?.({ ...input, config: "events: [Frobnicate]\n" }, ctx)).toThrow(
      'failed to parse events in configuration: unknown event "Frobnicate"',
    );
    expect(() => plugin.configure?.({ ...input, config: "events: 3\n" }, ctx)).toThrow(
      "failed to parse provided configuration: error unmarshaling JSON: while decoding JSON: json: cannot unmarshal number into Go struct field config.events of type []string",
    );
  });
});

// Each test starts the program (Node with tsx), which takes seconds on a busy machine.
describe("nri-logger, launched by the runtime", { timeout: 120_000 }, () => {
  let dir: string;

  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), "nri-logger-"));
    await pluginProgram(join(import.meta.dirname, "main.ts")).install(dir, "10-logger");
    await writeFile(join(dir, "logger.conf"), `logFile: ${join(dir, "log")}\nevents: [StopContainer]\n`);
  });

  afterAll(() => rm(dir, { recursive: true, force: true }));

  it("reads its configuration file and logs to the file it names", async () => {
    const report = await simulate(scenario, { pluginDir: dir, configDir: dir, clock: "virtual" });
    expect(report.plugins).toEqual([{ name: "10-logger", source: "executable" }]);
    expect(report.steps.map((s) => s.events.map((e) => e.event))).toEqual([[], [], [], ["StopContainer"], []]);
    const logged = messages((await readFile(join(dir, "log"), "utf8")).trim().split("\n"));
    // The configuration itself was logged before the file was opened, to stderr (which a runtime discards).
    expect(logged[0]).toBe("started plugin 10-logger");
    expect(logged).toContain("StopContainer:    exit_code: 137");
  });
});
