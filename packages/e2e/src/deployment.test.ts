/**
 * Deployment as Kubernetes runs a plugin: the logger packed into an OCI
 * image built here (packed npm tarballs, the host's Node binary, no Docker),
 * run by the same containerd as a container that mounts the NRI socket's
 * directory at /var/run/nri, in its own PID namespace, as its DaemonSet
 * does. It registers from inside the container and adjusts the next pod.
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { afterAll, beforeAll, expect, it } from "vitest";
import { describeE2E } from "./context.js";
import type { ImageArchive } from "./images.js";
import { observed, observeScript } from "./observe.js";
import { pluginImage } from "./plugin-image.js";
import { waitRegistered } from "./plugins.js";
import { Runtime } from "./runtime.js";
import { timed } from "./timings.js";

describeE2E("deployment", () => {
  let runtime: Runtime;
  let image: ImageArchive;
  const work = mkdtempSync(join(tmpdir(), "nri-e2e-image-"));

  beforeAll(async () => {
    image = await timed("deployment: the logger's image from packed tarballs", (phase) =>
      pluginImage("@nri-ts/plugin-logger", work).then((built) => {
        phase.note(built.archive);
        return built;
      }),
    );
    runtime = await Runtime.start({ label: "deployment" });
    await timed("deployment: import the plugin image", () => runtime.importImage(image.archive));
  });
  afterAll(() => {
    runtime?.teardown();
    rmSync(work, { recursive: true, force: true });
  });

  it("the logger, run as a container mounting the NRI socket directory, adjusts the next pod", async () => {
    const daemon = await runtime.pod({ name: "nri-plugin-logger", namespace: "kube-system", pidNamespace: "container" });
    const plugin = await daemon.create({
      name: "plugin",
      image: image.name,
      args: ["-idx", "50", "-add-env", "DEPLOYED_BY"],
      mounts: [{ containerPath: "/var/run/nri", hostPath: dirname(runtime.layout.nriSocket) }],
    });
    const from = runtime.containerd.log.mark();
    await plugin.start();
    const hostPid = (await plugin.inspect()).info?.pid;
    expect(hostPid).toBeGreaterThan(0);
    const name = await timed("deployment: the containerized plugin registered", () =>
      waitRegistered(runtime.containerd, hostPid as number, "the logger container", from),
    );
    expect(name).toBe("50-logger");

    const pod = await runtime.runPod({ containers: [{ name: "app", script: observeScript() }] });
    // its own PID namespace: the plugin is PID 1 there
    expect(observed(pod.containers.app).env.DEPLOYED_BY).toBe("logger-pid-1");
    // it logs to stderr, which is the container's log
    expect(plugin.logs().output).toContain(`id: ${pod.containers.app.id}`);
    await daemon.remove();
  });
});
