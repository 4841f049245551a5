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

describe("nri-rdt", () => {
  let dir: string;

  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), "nri-rdt-"));
    await writeFile(join(dir, "10-rdt"), `#!/bin/sh\nexec ${node.join(" ")} -verbose\n`);
    await chmod(join(dir, "10-rdt"), 0o755);
  });

  afterAll(() => rm(dir, { recursive: true, force: true }));

  it("prints its usage for -h and refuses unknown flags, as Go's flag package does", async () => {
    const help = await run("-h");
    expect(help.code).toBe(0);
    expect(help.stderr).toContain("  -verbose\n    \tenable verbose logging");
    const bad = await run("-name", "x");
    expect(bad.code).toBe(2);
    expect(bad.stderr.split("\n")[0]).toBe("flag provided but not defined: -name");
  });

  it("says it starts, in the Go plugins' text format", async () => {
    const { code, stderr } = await run("-idx", "10", "-socket", join(dir, "none.sock"));
    expect(code).toBe(1);
    expect(stderr.split("\n")[0]).toMatch(/^time="[^"]+" level=info msg="Starting plugin" verbose=false$/);
  });

  it("sets RDT fields when a runtime launches it", async () => {
    const report = await simulate(
      `
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
