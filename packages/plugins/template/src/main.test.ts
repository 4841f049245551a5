import { execFile } from "node:child_process";
import { chmod, mkdtemp, rm, writeFile } from "node:fs/promises";
import { createRequire } from "node:module";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { pathToFileURL } from "node:url";
import { simulate } from "@nri-ts/sim";
import { afterAll, beforeAll, describe, expect, it } from "vitest";

/** The CPU shares of an update as nri-sim reports it. */
const shares = (resources: unknown) => (resources as { cpu?: { shares?: number } } | undefined)?.cpu?.shares;

const loader = pathToFileURL(createRequire(import.meta.url).resolve("tsx")).href;
const node = [process.execPath, "--conditions=@nri-ts/source", "--import", loader, join(import.meta.dirname, "main.ts")];

function run(...args: string[]): Promise<{ code: number; stderr: string }> {
  return new Promise((resolve) => {
    execFile(node[0], [...node.slice(1), ...args], (error, _stdout, stderr) => resolve({ code: error ? Number(error.code) : 0, stderr }));
  });
}

describe("nri-template", () => {
  let dir: string;

  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), "nri-template-"));
    await writeFile(join(dir, "10-template"), `#!/bin/sh\nexec ${node.join(" ")}\n`);
    await chmod(join(dir, "10-template"), 0o755);
    await writeFile(join(dir, "template.conf"), "cfgParam1: demo\nupdates: {cpuShares: 256}\n");
  });

  afterAll(() => rm(dir, { recursive: true, force: true }));

  it("takes the Go template's flags, and -socket-path as an alias of -socket", async () => {
    const help = await run("-help");
    expect(help.code).toBe(0);
    expect(help.stderr).toBe(
      "Usage of nri-template:\n  -idx string\n    \tplugin index to register to NRI\n  -name string\n    \tplugin name to register to NRI\n  -socket string\n    \tpath to the plugin socket\n  -socket-path string\n    \tthe same as -socket\n",
    );
    expect((await run("-verbose")).code).toBe(2);
  });

  it("runs launched by a runtime, with the configuration it hands over", async () => {
    const report = await simulate(
      `
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
    expect(report.steps[2].updates.map((u) => [u.from, u.container, shares(u.resources)])).toEqual([["CreateContainer", "web/a", 256]]);
  });
});
