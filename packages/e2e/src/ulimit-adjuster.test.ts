/**
 * The ulimit-adjuster under a real containerd, on each line: the rlimits a
 * pod annotation asks for are the container's, as `/proc/self/limits`
 * shows them from inside; a bad annotation fails that container's creation
 * with the plugin's error in crictl's output, and the next pod is served.
 * The shape of a check for one plugin (see the README).
 */
import { afterAll, beforeAll, expect, it } from "vitest";
import { describeEachLine } from "./context.js";
import { observed, observing } from "./observe.js";
import { ulimitAdjuster } from "./our-plugins.js";
import type { ExternalPlugin } from "./plugins.js";
import { PodError } from "./pod.js";
import { Runtime } from "./runtime.js";

describeEachLine("ulimit-adjuster", (line) => {
  let runtime: Runtime;
  let adjuster: ExternalPlugin;

  beforeAll(async () => {
    runtime = await Runtime.start({ label: "ulimit-adjuster", line });
    adjuster = await runtime.startPlugin(ulimitAdjuster(runtime, "20"));
  });
  afterAll(() => runtime?.teardown());

  it("sets the rlimits the pod's annotations ask for, per container, under either key", async () => {
    const pod = await runtime.runPod({
      annotations: {
        "ulimits.noderesource.dev/container.app": [
          "- {type: RLIMIT_NOFILE, soft: 1024, hard: 4096}",
          "- {type: nproc, soft: 500, hard: 1000}",
          "- {type: memlock, soft: 65536, hard: 131072}",
        ].join("\n"),
        "ulimits.nri.containerd.io/container.legacy": "- {type: nofile, soft: 2048, hard: 2048}",
      },
      containers: [
        { name: "app", ...observing() },
        { name: "legacy", ...observing() },
        { name: "plain", ...observing() },
      ],
    });
    expect(adjuster.name).toBe("20-ulimit-adjuster");
    const app = observed(pod.containers.app).limits;
    expect(app["Max open files"]).toEqual({ soft: "1024", hard: "4096" });
    expect(app["Max processes"]).toEqual({ soft: "500", hard: "1000" });
    expect(app["Max locked memory"]).toEqual({ soft: "65536", hard: "131072" });
    expect(observed(pod.containers.legacy).limits["Max open files"]).toEqual({ soft: "2048", hard: "2048" });
    // the runtime's default for a container no annotation names
    expect(observed(pod.containers.plain).limits["Max open files"]).not.toEqual({ soft: "2048", hard: "2048" });
  });

  it("knows the runtime's NRI version: sent by 2.4, inferred from the runtime's version before", () => {
    const configuring = adjuster.log
      .lines()
      .map((text) => JSON.parse(text) as { msg?: string; runtimeVersion?: string; nriVersion?: string })
      .find((entry) => entry.msg?.startsWith("configuring plugin"));
    console.log(`containerd ${line.version}: ${JSON.stringify(configuring)}`);
    expect(configuring).toMatchObject({ runtimeVersion: line.version, nriVersion: line.nri });
  });

  it("a bad annotation fails that pod only, with the plugin's error in crictl's output", async () => {
    const failure = await runtime
      .runPod({
        annotations: { "ulimits.noderesource.dev/container.app": "- {type: ULIMIT_CORE}" },
        containers: [{ name: "app", script: "true" }],
      })
      .catch((error: unknown) => error);
    expect(failure).toBeInstanceOf(PodError);
    const { step, detail } = failure as PodError;
    console.log(`containerd ${line.version}: crictl create with a bad annotation: ${detail}`);
    expect(step).toMatch(/^CreateContainer app/);
    // crictl prints the gRPC error inside a quoted field, so its quotes come escaped
    expect(detail).toContain('failed to parse type: \\"ULIMIT_CORE\\"');

    const next = await runtime.runPod({
      annotations: { "ulimits.noderesource.dev/container.app": "- {type: nofile, soft: 2048, hard: 2048}" },
      containers: [{ name: "app", ...observing() }],
    });
    expect(observed(next.containers.app).limits["Max open files"]).toEqual({ soft: "2048", hard: "2048" });
    expect(adjuster.running).toBe(true);
  });
});
