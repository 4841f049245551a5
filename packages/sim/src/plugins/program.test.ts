import { mkdir, mkdtemp, readFile, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { pluginProgram } from "./program.js";
import { simulate } from "../run/simulate.js";

const launched = pluginProgram(join(import.meta.dirname, "..", "fixtures", "launched.ts"));
const logging = pluginProgram(join(import.meta.dirname, "..", "fixtures", "launched-logger.ts"));

// Each test starts Node with tsx, which takes seconds on a busy machine.
describe("pluginProgram", { timeout: 120_000 }, () => {
  let dir: string;

  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), "nri-sim-program-"));
  });

  afterAll(() => rm(dir, { recursive: true, force: true }));

  it("runs a TypeScript program with Node and tsx, to its exit code and output", async () => {
    expect(launched.command[0]).toBe(process.execPath);
    expect(launched.command).toContain("--import");
    // started by hand as `launched.ts`, without an index: the stub says why it cannot register, and the program exits 2
    const run = await launched.run();
    expect(run).toMatchObject({ code: 2, signal: null, stdout: "" });
    expect(run.stderr).toContain('invalid plugin name "launched", idx-pluginname expected');
  });

  it("installs it in a plugin directory, where the runtime launches it with its arguments", async () => {
    const path = await launched.install(dir, "10-launched", ["it's", "a b"]);
    expect(await readFile(path, "utf8")).toMatch(/^#!\/bin\/sh\nexec .* 'it'\\''s' 'a b'\n$/);
    // longer than the default 5s to register: the launch itself takes seconds on a busy machine
    const scenario =
      "runtime: {registrationTimeout: 60s}\npods: [{name: web}]\ncontainers: [{name: app, pod: web}]\nsteps: [{run-pod: web}, {create: app}]\n";
    const report = await simulate(scenario, { pluginDir: dir, clock: "virtual" });
    expect(report.failures).toEqual([]);
    expect(report.plugins).toEqual([{ name: "10-launched", source: "executable" }]);
    expect(report.steps[1].adjustment).toEqual({ env: [{ key: "UNSET", value: "launched" }] });
  });

  it("reports what it writes in a handler under the step that called it, the last step too", async () => {
    const plugins = join(dir, "logging");
    await mkdir(plugins);
    await logging.install(plugins, "10-logging");
    const scenario =
      "runtime: {registrationTimeout: 60s}\npods: [{name: web}]\ncontainers: [{name: app, pod: web}]\n" +
      "steps: [{run-pod: web}, {create: app}, {start: app}, {exit: {container: app, code: 3}}]\n";
    const report = await simulate(scenario, { pluginDir: plugins, clock: "virtual" });
    expect(report.failures).toEqual([]);
    expect(report.steps.map((step) => step.output.map(({ plugin, text }) => `${plugin}: ${text}`))).toEqual([
      ["10-logging: pod web runs"],
      ["10-logging: creating app"],
      ["10-logging: app started"],
      ["10-logging: app stopped with 3"],
    ]);
  });
});
