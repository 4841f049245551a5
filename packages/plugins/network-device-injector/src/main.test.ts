import { once } from "node:events";
import { join } from "node:path";
import { pluginProgram, simulate } from "@nri-ts/sim";
import { describe, expect, it } from "vitest";

const program = pluginProgram(join(import.meta.dirname, "main.ts"));

describe("nri-network-device-injector", () => {
  it("prints its usage for -h and refuses unknown flags, as Go's flag package does", async () => {
    const help = await program.run("-h");
    expect(help.code).toBe(0);
    expect(help.stderr).toContain("  -socket string\n    \tpath to NRI socket");
    expect(help.stderr).toContain("  -verbose\n    \tenable (more) verbose logging");
    const bad = await program.run("-socket-dir", "/x");
    expect(bad.code).toBe(2);
    expect(bad.stderr.split("\n")[0]).toBe("flag provided but not defined: -socket-dir");
  });

  it("fails a pod's start with the Go plugin's error, logs in the Go plugins' text format (debug with -verbose), and exits 1 when the runtime goes away", async () => {
    let exited: Promise<unknown[]> | undefined;
    let stderr = "";
    const report = await simulate(
      'pods: [{name: web, hostNetwork: true, annotations: {netdevice.noderesource.dev: "- {name: ens9, new_name: net1}"}}]\nsteps: [{run-pod: web}]\n',
      {
        waitPlugins: 1,
        waitTimeoutMs: 60_000,
        clock: "virtual",
        observer: {
          listening: (socket) => {
            const child = program.spawn(["-idx", "10", "-socket", socket, "-verbose"], {
              stdio: ["ignore", "ignore", "pipe"],
            });
            exited = once(child, "exit");
            child.stderr?.on("data", (chunk: Buffer) => (stderr += chunk.toString()));
          },
        },
      },
    );
    const [code] = (await exited) as [number];
    expect(report.plugins.map((p) => p.name)).toEqual(["10-network-device-injector"]);
    expect(report.steps[0].error).toContain("trying to inject network device on host network Pod");
    expect(code).toBe(1);
    const lines = stderr.trim().split("\n");
    for (const line of lines) expect(line).toMatch(/^time="[^"]+" level=(debug|info|warning|error) msg=/);
    expect(lines).toEqual(
      expect.arrayContaining([
        expect.stringMatching(/ level=debug msg="Started pod\.\.\." name=web namespace=default$/),
        expect.stringMatching(
          / level=info msg="Pod using host namespace, skipping \.\.\." name=web namespace=default$/,
        ),
      ]),
    );
  }, 150_000);
});
