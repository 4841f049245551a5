import { once } from "node:events";
import { mkdtemp, readFile, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { pluginProgram, simulate } from "@nri-ts/sim";
import { describe, expect, it } from "vitest";

const program = pluginProgram(join(import.meta.dirname, "main.ts"));

const scenario = `
pods: [{name: web}]
containers: [{name: app, pod: web}]
steps: [{run-pod: web}, {create: app}]
`;

/** Runs nri-differ with `args` against nri-sim, a plugin at index 50 stamping each new container. */
async function underSim(args: string[]) {
  // (listened for from the start: it may exit before simulate() returns)
  let exited: Promise<unknown[]> | undefined;
  let stderr = "";
  const report = await simulate(scenario, {
    waitPlugins: 2,
    waitTimeoutMs: 60_000,
    clock: "virtual",
    plugins: [{ plugin: { createContainer: () => ({ annotations: { seen: "yes" } }) }, index: "50", name: "stamper" }],
    observer: {
      listening: (socket) => {
        const child = program.spawn(["-socket-path", socket, ...args], { stdio: ["ignore", "ignore", "pipe"] });
        exited = once(child, "exit");
        child.stderr?.on("data", (chunk: Buffer) => (stderr += chunk.toString()));
      },
    },
  });
  const [code] = (await exited) as [number];
  return { report, code, stderr };
}

const messages = (text: string) =>
  text
    .trim()
    .split("\n")
    .map((line) => line.replace(/^time="[^"]+" /, ""));

describe("nri-differ", () => {
  it("prints the Go differ's usage for -h and refuses what Go's flag package refuses", async () => {
    const help = await program.run("-h");
    expect(help.code).toBe(0);
    expect(help.stderr).toContain(
      '  -indices string\n    \tComma separated list of indices where to install the differ plugin to monitor the changes.\n    \tExample: "-indices 45,50,80"',
    );
    expect(help.stderr).toContain('if this parameter is not given. (default "0,99")\n  -log-file string');
    expect(help.stderr).toContain("  -verbose-level int\n    \tPrint extra information,\n");
    const bad = await program.run("-verbose-level", "lots");
    expect(bad.code).toBe(2);
    expect(bad.stderr.split("\n")[0]).toBe('invalid value "lots" for flag -verbose-level: parse error');
  }, 60_000);

  it("needs two indices, as Go's says", async () => {
    const one = await program.run("-indices", "10");
    expect(one.code).toBe(1);
    expect(messages(one.stderr)).toEqual(['level=fatal msg="There must be at least two index given."']);
  }, 60_000);

  it("registers at each index as <index>-differ, logs the changes in between, and exits 1 when the runtime goes away", async () => {
    const { report, code, stderr } = await underSim([]);
    expect(report.failures).toEqual([]);
    expect(report.plugins.map((plugin) => plugin.name).sort()).toEqual(["00-differ", "50-stamper", "99-differ"]);
    expect(code).toBe(1);
    const lines = messages(stderr);
    expect(lines).toContain(
      'level=info msg="[99] CreateContainer: container: create: [Annotations seen]: From: <nil> -> To: yes"',
    );
    expect(lines).toContain('level=info msg="[99] RunPodSandbox: pod: <no changes>"');
    expect(lines.at(-1)).toBe('level=info msg="Connection to the runtime lost, exiting..."');
  }, 120_000);

  it("appends to -log-file", async () => {
    const dir = await mkdtemp(join(tmpdir(), "nri-differ-"));
    try {
      const file = join(dir, "differ.log");
      const { code } = await underSim(["-indices", "10,60", "-log-file", file]);
      expect(code).toBe(1);
      const lines = messages(await readFile(file, "utf8"));
      expect(lines).toContain(
        'level=info msg="[60] CreateContainer: container: create: [Annotations seen]: From: <nil> -> To: yes"',
      );
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  }, 120_000);
});
