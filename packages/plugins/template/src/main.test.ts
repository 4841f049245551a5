import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { pluginProgram, simulate } from "@nri-ts/sim";
import { afterAll, beforeAll, describe, expect, it } from "vitest";

/** The CPU shares of an update as nri-sim reports it. */
const shares = (resources: unknown) => (resources as { cpu?: { shares?: number } } | undefined)?.cpu?.shares;

const program = pluginProgram(join(import.meta.dirname, "main.ts"));

// Each test starts the program (Node with tsx), which takes seconds on a busy machine.
describe("nri-template", { timeout: 120_000 }, () => {
  let dir: string;

  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), "nri-template-"));
    await program.install(dir, "10-template");
    await writeFile(join(dir, "template.conf"), "cfgParam1: demo\nupdates: {cpuShares: 256}\n");
  });

  afterAll(() => rm(dir, { recursive: true, force: true }));

  it("takes the Go template's flags, and -socket-path as an alias of -socket", async () => {
    const help = await program.run("-help");
    expect(help.code).toBe(0);
    expect(help.stderr).toBe(
      "Usage of nri-template:\n  -idx string\n    \tplugin index to register to NRI\n  -name string\n    \tplugin name to register to NRI\n  -socket string\n    \tpath to the plugin socket\n  -socket-path string\n    \tthe same as -socket\n",
    );
    expect((await program.run("-verbose")).code).toBe(2);
  });

  it("runs launched by a runtime, with the configuration it hands over", async () => {
    const report = await simulate(
      `
runtime: {registrationTimeout: 60s}  # launched with Node and tsx: seconds on a busy machine
pods: [{name: web}]
containers: [{name: a, pod: web}, {name: b, pod: web}]
steps: [{run-pod: web}, {create: a}, {create: b}]
`,
      { pluginDir: dir, configDir: dir, clock: "virtual" },
    );
    expect(report.failures).toEqual([]);
    expect(report.steps.map((s) => s.events.map((e) => e.event))).toEqual([
      ["RunPodSandbox"],
      ["CreateContainer", "PostCreateContainer"],
      ["CreateContainer", "PostCreateContainer"],
    ]);
    expect(report.steps[2].updates.map((u) => [u.from, u.container, shares(u.resources)])).toEqual([
      ["CreateContainer", "web/a", 256],
    ]);
  });
});
