import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { pluginProgram, simulate } from "@nri-ts/sim";
import { afterAll, beforeAll, describe, expect, it } from "vitest";

const program = pluginProgram(join(import.meta.dirname, "main.ts"));

// Each test starts the program (Node with tsx), which takes seconds on a busy machine.
describe("nri-rdt", { timeout: 120_000 }, () => {
  let dir: string;

  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), "nri-rdt-"));
    await program.install(dir, "10-rdt", ["-verbose"]);
  });

  afterAll(() => rm(dir, { recursive: true, force: true }));

  it("prints its usage for -h and refuses unknown flags, as Go's flag package does", async () => {
    const help = await program.run("-h");
    expect(help.code).toBe(0);
    expect(help.stderr).toContain("  -verbose\n    \tenable verbose logging");
    const bad = await program.run("-name", "x");
    expect(bad.code).toBe(2);
    expect(bad.stderr.split("\n")[0]).toBe("flag provided but not defined: -name");
  });

  it("says it starts, in the Go plugins' text format", async () => {
    const { code, stderr } = await program.run("-idx", "10", "-socket", join(dir, "none.sock"));
    expect(code).toBe(1);
    expect(stderr.split("\n")[0]).toMatch(/^time="[^"]+" level=info msg="Starting plugin" verbose=false$/);
  });

  it("sets RDT fields when a runtime launches it", async () => {
    const report = await simulate(
      `
runtime: {registrationTimeout: 60s}  # launched with Node and tsx: seconds on a busy machine
pods: [{name: web, annotations: {closid.rdt.noderesource.dev/container.app: gold}}]
containers: [{name: app, pod: web}]
steps: [{run-pod: web}, {create: app}]
`,
      { pluginDir: dir, clock: "virtual" },
    );
    expect(report.failures).toEqual([]);
    expect(report.steps[1].adjustment).toEqual({ linux: { rdt: { closId: "gold" } } });
  });
});
