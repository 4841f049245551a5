import { mkdir, mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { Adaptation } from "@nri-ts/adaptation";
import { CreateContainerRequest, PodSandbox } from "@nri-ts/api";
import { pluginProgram } from "@nri-ts/sim";
import { afterAll, beforeAll, describe, expect, it } from "vitest";

const program = pluginProgram(join(import.meta.dirname, "main.ts"));
const pod = PodSandbox.fromPartial({ id: "pod0", name: "web", namespace: "default", uid: "u0" });

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
    const { code, stderr } = await program.run(
      "-idx",
      "10",
      "-hooks-dirs",
      hooks,
      "-socket-path",
      join(dir, "none.sock"),
    );
    expect(code).toBe(1);
    expect(JSON.parse(stderr.trim().split("\n").at(-1) as string)).toMatchObject({
      level: "error",
      msg: 'failed to set up hook manager: unknown stage "later"',
    });
  });

  it("injects hooks when a runtime launches it, and sees hook files added while it runs", async () => {
    const [plugins, hooks] = [join(dir, "plugins"), join(dir, "hooks.d")];
    await mkdir(plugins);
    await program.install(plugins, "10-hook-injector", ["-hooks-dirs", hooks]);
    const hook = JSON.stringify({
      version: "1.0.0",
      hook: { path: "/bin/true" },
      when: { always: true },
      stages: ["poststop"],
    });
    // A runtime of our own rather than nri-sim: after the write, containers are
    // created until the plugin's watcher has reloaded, however long a busy machine takes.
    const nri = new Adaptation(
      "test-runtime",
      "v0.0.0",
      async (synchronize) => void (await synchronize([], [])),
      async () => [],
      {
        pluginPath: plugins,
        externalConnections: false,
        registrationTimeoutMs: 60_000, // launched with Node and tsx: seconds on a busy machine
        requestTimeoutMs: 60_000, // nothing here is to time out
      },
    );
    await nri.start();
    try {
      expect(nri.plugins.map((p) => p.fullName)).toEqual(["10-hook-injector"]);
      let created = 0;
      const poststop = async () => {
        const name = `ctr${created++}`;
        const request = CreateContainerRequest.fromPartial({
          pod,
          container: { id: name, podSandboxId: pod.id, name, args: ["a"] },
        });
        return (await nri.createContainer(request)).adjust?.hooks?.poststop.map((h) => h.path) ?? [];
      };
      expect(await poststop()).toEqual([]);
      // the directory was created by the plugin when it started watching
      await writeFile(join(hooks, "late.json"), hook);
      await expect.poll(poststop, { timeout: 60_000, interval: 50 }).toEqual(["/bin/true"]);
    } finally {
      await nri.stop();
    }
  });
});
