/**
 * Deployment from our own files, on a node: every reference plugin with a
 * `deploy/` folder applied with `kubectl apply -k` of its local overlay
 * (only the image is overridden: the one imported on the node), rolled
 * out (`kubectl rollout status`), registered with the node's containerd
 * (its `started plugin NN-name` line in `kubectl logs`). Then the effects
 * a workload pod gets, seen through the API: the ulimit-adjuster's
 * rlimits, the device-injector's device and mount, the hook-injector's
 * hooks, the logger's environment variable and annotation (an operator's
 * overlay of the logger with two more flags); and a pod whose annotation
 * a plugin refuses fails to start with the plugin's error in its events,
 * while the next pod starts.
 */
import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, beforeAll, expect, it } from "vitest";
import { Cluster } from "./cluster.js";
import { describeK8s } from "./context.js";
import type { KubeNode } from "./node.js";
import { deployedPlugins } from "./plugin-images.js";
import { applyKustomization, argsOverlay, localOverlay, registered } from "./plugins.js";
import { type Pod, sleepingPod, waitPod } from "./pods.js";

/** What each plugin registers as, from its DaemonSet's `-idx`; the differ registers at each index of its `-indices`. */
const REGISTERED: Record<string, string[]> = { "exit-reporter": ["90-exit-reporter"] };
const registeredNames = (plugin: string) => REGISTERED[plugin] ?? [`10-${plugin}`];

