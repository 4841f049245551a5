/*
 * The network-logger against Go's.
 *
 * The Go plugin (cmd/plugin-network-logger: the upstream plugin restated on
 * the upstream stub and logrus, see its main.go) and ours
 * (@nri-ts/plugin-network-logger's nri-network-logger) each run as an
 * external plugin, started by hand with `-idx 10 -socket PATH`: first next to
 * nri-sim through the same pod lifecycles, then against a scripted runtime
 * that synchronizes them with generated pods and shuts down. What they log
 * must be the same, line for line (level and message; the stubs' own lines
 * about registering and connecting are worded differently and left out).
 */
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { DeepPartial, PodSandbox } from "@nri-ts/api";
import { simulate } from "@nri-ts/sim";
import { ScriptedRuntimeListener } from "@nri-ts/stub/testing";
import fc from "fast-check";
import { afterAll, beforeAll, expect, it } from "vitest";
import { describeWithGo, goCommand } from "./go.js";
import { isGoEnding, LOST, ourPluginCommand, pluginLines, splitEnding, startPlugin } from "./plugin-process.js";

const ourNetworkLogger = ourPluginCommand("network-logger");

/** The Go plugin's line when Run fails (see isGoEnding). */
const RUN_FAILED = 'level=error msg="plugin exited (';
const session = (stderr: string) => splitEnding(pluginLines(stderr), RUN_FAILED);

/** Starts a plugin program on `socket`. */
const start = (command: readonly string[], socket: string) => startPlugin(command, ["-idx", "10", "-socket", socket]);

describeWithGo("network-logger: ours and Go's", () => {
  let goBin: string;
  let dir: string;

  beforeAll(async () => {
    goBin = await goCommand("plugin-network-logger");
    dir = await mkdtemp(join(tmpdir(), "nri-network-logger-conformance-"));
  });

  afterAll(() => rm(dir, { recursive: true, force: true }));

  it("log the same lines through the same pod lifecycles under nri-sim", async () => {
    const scenario = `
pods:
  - {name: web, namespace: shop, ips: [10.244.1.22, "fd00::16"]}
  - {name: proxy, namespace: kube-system, hostNetwork: true}
  - {name: agent, namespace: kube-system, hostNetwork: true, ips: [192.168.1.10]}
  - {name: "odd name", namespace: "ns with \\"quotes\\"", ips: []}
containers: [{name: app, pod: web}, {name: side, pod: proxy}]
steps:
  - run-pod: web
  - run-pod: proxy
  - run-pod: agent
  - run-pod: odd name
  - create: app
  - start: app
  - create: side
  - stop-pod: web
  - remove-pod: web
  - remove-pod: proxy
  - stop-pod: odd name
`;
    const runWith = async (command: readonly string[]) => {
      let plugin: ReturnType<typeof start> | undefined;
      const report = await simulate(scenario, {
        waitPlugins: 1,
        clock: "virtual",
        observer: { listening: (socket) => (plugin = start(command, socket)) },
      });
      const code = await plugin?.exited;
      return { report, code, ...session(plugin?.stderr() ?? "") };
    };
    const [go, ts] = [await runWith([goBin]), await runWith(ourNetworkLogger)];
    expect(ts.report.failures).toEqual([]);
    expect(ts.lines).toEqual(go.lines);
    expect(isGoEnding(go.ending, RUN_FAILED), go.ending.join("\n")).toBe(true);
    expect(ts.ending).toEqual([LOST]);
    expect([go.code, ts.code]).toEqual([1, 1]);

    // What the comparison covered, spelled out.
    expect(go.lines.map((line) => line.replace(/cni-[0-9a-f-]+/, "cni-…"))).toEqual([
      'level=info msg="Synchronized state with the runtime (0 pods, 0 containers)..."',
      'level=info msg="Started pod shop/web: namespace=/var/run/netns/cni-… ips=[10.244.1.22 fd00::16]"',
      'level=info msg="Started pod kube-system/proxy: namespace=<host-network> ips=[]"',
      'level=info msg="Started pod kube-system/agent: namespace=<host-network> ips=[192.168.1.10]"',
      'level=info msg="Started pod ns with \\"quotes\\"/odd name: namespace=/var/run/netns/cni-… ips=[]"',
      'level=info msg="Stopped pod shop/web: ips=[10.244.1.22 fd00::16]"',
      'level=info msg="Removed pod shop/web: ips=[10.244.1.22 fd00::16]"',
      'level=info msg="Stopped pod kube-system/proxy: ips=[]"',
      'level=info msg="Removed pod kube-system/proxy: ips=[]"',
      'level=info msg="Stopped pod ns with \\"quotes\\"/odd name: ips=[]"',
    ]);
  });

  it("log the same lines for generated pods in Synchronize, and for Shutdown", async () => {
    const text = fc.oneof(
      fc.constantFrom("default", "kube-system", "", "a b", 'q"uote', "tab\there", "ünï", "😀", "\u0007bell", "\u00ad"),
      fc.string({ maxLength: 6 }),
    );
    const namespace = fc.record({
      type: fc.constantFrom("network", "ipc", "uts", "pid", ""),
      path: fc.oneof(
        fc.constant(""),
        text.map((t) => `/var/run/netns/${t}`),
      ),
    });
    const pod = fc.record({
      name: text,
      namespace: text,
      ips: fc.array(fc.oneof(fc.ipV4(), fc.ipV6(), text), { maxLength: 3 }),
      linux: fc.option(fc.record({ namespaces: fc.array(namespace, { maxLength: 4 }) }), { nil: undefined }),
    });
    const rounds = fc.sample(fc.array(pod, { maxLength: 8 }), {
      numRuns: 20,
      seed: 20261201,
    }) as DeepPartial<PodSandbox>[][];

    const runWith = async (command: readonly string[]) => {
      const socket = join(await mkdtemp(join(dir, "rt-")), "nri.sock");
      const listener = await ScriptedRuntimeListener.listen(socket);
      const plugin = start(command, socket);
      const runtime = await listener.next();
      await runtime.handshake();
      for (const pods of rounds)
        await runtime.plugin.synchronize(
          { pods, containers: [{ id: "c1" }, { id: "c2" }] },
          { deadline: Date.now() + 5000 },
        );
      await runtime.plugin.shutdown({}, { deadline: Date.now() + 5000 });
      runtime.close();
      listener.close();
      await plugin.exited;
      return session(plugin.stderr());
    };
    const [go, ts] = [await runWith([goBin]), await runWith(ourNetworkLogger)];
    expect(ts.lines).toEqual(go.lines);
    expect(isGoEnding(go.ending, RUN_FAILED), go.ending.join("\n")).toBe(true);
    expect(ts.ending).toEqual([LOST]);
    // the handshake's empty synchronization, each round's header and pods, Shutdown
    expect(go.lines.length).toBe(1 + rounds.length + rounds.flat().length + 1);
    expect(go.lines.filter((line) => line.includes("<host-network>")).length).toBeGreaterThan(10);
  });
});
