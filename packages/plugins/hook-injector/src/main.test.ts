import { writeFileSync } from "node:fs";
import { mkdir, mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { pluginProgram, simulate } from "@nri-ts/sim";
import { afterAll, beforeAll, describe, expect, it } from "vitest";

const program = pluginProgram(join(import.meta.dirname, "main.ts"));

// Each test starts the program (Node with tsx), which takes seconds on a busy machine.
describe("nri-hook-injector", { timeout: 120_000 }, () => {
  let dir: string;

  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), "nri-hook-injector-main-"));
  });

  afterAll(() => rm(dir, { recursive: true, force: true }));

  it("prints its usage for -h and refuses unknown flags, as Go's flag package does", async () => {
    const help = await program.run("-h");
    expect(help.code).toBe(0);
    expect(help.stderr).toContain("  -disableWatch\n    \tdisable watching hook directories for new hooks");
    const bad = await program.run("-frobnicate", "/x");
    expect(bad.code).toBe(2);
    expect(bad.stderr.split("\n")[0]).toBe("flag provided but not defined: -frobnicate");
  });

  it("exits 1 when a hook file is bad, saying which and why", async () => {
    const hooks = join(dir, "bad");
    await mkdir(hooks);
    await writeFile(join(hooks, "x.json"), '{"version": "1.0.0", "hook": {"path": "/bin/true"}, "stages": ["later"]}');
    const { code, stderr } = await program.run("-idx", "10", "-hooks-dirs", hooks, "-socket-path", join(dir, "none.sock"));
    expect(code).toBe(1);
    expect(JSON.parse(stderr.trim().split("\n").at(-1) as string)).toMatchObject({ level: "error", msg: 'failed to set up hook manager: unknown stage "later"' });
  });

  it("injects hooks when a runtime launches it, and sees hook files added while it runs", async () => {
    const [plugins, hooks] = [join(dir, "plugins"), join(dir, "hooks.d")];
    await mkdir(plugins);
    await program.install(plugins, "10-hook-injector", ["-hooks-dirs", hooks]);
    const hook = JSON.stringify({ version: "1.0.0", hook: { path: "/bin/true" }, when: { always: true }, stages: ["poststop"] });
    const report = await simulate(
      `
runtime: {registrationTimeout: 60s}  # launched with Node and tsx: seconds on a busy machine
pods: [{name: web}]
containers: [{name: before, pod: web, args: [a]}, {name: after, pod: web, args: [a]}]
steps: [{run-pod: web}, {create: before}, {wait: 1s}, {create: after}]
`,
      {
        pluginDir: plugins,
        clock: "virtual",
        observer: {
          // the directory was created by the plugin when it started watching
          stepDone: (step) => step.number === 2 && writeFileSync(join(hooks, "late.json"), hook),
        },
      },
    );
    expect(report.failures).toEqual([]);
    expect(report.steps[1].adjustment).toEqual({});
    expect(report.steps[3].adjustment).toEqual({ hooks: { poststop: [{ path: "/bin/true" }] } });
  });
});