describeK8s("kubernetes: our plugins from their deploy/ folders", () => {
  let cluster: Cluster;
  let node: KubeNode;

  beforeAll(async () => {
    cluster = await Cluster.start({ label: "deploy" });
    node = cluster.nodes[0] as KubeNode;
    // what the hook-injector and the device-injector find on the node
    const states = join(node.base, "hook-states");
    await node.shell(
      [
        `mkdir -p /etc/containers/oci/hooks.d ${states} ${node.base}/host-data`,
        `echo 'from the node' > ${node.base}/host-data/hello`,
        `cat > /etc/containers/oci/hooks.d/10-state.json <<'EOF'
${JSON.stringify({
  version: "1.0.0",
  hook: { path: "/bin/sh", args: ["sh", "-c", `cat > "$(mktemp ${states}/state.XXXXXX)"`] },
  when: { annotations: { "^e2e\\.nri-ts\\.dev/hooks$": "^on$" } },
  stages: ["createRuntime"],
})}
EOF`,
        `cat > /etc/containers/oci/hooks.d/20-mark.json <<'EOF'
${JSON.stringify({
  hook: "/bin/sh",
  arguments: ["-c", "echo hook ran before the container > /hook-mark"],
  stage: ["startContainer"],
  annotation: ["^on$"],
})}
EOF`,
      ].join("\n"),
    );
  }, 600_000);
  afterAll(() => cluster?.teardown());

  it.each(deployedPlugins())(
    "%s: kubectl apply -k of its local overlay rolls out, and the plugin registers",
    async (plugin) => {
      await applyKustomization(cluster, plugin);
      const names = await registered(cluster, `app.kubernetes.io/name=nri-plugin-${plugin}`, plugin);
      console.log(`k8s: ${plugin} registered as ${names.join(", ")}`);
      if (plugin !== "differ") expect(names).toEqual(registeredNames(plugin));
    },
    360_000,
  );

  it("a pod gets the rlimits, the device, the mount and the hooks its annotations ask for", async () => {
    // applied above; again (no change) when this test runs alone
    for (const plugin of ["ulimit-adjuster", "device-injector", "hook-injector"])
      await applyKustomization(cluster, plugin);
    await cluster.kubectl.apply(
      sleepingPod("adjusted", {
        "ulimits.noderesource.dev/container.app": "- {type: RLIMIT_NOFILE, soft: 1024, hard: 4096}",
        "devices.noderesource.dev/container.app":
          "- {path: /dev/nri-null, type: c, major: 1, minor: 3, file_mode: 0666}",
        "mounts.noderesource.dev/container.app": `- {source: ${node.base}/host-data, destination: /host-data, type: bind, options: [bind, ro]}`,
        "e2e.nri-ts.dev/hooks": "on",
      }),
    );
    await waitPod(cluster.kubectl, "adjusted", (pod) => pod.status?.phase === "Running");
    const exec = (...command: string[]) => cluster.kubectl.run(["exec", "adjusted", "-c", "app", "--", ...command]);
    expect(await exec("cat", "/proc/self/limits")).toMatch(/^Max open files\s+1024\s+4096\s+files\s*$/m);
    expect(await exec("ls", "-ln", "/dev/nri-null")).toMatch(/^crw-rw-rw-\s+1\s+0\s+0\s+1,\s+3 .*\/dev\/nri-null$/m);
    expect((await exec("cat", "/host-data/hello")).trim()).toBe("from the node");
    expect(await exec("grep", " /host-data ", "/proc/self/mountinfo")).toMatch(/ ro[, ]/);
    // startContainer: inside the container before its process; createRuntime: on the node, with the container's state
    expect((await exec("cat", "/hook-mark")).trim()).toBe("hook ran before the container");
    const states = readdirSync(join(node.base, "hook-states"));
    expect(states).toHaveLength(1);
    const state = JSON.parse(readFileSync(join(node.base, "hook-states", states[0] as string), "utf8")) as {
      status: string;
      annotations: Record<string, string>;
    };
    expect(state.status).toBe("creating");
    expect(state.annotations["io.kubernetes.cri.sandbox-name"]).toBe("adjusted");
  });

  it("the logger, with an overlay of an operator's that adds two flags, stamps each new container", async () => {
    const overlay = argsOverlay("logger", cluster.dir, [
      "-idx",
      "10",
      "-add-env",
      "LOGGED_BY",
      "-add-annotation",
      "logged-by",
    ]);
    await applyKustomization(cluster, "logger", overlay);
    await cluster.kubectl.apply(sleepingPod("stamped"));
    await waitPod(cluster.kubectl, "stamped", (pod) => pod.status?.phase === "Running");
    const env = await cluster.kubectl.run(["exec", "stamped", "-c", "app", "--", "env"]);
    expect(env).toMatch(/^LOGGED_BY=logger-pid-1$/m);
    // the annotation is the container's, in its OCI spec: the node's crictl shows it
    const id = (await cluster.kubectl.json<Pod>(["get", "pod", "stamped"])).status?.containerStatuses?.[0]?.containerID;
    const inspect = JSON.parse(await node.crictl("inspect", (id ?? "").replace(/^containerd:\/\//, ""))) as {
      info: { runtimeSpec: { annotations: Record<string, string> } };
    };
    expect(inspect.info.runtimeSpec.annotations["logged-by"]).toBe("logger-pid-1");
    // and its log, through the API, has the container's creation
    expect(
      await cluster.kubectl.run([
        "logs",
        "-n",
        "kube-system",
        "-l",
        "app.kubernetes.io/name=nri-plugin-logger",
        "--tail=-1",
      ]),
    ).toMatch(/CreateContainer: .*\n(.*\n)*.*name: stamped/);
    // back to the overlay as published
    await applyKustomization(cluster, "logger", localOverlay("logger"));
  });

  it("a pod whose annotation a plugin refuses fails with the plugin's error in its events; the next one starts", async () => {
    await applyKustomization(cluster, "ulimit-adjuster");
    await cluster.kubectl.apply(
      sleepingPod("refused", { "ulimits.noderesource.dev/container.app": "- {type: ULIMIT_CORE}" }),
    );
    const describe = await cluster.kubectl.until("the refusal in kubectl describe pod refused", async () => {
      const text = await cluster.kubectl.run(["describe", "pod", "refused"]);
      return text.includes('failed to parse type: "ULIMIT_CORE"') && text;
    });
    console.log(`k8s: kubectl describe pod refused:\n${describe.slice(describe.indexOf("Events:"))}`);
    // the kubelet tries again and again; between its tries the container is ContainerCreating
    const refused = await waitPod(
      cluster.kubectl,
      "refused",
      (pod) => pod.status?.containerStatuses?.[0]?.state?.waiting?.reason === "CreateContainerError",
    );
    expect(refused.status?.containerStatuses?.[0]?.state?.waiting?.message).toContain(
      'failed to parse type: "ULIMIT_CORE"',
    );

    await cluster.kubectl.apply(
      sleepingPod("next", { "ulimits.noderesource.dev/container.app": "- {type: nofile, soft: 2048, hard: 2048}" }),
    );
    await waitPod(cluster.kubectl, "next", (pod) => pod.status?.phase === "Running");
    expect(await cluster.kubectl.run(["exec", "next", "-c", "app", "--", "cat", "/proc/self/limits"])).toMatch(
      /^Max open files\s+2048\s+2048\s+files\s*$/m,
    );
  });
});
