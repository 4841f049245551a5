/**
 * Container status through a kubelet: containers that exit 0, exit 3, miss
 * their command (127), are OOM-killed, are deleted (SIGTERM, 143) or
 * cannot start (128) end on a node whose plugins are the logger (every
 * event, as containerd sent it) and the exit-reporter, installed with its
 * Helm chart. What the kubelet put in each pod's containerStatuses
 * (reason, message, exit code) is set beside what the plugins received
 * for the same container, and printed as the README's table. Then the
 * template's chart is installed too, and `helm uninstall` leaves nothing
 * of either release behind.
 */
import { afterAll, beforeAll, expect, it } from "vitest";
import { type SeenEvent, statusTable, tsLoggerEvents } from "../seen-events.js";
import { Cluster } from "./cluster.js";
import { describeK8s } from "./context.js";
import { helm, helmInstallLocal, releaseLeftovers } from "./helm.js";
import { applyKustomization, PLUGIN_NAMESPACE, registered } from "./plugins.js";
import { endingPod, releasePod, waitPod } from "./pods.js";

interface Case {
  name: string;
  command: string[];
  /** What the kubelet reports. */
  exitCode: number;
  reason: string;
  memory?: string;
  /** Deleted while it runs (SIGTERM). */
  deleted?: boolean;
}

const CASES: Case[] = [
  { name: "exit-0", command: ["sh", "-c", "echo done"], exitCode: 0, reason: "Completed" },
  { name: "exit-3", command: ["sh", "-c", "exit 3"], exitCode: 3, reason: "Error" },
  { name: "missing", command: ["sh", "-c", "no-such-command"], exitCode: 127, reason: "Error" },
  {
    name: "oom",
    command: ["sh", "-c", "x=$(head -c 200000000 /dev/zero | tr '\\0' a)"],
    exitCode: 137,
    reason: "OOMKilled",
    memory: "32Mi",
  },
  {
    name: "deleted",
    command: ["sh", "-c", "echo ready; exec sleep 600"],
    exitCode: 143,
    reason: "Error",
    deleted: true,
  },
  { name: "start-error", command: ["/bin/no-such-command"], exitCode: 128, reason: "StartError" },
];

interface ExitRecord {
  event: string;
  pod: { name: string };
  container: { name: string; id: string };
  exitCode: number | null;
  reason?: string;
  reasonSource?: string;
  runtimeReason?: string;
  runtimeMessage?: string;
  explanation: string;
}

