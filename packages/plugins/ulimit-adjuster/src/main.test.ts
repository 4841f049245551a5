import { execFile } from "node:child_process";
import { chmod, mkdtemp, rm, writeFile } from "node:fs/promises";
import { createRequire } from "node:module";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { pathToFileURL } from "node:url";
import { simulate } from "@nri-ts/sim";
import { afterAll, beforeAll, describe, expect, it } from "vitest";

const loader = pathToFileURL(createRequire(import.meta.url).resolve("tsx")).href;
const main = join(import.meta.dirname, "main.ts");
const node = [process.execPath, "--conditions=@nri-ts/source", "--import", loader, main];

function run(...args: string[]): Promise<{ code: number; stderr: string }> {
  return new Promise((resolve) => {
    execFile(node[0], [...node.slice(1), ...args], (error, _stdout, stderr) => {
      resolve({ code: error ? Number(error.code) : 0, stderr });
    });
  });
}

describe("nri-ulimit-adjuster", () => {
  let dir: string;

  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), "nri-ulimit-adjuster-"));
    await writeFile(join(dir, "10-ulimit-adjuster"), `#!/bin/sh\nexec ${node.join(" ")} -verbose\n`);
    await chmod(join(dir, "10-ulimit-adjuster"), 0o755);
  });

  afterAll(() => rm(dir, { recursive: true, force: true }));

  it("prints its usage for -h and refuses unknown flags, as Go's flag package does", async () => {
    const help = await run("-h");
    expect(help.code).toBe(0);
    expect(help.stderr).toContain("  -verbose\n    \tenable (more) verbose logging");
    const bad = await run("-frobnicate", "/x");
    expect(bad.code).toBe(2);
    expect(bad.stderr.split("\n")[0]).toBe("flag provided but not defined: -frobnicate");
  });

  it("adjusts rlimits when a runtime launches it", async () => {
    const report = await simulate(
      `
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
