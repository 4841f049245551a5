import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { pluginProgram, simulate } from "@nri-ts/sim";
import { afterAll, beforeAll, expect, it } from "vitest";

const program = pluginProgram(join(import.meta.dirname, "main.ts"));
let pluginDir: string;

beforeAll(async () => {
  pluginDir = await mkdtemp(join(tmpdir(), "nri-{{name}}-"));
  await program.install(pluginDir, "10-{{name}}");
});
afterAll(() => rm(pluginDir, { recursive: true, force: true }));

it("takes the Go plugins' flags", async () => {
  const help = await program.run("-h");
  expect(help.code).toBe(0);
  expect(help.stderr).toContain("-socket string");
  expect((await program.run("-no-such-flag")).code).toBe(2);
});

it("runs when the runtime launches it from its plugin directory", async () => {
  const report = await simulate(
    "runtime: {registrationTimeout: 60s}\npods: [{name: web}]\ncontainers: [{name: app, pod: web}]\nsteps: [{run-pod: web}, {create: app}]\n",
    { pluginDir, clock: "virtual" },
  );
  expect(report.failures).toEqual([]);
  expect(report.plugins.map((p) => p.name)).toEqual(["10-{{name}}"]);
  // The program answered for the plugin (the other variables and annotations are plugin.test.ts's business).
  expect(report.steps[1]?.adjustment?.env).toContainEqual({ key: "POD_NAME", value: "web" });
});
