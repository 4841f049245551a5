/**
 * Faults a runtime must survive, on each containerd line: a plugin that
 * crashes in CreateContainer and one that hangs past the request timeout
 * are dropped and the pods go on, served by the other plugins; containerd
 * restarted under running plugins: one with `reconnect` (the root README's
 * plugin) comes back and serves the next pod, one without (the logger)
 * exits 1, as Go plugins do.
 */
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, beforeAll, expect, it } from "vitest";
import { describeEachLine } from "./context.js";
import { observed, observing } from "./observe.js";
import { tsLogger } from "./our-plugins.js";
import { type ExternalPlugin, fixturePlugin } from "./plugins.js";
import { Runtime } from "./runtime.js";

describeEachLine("faults", (line) => {
  let runtime: Runtime;
  let logger: ExternalPlugin;

  beforeAll(async () => {
    runtime = await Runtime.start({ label: "faults", line });
    logger = await runtime.startPlugin(tsLogger(runtime, "50", ["-add-env", "LOGGER_ENV"]));
  });
  afterAll(() => runtime?.teardown());

  /** Runs a pod; its container must have run, adjusted by the logger. */
  async function podIsServed(): Promise<void> {
    const pod = await runtime.runPod({ containers: [{ name: "app", ...observing() }] });
    expect(pod.containers.app.exitCode).toBe(0);
    expect(observed(pod.containers.app).env.LOGGER_ENV).toBe(`logger-pid-${logger.pid}`);
  }

  /** containerd's log lines about dropping the plugin, after `from`. */
  async function dropped(plugin: ExternalPlugin, from: number): Promise<string> {
    const msg = await runtime.containerd.waitForEntry(
      `containerd closing ${plugin.name}`,
      (entry) =>
        entry.msg.startsWith(`closing plugin ${plugin.name}, failed to handle CreateContainer request`) && entry.msg,
      { from },
    );
    console.log(`containerd ${line.version}: ${msg}`);
    return msg;
  }

  it("a plugin that crashes in CreateContainer is dropped; the pod goes on", async () => {
    const crashing = await runtime.startPlugin(
      fixturePlugin("fault-crash", "faulty.ts", ["crash", runtime.layout.nriSocket, "10"]),
    );
    const from = runtime.containerd.log.mark();
    await podIsServed();
    expect(await crashing.exited).toEqual({ code: 7, signal: null });
    expect(await dropped(crashing, from)).toMatch(/ttrpc: closed|connection reset|EOF/);
    await podIsServed();
  });

  it("a plugin that hangs past the request timeout is dropped; the pod goes on", async () => {
    const hanging = await runtime.startPlugin(
      fixturePlugin("fault-hang", "faulty.ts", ["hang", runtime.layout.nriSocket, "11"]),
    );
    const from = runtime.containerd.log.mark();
    await podIsServed();
    expect(await dropped(hanging, from)).toMatch(/deadline exceeded/);
    // the runtime closed its connection: the stub says so and exits 1
    expect(await hanging.exited).toEqual({ code: 1, signal: null });
    await podIsServed();
  });

  it("containerd restarted: a plugin with reconnect comes back and serves the next pod; one without exits 1", async () => {
    const reconnecting = await runtime.startPlugin(
      fixturePlugin("readme-reconnecting", "readme-plugin/reconnecting.ts", [runtime.layout.nriSocket, "30"]),
    );
    const from = await runtime.restartContainerd();
    await reconnecting.waitRegistered(runtime.containerd, from);
    expect(reconnecting.running).toBe(true);

    const pod = await runtime.runPod({ containers: [{ name: "app", ...observing() }] });
    expect(observed(pod.containers.app).env.POD_NAME).toBe(pod.name);
    expect(pod.containers.app.inspect.info?.runtimeSpec?.annotations?.["example.com/seen-by"]).toBe("annotate");

    expect(await logger.exited).toEqual({ code: 1, signal: null });
    expect(readFileSync(join(runtime.layout.logs, "ts-logger.events"), "utf8")).toContain(
      "Connection to the runtime lost, exiting...",
    );
  });
});
