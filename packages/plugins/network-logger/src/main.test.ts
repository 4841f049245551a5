import { once } from "node:events";
import { join } from "node:path";
import { pluginProgram, simulate } from "@nri-ts/sim";
import { describe, expect, it } from "vitest";

const program = pluginProgram(join(import.meta.dirname, "main.ts"));

// Each test starts the program (Node with tsx), which takes seconds on a busy machine.
describe("nri-network-logger", { timeout: 120_000 }, () => {
  it("prints its usage for -h and refuses unknown flags, as Go's flag package does", async () => {
    const help = await program.run("-h");
    expect(help.code).toBe(0);
    expect(help.stderr).toContain("  -socket string\n    \tpath to NRI socket");
    const bad = await program.run("-verbose");
    expect(bad.code).toBe(2);
    expect(bad.stderr.split("\n")[0]).toBe("flag provided but not defined: -verbose");
  });

  it("logs in the Go plugins' text format, and exits 1 when the runtime goes away", async () => {
    // (listened for from the start: it may exit before simulate() returns)
    let exited: Promise<unknown[]> | undefined;
    let stderr = "";
    const report = await simulate("pods: [{name: web, ips: [10.0.0.7]}]\nsteps: [{run-pod: web}, {stop-pod: web}]\n", {
      waitPlugins: 1,
      clock: "virtual",
      observer: {
        listening: (socket) => {
          const child = program.spawn(["-idx", "10", "-socket", socket], { stdio: ["ignore", "ignore", "pipe"] });
          exited = once(child, "exit");
          child.stderr?.on("data", (chunk: Buffer) => (stderr += chunk.toString()));
        },
      },
    });
    const [code] = (await exited) as [number];
    expect(report.failures).toEqual([]);
    expect(code).toBe(1);
    const lines = stderr.trim().split("\n");
    for (const line of lines) expect(line).toMatch(/^time="[^"]+" level=(info|warning|error) msg=/);
    const messages = lines.map((line) => line.replace(/^time="[^"]+" level=\w+ /, ""));
    expect(messages).toEqual(
      expect.arrayContaining([
        'msg="Synchronized state with the runtime (0 pods, 0 containers)..."',
        expect.stringMatching(
          /^msg="Started pod default\/web: namespace=\/var\/run\/netns\/cni-\S+ ips=\[10\.0\.0\.7\]"$/,
        ),
        'msg="Stopped pod default/web: ips=[10.0.0.7]"',
        'msg="Connection to the runtime lost, exiting..."',
      ]),
    );
  });
});
