/**
 * Every reference plugin's program registers under the plugin's own name,
 * whatever file runs it, and takes the runtime's socket under either name
 * Go's plugins use (`-socket`, `-socket-path`): each is started by hand
 * (`<program> -idx 10 -<flag> <socket>`, from its `src/main.ts`, a file
 * named `main`) next to an nri-sim runtime, which reports what registered.
 */
import { type ChildProcess, spawn } from "node:child_process";
import { createRequire } from "node:module";
import { join } from "node:path";
import { pathToFileURL } from "node:url";
import { simulate } from "@nri-ts/sim";
import { afterEach, describe, expect, it } from "vitest";
import { workspacePackages } from "./workspace.js";

const loader = pathToFileURL(createRequire(import.meta.url).resolve("tsx")).href;
const plugins = workspacePackages().filter((pkg) => pkg.path.startsWith("packages/plugins/") && pkg.manifest.bin !== undefined);
const SCENARIO = "pods: [{name: web}]\nsteps: [{run-pod: web}]\n";

describe("reference plugin programs", () => {
  const children: ChildProcess[] = [];
  afterEach(() => {
    for (const child of children.splice(0)) child.kill("SIGKILL");
  });

  it("finds the plugins", () => {
    expect(plugins.length).toBeGreaterThanOrEqual(3);
  });

  for (const pkg of plugins) {
    const name = pkg.path.slice("packages/plugins/".length);
    for (const flag of ["-socket", "-socket-path"]) {
      it(`${name}: \`main -idx 10 ${flag} SOCKET\` registers as 10-${name}`, async () => {
        const main = join(pkg.dir, "src", "main.ts");
        const report = await simulate(SCENARIO, {
          waitPlugins: 1,
          waitTimeoutMs: 20_000,
          clock: "virtual",
          observer: {
            listening: (socket) => {
              const args = ["--conditions=@nri-ts/source", "--import", loader, main, "-idx", "10", flag, socket];
              children.push(spawn(process.execPath, args, { stdio: "ignore" }));
            },
          },
        });
        expect(report.plugins.map((p) => p.name)).toEqual([`10-${name}`]);
      }, 30_000);
    }
  }
});
