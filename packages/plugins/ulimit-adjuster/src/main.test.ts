import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { pluginProgram, simulate } from "@nri-ts/sim";
import { afterAll, beforeAll, describe, expect, it } from "vitest";

const program = pluginProgram(join(import.meta.dirname, "main.ts"));

// Each test starts the program (Node with tsx), which takes seconds on a busy machine.
describe("nri-ulimit-adjuster", { timeout: 120_000 }, () => {
  let dir: string;

  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), "nri-ulimit-adjuster-"));
    await program.install(dir, "10-ulimit-adjuster", ["-verbose"]);
  });

  afterAll(() => rm(dir, { recursive: true, force: true }));

  it("prints its usage for -h and refuses unknown flags, as Go's flag package does", async () => {
    const help = await program.run("-h");
    expect(help.code).toBe(0);
    expect(help.stderr).toContain("  -verbose\n    \tenable (more) verbose logging");
    const bad = await program.run("-frobnicate", "/x");
    expect(bad.code).toBe(2);
    expect(bad.stderr.split("\n")[0]).toBe("flag provided but not defined: -frobnicate");
  });

  it("adjusts rlimits when a runtime launches it", async () => {
    const report = await simulate(
      `
runtime: {registrationTimeout: 60s}  # launched with Node and tsx: seconds on a busy machine
pods: [{name: web, annotations: {ulimits.noderesource.dev/container.app: "- {type: nofile, soft: 10, hard: 20}"}}]
containers: [{name: app, pod: web}]
steps: [{run-pod: web}, {create: app}]
`,
      { pluginDir: dir, clock: "virtual" },
    );
    expect(report.failures).toEqual([]);
    expect(report.steps[1].adjustment).toEqual({ rlimits: [{ type: "RLIMIT_NOFILE", hard: 20, soft: 10 }] });
  });
});
