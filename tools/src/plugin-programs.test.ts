/**
 * Every reference plugin's program registers under the plugin's own name,
 * whatever file runs it, and takes the runtime's socket under either name
 * Go's plugins use (`-socket`, `-socket-path`): each is started by hand
 * (`<program> -idx 10 -<flag> <socket>`, from its `src/main.ts`, a file
 * named `main`) next to an nri-sim runtime, which reports what registered.
 * Nothing it does touches the machine's own files: a plugin that reads or
 * creates host directories by default gets private ones.
 */
import type { ChildProcess } from "node:child_process";
import { mkdtemp, rm, stat } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { pluginProgram, simulate } from "@nri-ts/sim";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { workspacePackages } from "./workspace.js";

const plugins = workspacePackages().filter(
  (pkg) => pkg.path.startsWith("packages/plugins/") && pkg.manifest.bin !== undefined,
);
const SCENARIO = "pods: [{name: web}]\nsteps: [{run-pod: web}]\n";

interface Start {
  /** The arguments besides the socket flag. */
  args: string[];
  /** The names it must register under. */
  registers: string[];
  /** What it must have made of the private directories it got (it creates missing ones, as it would the host's). */
  creates?: string[];
}

/** How a plugin is started by hand: `-idx 10`, unless it is one of these. */
const STARTS: Readonly<Record<string, (dir: string) => Start>> = {
  // It registers once per index of -indices (default 0,99), and has no -idx.
  differ: () => ({ args: ["-indices", "10,20"], registers: ["10-differ", "20-differ"] }),
  // By default it reads, and creates, the machine's hook directories (/usr/share/containers/oci/hooks.d, /etc/containers/oci/hooks.d).
  "hook-injector": (dir) => {
    const hooks = [join(dir, "share", "hooks.d"), join(dir, "etc", "hooks.d")];
    return { args: ["-idx", "10", "-hooks-dirs", hooks.join(",")], registers: ["10-hook-injector"], creates: hooks };
  },
};

function startOf(name: string, dir: string): Start {
  return STARTS[name]?.(dir) ?? { args: ["-idx", "10"], registers: [`10-${name}`] };
}

describe("reference plugin programs", () => {
  const children: ChildProcess[] = [];
  let dir: string;

  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), "nri-plugin-programs-"));
  });

  afterEach(() => {
    for (const child of children.splice(0)) child.kill("SIGKILL");
  });

  afterAll(() => rm(dir, { recursive: true, force: true }));

  it("finds the plugins", () => {
    expect(plugins.length).toBeGreaterThanOrEqual(3);
  });

  for (const pkg of plugins) {
    const name = pkg.path.slice("packages/plugins/".length);
    for (const flag of ["-socket", "-socket-path"]) {
      const shown = startOf(name, "DIR");
      it(`${name}: \`main ${shown.args.join(" ")} ${flag} SOCKET\` registers as ${shown.registers.join(", ")}`, async () => {
        const program = pluginProgram(join(pkg.dir, "src", "main.ts"));
        const { args, registers, creates = [] } = startOf(name, await mkdtemp(join(dir, `${name}-`)));
        const report = await simulate(SCENARIO, {
          waitPlugins: registers.length,
          waitTimeoutMs: 60_000, // Node with tsx starts in seconds on a busy machine
          clock: "virtual",
          observer: {
            listening: (socket) => children.push(program.spawn([...args, flag, socket], { stdio: "ignore" })),
          },
        });
        expect(report.plugins.map((p) => p.name)).toEqual(registers);
        for (const path of creates) expect((await stat(path)).isDirectory()).toBe(true);
      }, 120_000);
    }
  }
});
