/**
 * The exit reporter on a Kubernetes node, deployed from its manifests
 * (`kubectl apply -k` of its local overlay, with its ServiceAccount and
 * RBAC; an operator's overlay on top asks for an Event for clean ends
 * too): containers that exit 0, exit 3 (with a meaning their pod
 * declares, restarting: the kubelet's `Last State: Terminated`), miss
 * their command (127), cannot start (128), are OOM-killed (137) and are
 * deleted (SIGTERM, 143) each show the reporter's explanation in
 * `kubectl describe pod` and in `kubectl get events --field-selector
 * involvedObject.name=…`.
 */
import { mkdtempSync, readFileSync, writeFileSync } from "node:fs";
import { join, relative } from "node:path";
import { afterAll, beforeAll, expect, it } from "vitest";
import { Cluster } from "./cluster.js";
import { describeK8s } from "./context.js";
import { applyKustomization, localOverlay } from "./plugins.js";
import { endingPod, releasePod, waitPod } from "./pods.js";

/** A finalizer of ours keeps a deleted pod's object, and so its events, until the test lets it go. */
const MEANING = "exit-codes.exit-reporter.nri-ts.dev/container.app";

interface Case {
  name: string;
  command: string[];
  /** What `kubectl describe pod` must show of the reporter's Event. */
  type: "Normal" | "Warning";
  reason: RegExp;
  explanation: RegExp;
  memory?: string;
  restartPolicy?: "Never" | "OnFailure";
  annotations?: Record<string, string>;
  /** Deleted while it runs (SIGTERM). */
  deleted?: "running";
}