describeK8s("kubernetes: container status through a kubelet, to NRI plugins", () => {
  let cluster: Cluster;
  const statuses = new Map<string, { reason?: string; message?: string; exitCode?: number; containerID?: string }>();

  beforeAll(async () => {
    cluster = await Cluster.start({ label: "status" });
    await applyKustomization(cluster, "logger");
    await registered(cluster, "app.kubernetes.io/name=nri-plugin-logger", "10-logger");
    await helmInstallLocal(cluster, "exit-reporter", "exits");
    await registered(cluster, "app.kubernetes.io/instance=exits", "90-exit-reporter");
  }, 600_000);
  afterAll(() => cluster?.teardown());

  it("the kubelet and the plugins see each end: exit 0, exit 3, 127, OOM kill, SIGTERM, a start error", async () => {
    for (const c of CASES) await cluster.kubectl.apply(endingPod(c));
    for (const c of CASES.filter((c) => c.deleted)) {
      await waitPod(cluster.kubectl, c.name, (pod) => pod.status?.phase === "Running");
      await cluster.kubectl.until(`${c.name} to be ready`, async () =>
        (await cluster.kubectl.run(["logs", c.name])).includes("ready"),
      );
      await cluster.kubectl.run(["delete", "pod", c.name, "--wait=false"]);
    }
    for (const c of CASES) {
      const pod = await waitPod(
        cluster.kubectl,
        c.name,
        (p) => p.status?.containerStatuses?.[0]?.state?.terminated !== undefined,
        { timeoutMs: 180_000 },
      );
      const terminated = pod.status?.containerStatuses?.[0]?.state?.terminated;
      statuses.set(c.name, { ...terminated });
    }
    // the pods go, so that containerd removes their containers (RemoveContainer)
    for (const c of CASES) {
      await releasePod(cluster.kubectl, c.name);
      await cluster.kubectl.run(["delete", "pod", c.name, "--ignore-not-found", "--wait=true", "--timeout=120s"]);
    }

    const ids = Object.fromEntries(
      CASES.map((c) => [c.name, (statuses.get(c.name)?.containerID ?? "").replace(/^containerd:\/\//, "")]),
    );
    const records = await cluster.kubectl.until("an exit record of every container", async () => {
      const lines = (
        await cluster.kubectl.run([
          "logs",
          "-n",
          PLUGIN_NAMESPACE,
          "-l",
          "app.kubernetes.io/instance=exits",
          "--tail=-1",
        ])
      )
        .split("\n")
        .filter((line) => line.startsWith("{") && line.includes('"explanation"'))
        .map((line) => JSON.parse(line) as ExitRecord);
      return CASES.every((c) => lines.some((r) => r.container.id === ids[c.name])) && lines;
    });
    const events = await cluster.kubectl.until("the logger's RemoveContainer of every container", async () => {
      const seen = tsLoggerEvents(
        await cluster.kubectl.run([
          "logs",
          "-n",
          PLUGIN_NAMESPACE,
          "-l",
          "app.kubernetes.io/name=nri-plugin-logger",
          "--tail=-1",
        ]),
      );
      return CASES.every((c) => seen.some((e) => e.event === "RemoveContainer" && e.container === ids[c.name])) && seen;
    });

    const rows = CASES.map((c) => {
      const status = statuses.get(c.name) ?? {};
      const record = records.find((r) => r.container.id === ids[c.name]);
      const stop = stopEvent(events, ids[c.name] as string);
      return { c, status, record, stop };
    });
    console.log(
      [
        "k8s: containerStatuses (kubelet) beside what the NRI plugins received, containerd 2.4.2:",
        "| container | kubelet: exitCode | reason | message | NRI event | exit_code | status_reason | status_message | exit-reporter |",
        "|---|---|---|---|---|---|---|---|---|",
        ...rows
          .map(({ c, status, record, stop }) =>
            [
              c.name,
              status.exitCode,
              status.reason ?? "",
              cell(status.message),
              stop?.event ?? "-",
              stop?.exitCode || "(absent)",
              stop?.statusReason || "(absent)",
              stop?.statusMessage || "(absent)",
              `${record?.reason} (${record?.reasonSource}): ${cell(record?.explanation)}`,
            ].join(" | "),
          )
          .map((row) => `| ${row} |`),
        "",
        statusTable(events, ids),
      ].join("\n"),
    );

    for (const { c, status, record, stop } of rows) {
      expect(status.exitCode, c.name).toBe(c.exitCode);
      expect(status.reason, c.name).toBe(c.reason);
      // containerd sends the exit code (absent when 0) and no reason or message
      expect(stop?.exitCode ?? 0, c.name).toBe(c.exitCode);
      expect(stop?.statusReason, c.name).toBe("");
      expect(stop?.statusMessage, c.name).toBe("");
      expect(record?.exitCode ?? 0, c.name).toBe(c.exitCode);
      expect(record?.runtimeReason, c.name).toBeUndefined();
    }
    // where the kubelet has a message, it is the runtime's error; NRI has none
    expect(statuses.get("start-error")?.message).toMatch(/no-such-command/);
  });

  it("the template's chart installs a plugin that registers; helm uninstall leaves nothing of either release", async () => {
    await helmInstallLocal(cluster, "template", "template");
    await registered(cluster, "app.kubernetes.io/instance=template", "10-template");
    for (const release of ["exits", "template"]) {
      await helm(cluster, ["uninstall", release, "-n", PLUGIN_NAMESPACE, "--wait", "--timeout", "120s"]);
      await cluster.kubectl.until(
        `what release ${release} made to go`,
        async () => (await releaseLeftovers(cluster, release)).length === 0,
      );
    }
    expect(await helm(cluster, ["list", "-A", "-q"])).toBe("");
  });
});

/** The StopContainer containerd sent for the container, else its RemoveContainer (a container that never started). */
function stopEvent(events: readonly SeenEvent[], id: string): SeenEvent | undefined {
  return (
    events.find((e) => e.event === "StopContainer" && e.container === id) ??
    events.find((e) => e.event === "RemoveContainer" && e.container === id)
  );
}

const cell = (text: string | undefined) => (text ? text.replace(/\|/g, "\\|").replace(/\n/g, " ").slice(0, 300) : "");
