/**
 * Deployment as Kubernetes runs a plugin: the logger's image as its
 * `deploy/Dockerfile` describes it, built here from the packed npm tarballs
 * and the host's Node binary (no Docker), run by the same containerd as
 * the container of its DaemonSet (args, the NRI socket mounted where the
 * program connects, read-only root, no capabilities, its memory limit), in
 * its own PID namespace as a kubelet runs it. It registers from inside the
 * container and adjusts the next pod.
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { NRI_SOCKET } from "@nri-ts/tools/deployment";
import { afterAll, beforeAll, expect, it } from "vitest";
import { describeE2E } from "./context.js";
import { daemonSetContainer } from "./daemonset.js";
import type { ImageArchive } from "./images.js";
import { observed, observing } from "./observe.js";
import { pluginImage } from "./plugin-image.js";
import { waitRegistered } from "./plugins.js";
import { Runtime } from "./runtime.js";
import { timed } from "./timings.js";

describeE2E("deployment", () => {
  let runtime: Runtime;
  let image: ImageArchive;
  const work = mkdtempSync(join(tmpdir(), "nri-e2e-image-"));

  beforeAll(async () => {
    image = await timed("deployment: the logger's image (its Dockerfile, from packed tarballs)", () =>
      pluginImage("logger", work),
    );
    runtime = await Runtime.start({ label: "deployment" });
    await timed("deployment: import the plugin image", () => runtime.importImage(image.archive));
  });
  afterAll(() => {
    runtime?.teardown();
    rmSync(work, { recursive: true, force: true });
  });

  it("the logger, run as its DaemonSet's container, registers from inside and adjusts the next pod", async () => {
    const container = daemonSetContainer("logger", { [NRI_SOCKET]: runtime.layout.nriSocket });
    const daemon = await runtime.pod({
      name: "nri-plugin-logger",
      namespace: "kube-system",
      pidNamespace: "container",
    });
    const plugin = await daemon.create({
      ...container,
      image: image.name,
      // the DaemonSet's args, and a stamp to see in the next pod
      args: [...(container.args ?? []), "-add-env", "DEPLOYED_BY"],
    });
    const from = runtime.containerd.log.mark();
    await plugin.start();
    const hostPid = (await plugin.inspect()).info?.pid;
    expect(hostPid).toBeGreaterThan(0);
    const name = await timed("deployment: the containerized plugin registered", () =>
      waitRegistered(runtime.containerd, hostPid as number, "the logger container", from),
    );
    expect(name).toBe("10-logger");

    const pod = await runtime.runPod({ containers: [{ name: "app", ...observing() }] });
    // its own PID namespace: the plugin is PID 1 there
    expect(observed(pod.containers.app).env.DEPLOYED_BY).toBe("logger-pid-1");
    // it logs to stderr, which is the container's log
    expect(plugin.logs().output).toContain(`id: ${pod.containers.app.id}`);
    await daemon.remove();
  });
});