const CASES: Case[] = [
  {
    name: "exit-0",
    command: ["sh", "-c", "echo done"],
    type: "Normal",
    reason: /^Completed$/,
    explanation: /^exited normally \(code 0\); ran for /,
  },
  {
    name: "exit-3",
    command: ["sh", "-c", "sleep 1; exit 3"],
    restartPolicy: "OnFailure",
    annotations: { [MEANING]: "{3: the input bucket is empty}" },
    type: "Warning",
    reason: /^Error$/,
    explanation: /^exited with code 3: the input bucket is empty \(as the pod declares\); ran for /,
  },
  {
    name: "missing",
    command: ["sh", "-c", "no-such-command --all"],
    type: "Warning",
    reason: /^Error$/,
    explanation:
      /^exited with code 127 \(command not found\): the container couldn't find the command no-such-command \(the first of its script\) in its PATH \(.*\/bin.*\); command: sh -c 'no-such-command --all'; ran for /,
  },
  {
    name: "start-error",
    command: ["/bin/no-such-command"],
    // containerd tells NRI of a container that could not start when it is removed: the kubelet removes the
    // dead attempt when the next one dies (it keeps one dead container per container name)
    restartPolicy: "OnFailure",
    type: "Warning",
    reason: /^StartError$/,
    explanation:
      /^failed to start \(exit 128\); the runtime sent no message saying why; command: \/bin\/no-such-command$/,
  },
  {
    name: "oom",
    command: ["sh", "-c", "x=$(head -c 200000000 /dev/zero | tr '\\0' a)"],
    memory: "32Mi",
    type: "Warning",
    // confirmed from the container's memory cgroup when it is still there (the DaemonSet reads no kernel log); once runc
    // removed it, from the pod's cgroup on cgroup v2, and on v1 (this node), where only the killed process's own cgroup
    // counts the kill, from the pod's status: the runtime saw the kill and told the kubelet (OOMKilled)
    reason: /^OOMKilled$/,
    explanation:
      /^killed by the out-of-memory killer \(exit 137, SIGKILL\), (confirmed by cgroup|as the runtime told the kubelet: the pod's status says OOMKilled)/,
  },
  {
    name: "sigterm",
    command: ["sh", "-c", "echo ready; exec sleep 600"],
    deleted: "running",
    type: "Warning",
    reason: /^Error$/,
    explanation:
      /^killed by SIGTERM \(exit 143\): asked to terminate, as a runtime does when it stops a container; ran for /,
  },
];

/** An OOM kill, seen by a reporter that cannot read cgroups. */
const UNSEEN_OOM: Case = { ...CASES.find((c) => c.name === "oom")!, name: "unseen-oom" };

interface CoreEvent {
  type: string;
  reason: string;
  message: string;
  reportingComponent?: string;
  involvedObject: { name: string; uid?: string; fieldPath?: string };
  series?: { count: number };
  count?: number;
}

describeK8s("kubernetes: the exit reporter's explanations in kubectl describe pod", () => {
  let cluster: Cluster;

  /** The reporter deployed from an operator's overlay on the published one, its configuration changed by `edit`. */
  async function deployReporter(name: string, edit: (config: string) => string): Promise<void> {
    const overlay = mkdtempSync(join(cluster.dir, `overlay-exit-reporter-${name}-`));
    const base = join(localOverlay("exit-reporter"), "..", "..", "base", "config.yaml");
    writeFileSync(join(overlay, "config.yaml"), edit(readFileSync(base, "utf8")));
    writeFileSync(
      join(overlay, "kustomization.yaml"),
      JSON.stringify({
        apiVersion: "kustomize.config.k8s.io/v1beta1",
        kind: "Kustomization",
        resources: [relative(overlay, localOverlay("exit-reporter"))],
        configMapGenerator: [
          { name: "nri-plugin-exit-reporter", namespace: "kube-system", behavior: "replace", files: ["config.yaml"] },
        ],
      }),
    );
    await applyKustomization(cluster, "exit-reporter", overlay);
  }

  const allEnds = (config: string) => config.replace(/^kubernetes: .*$/m, "kubernetes: {events: all}");

  beforeAll(async () => {
    cluster = await Cluster.start({ label: "exit-reporter-events" });
    // Events for clean ends too
    await deployReporter("all", allEnds);
  }, 600_000);
  afterAll(async () => {
    if (!cluster) return;
    for (const c of [...CASES, UNSEEN_OOM]) {
      await releasePod(cluster.kubectl, c.name).catch(() => undefined);
    }
    cluster.teardown();
  });

  it("each end shows the reporter's explanation in kubectl describe pod and in kubectl get events", async () => {
    for (const c of CASES) await cluster.kubectl.apply(endingPod(c));
    for (const c of CASES.filter((c) => c.deleted === "running")) {
      await waitPod(cluster.kubectl, c.name, (p) => p.status?.phase === "Running");
      await cluster.kubectl.until(`${c.name} to be ready`, async () =>
        (await cluster.kubectl.run(["logs", c.name])).includes("ready"),
      );
      await cluster.kubectl.run(["delete", "pod", c.name, "--wait=false"]);
    }

    for (const c of CASES) {
      const events = await cluster.kubectl.until(
        `the reporter's Event on pod ${c.name}`,
        async () => {
          const list = await cluster.kubectl.json<{ items: CoreEvent[] }>([
            ...["get", "events", "-n", "default", "--field-selector", `involvedObject.name=${c.name}`],
          ]);
          const ours = list.items.filter((e) => e.reportingComponent === "nri-ts.dev/exit-reporter");
          return ours.length > 0 && ours;
        },
        240_000,
      );
      expect(events, c.name).toHaveLength(1);
      const [event] = events as [CoreEvent];
      expect(event.type, c.name).toBe(c.type);
      expect(event.reason, c.name).toMatch(c.reason);
      expect(event.message, c.name).toMatch(c.explanation);
      expect(event.involvedObject.fieldPath, c.name).toBe("spec.containers{app}");
      const describe = await cluster.kubectl.run(["describe", "pod", c.name]);
      const line = describe
        .slice(describe.indexOf("Events:"))
        .split("\n")
        .find((l) => l.includes("nri-ts.dev/exit-reporter"));
      expect(line, `${c.name}: kubectl describe pod\n${describe}`).toBeDefined();
      expect(line).toMatch(new RegExp(`^\\s+${c.type}\\s+${event.reason}\\s+`));
      expect(line).toContain(event.message.slice(0, 60));
      console.log(`k8s: kubectl describe pod ${c.name} (its container, and the events):\n${excerpt(describe)}`);
    }

    // the crash loop: the kubelet's Last State beside the reporter's series
    const looped = await cluster.kubectl.until(
      "exit-3 to restart twice, and the reporter's series to count it",
      async () => {
        const describe = await cluster.kubectl.run(["describe", "pod", "exit-3"]);
        return /Restart Count:\s+[2-9]/.test(describe) && /\(x[2-9] over /.test(describe) && describe;
      },
      240_000,
    );
    expect(looped).toMatch(/Last State:\s+Terminated\n\s+Reason:\s+Error\n\s+Exit Code:\s+3/);
    console.log(`k8s: kubectl describe pod exit-3 (its container, and the events):\n${excerpt(looped)}`);
  }, 900_000);

  it("an OOM kill the reporter cannot confirm itself: its Event says OOMKilled from the pod's status, as the kubelet had it from the runtime", async () => {
    // the reporter blind to cgroups (its cgroup root points nowhere), as when runc removed the container's cgroup
    // before the reporter read it on a cgroup v1 node
    await deployReporter("blind", (config) =>
      allEnds(config).replace(/^oom: .*$/m, "oom: {cgroupRoot: /host/no-cgroups-here, kernelLog: false}"),
    );
    await cluster.kubectl.apply(endingPod(UNSEEN_OOM));
    const [event] = await cluster.kubectl.until(
      "the reporter's Event on pod unseen-oom",
      async () => {
        const list = await cluster.kubectl.json<{ items: CoreEvent[] }>([
          ...["get", "events", "-n", "default", "--field-selector", "involvedObject.name=unseen-oom"],
        ]);
        const ours = list.items.filter((e) => e.reportingComponent === "nri-ts.dev/exit-reporter");
        return ours.length > 0 && ours;
      },
      240_000,
    );
    expect(event).toMatchObject({ type: "Warning", reason: "OOMKilled" });
    expect(event?.message).toMatch(
      /^killed by the out-of-memory killer \(exit 137, SIGKILL\), as the runtime told the kubelet: the pod's status says OOMKilled \(the reporter could not confirm it itself: the container's cgroup \S+ no longer exists/,
    );
    const describe = await cluster.kubectl.run(["describe", "pod", "unseen-oom"]);
    expect(describe).toMatch(/(Last )?State:\s+Terminated\n\s+Reason:\s+OOMKilled\n\s+Exit Code:\s+137/);
    console.log(`k8s: kubectl describe pod unseen-oom (its container, and the events):\n${excerpt(describe)}`);
    // the reporter's own record (its JSON lines) says what it saw itself
    const logs = await cluster.kubectl.run([
      "logs",
      "-n",
      "kube-system",
      "-l",
      "app.kubernetes.io/name=nri-plugin-exit-reporter",
      "--tail=-1",
    ]);
    expect(logs).toMatch(/"explanation":"killed by SIGKILL \(exit 137\) \(OOM not confirmed: the container's cgroup/);
  }, 600_000);
});

/** The container's state lines and the events of a `kubectl describe pod`. */
function excerpt(describe: string): string {
  const lines = describe.split("\n");
  const from = lines.findIndex((line) => /^\s+State:/.test(line));
  const to = lines.findIndex((line, i) => i > from && /^\s+Ready:/.test(line));
  return [
    ...lines.slice(from, to + 2),
    "...",
    ...lines.slice(lines.findIndex((line) => line.startsWith("Events:"))),
  ].join("\n");
}
