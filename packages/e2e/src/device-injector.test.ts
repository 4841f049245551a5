/**
 * The device-injector under a real containerd, on each line: a device node
 * and a bind mount that pod annotations ask for are there inside the
 * container (`ls -ln` of the node: a character device 1, 3 with mode 0666;
 * the host directory's file, read-only), a container of the same pod that
 * no annotation names gets neither, and a bad annotation fails that
 * container's creation with the plugin's error while the next pod is served.
 */
import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, expect, it } from "vitest";
import { describeEachLine } from "./context.js";
import { observed, observing } from "./observe.js";
import { deviceInjector } from "./our-plugins.js";
import type { ExternalPlugin } from "./plugins.js";
import { PodError } from "./pod.js";
import { Runtime } from "./runtime.js";

describeEachLine("device-injector", (line) => {
  let runtime: Runtime;
  let injector: ExternalPlugin;
  let hostDir: string;

  beforeAll(async () => {
    hostDir = await mkdtemp(join(tmpdir(), "nri-e2e-device-injector-"));
    await writeFile(join(hostDir, "hello"), "from the host");
    runtime = await Runtime.start({ label: "device-injector", line });
    injector = await runtime.startPlugin(deviceInjector(runtime, "20"));
  });
  afterAll(async () => {
    await runtime?.teardown();
    await rm(hostDir, { recursive: true, force: true });
  });

  it("puts the annotated device node and mount into the annotated container only", async () => {
    const pod = await runtime.runPod({
      annotations: {
        "devices.noderesource.dev/container.app":
          "- {path: /dev/nri-null, type: c, major: 1, minor: 3, file_mode: 0666}",
        "mounts.noderesource.dev/container.app": `- {source: ${hostDir}, destination: /host-data, type: bind, options: [bind, ro]}`,
      },
      containers: [
        { name: "app", ...observing({ files: ["/host-data/hello"], andThen: "ls -ln /dev/nri-null" }) },
        {
          name: "plain",
          ...observing({ files: ["/host-data/hello"], andThen: "ls -ln /dev/nri-null || true" }),
        },
      ],
    });
    expect(injector.name).toBe("20-device-injector");
    const app = pod.containers.app;
    expect(app.stdout).toMatch(/^crw-rw-rw-\s+1\s+0\s+0\s+1,\s+3 .*\/dev\/nri-null$/m);
    const seen = observed(app);
    expect(seen.files["/host-data/hello"]).toBe("from the host");
    expect(seen.mounts.find((m) => m.path === "/host-data")?.options).toContain("ro");
    const plain = observed(pod.containers.plain);
    expect(plain.files["/host-data/hello"]).toBeUndefined();
    expect(pod.containers.plain.stdout).not.toMatch(/^c.*\/dev\/nri-null$/m);
  });

  it("a bad annotation fails that container only, with the plugin's error in crictl's output", async () => {
    const failure = await runtime
      .runPod({
        annotations: { "devices.noderesource.dev/container.app": "- {path: /dev/x, major: 1.5}" },
        containers: [{ name: "app", script: "true" }],
      })
      .catch((error: unknown) => error);
    expect(failure).toBeInstanceOf(PodError);
    const { step, detail } = failure as PodError;
    expect(step).toMatch(/^CreateContainer app/);
    expect(detail).toContain("cannot unmarshal number 1.5 into Go struct field device.major of type int64");

    const next = await runtime.runPod({
      annotations: { "devices.noderesource.dev/container.app": "- {path: /dev/nri-zero, type: c, major: 1, minor: 5}" },
      containers: [{ name: "app", ...observing({ andThen: "ls -ln /dev/nri-zero" }) }],
    });
    expect(next.containers.app.stdout).toMatch(/^c\S+\s+1\s+0\s+0\s+1,\s+5 .*\/dev\/nri-zero$/m);
    expect(injector.running).toBe(true);
  });
});
