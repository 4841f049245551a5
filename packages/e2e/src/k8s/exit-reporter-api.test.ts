/**
 * The exit reporter's Kubernetes output against a real API server (etcd
 * and kube-apiserver of the Kubernetes tier, no node): the reporter runs
 * in this process with the token of the ServiceAccount its own manifests
 * make (`kubectl apply -k` of its local overlay: ServiceAccount,
 * ClusterRole, ClusterRoleBinding), and reports container ends of pods
 * that exist in the API. Checked through the API and kubectl: the Events'
 * fields, series that grow on repeats, 50 ends while the API server is
 * stopped that all arrive once when it is started again, the bound that
 * drops the oldest and counts them in the Prometheus metric, a cause
 * attached by another plugin reaching `kubectl describe pod`, and a token
 * without RBAC (a clear error at start, then each Event logged and
 * counted as refused).
 */
import { mkdtempSync } from "node:fs";
import { join } from "node:path";
import { Container, PodSandbox } from "@nri-ts/api";
import {
  connectExitReporter,
  decodeConfig,
  ExitReporter,
  type ExitReporterConnection,
  type PrometheusOutput,
} from "@nri-ts/plugin-exit-reporter";
import { createLogger } from "@nri-ts/stub";
import { afterAll, afterEach, beforeAll, expect, it } from "vitest";
import { commandLine } from "../procs.js";
import { Cluster } from "./cluster.js";
import { describeK8s } from "./context.js";
import { Daemon } from "./daemon.js";
import { kubeconfig } from "./pki.js";
import { localOverlay, PLUGIN_NAMESPACE } from "./plugins.js";

const NS = "shop";
const S = 1_000_000_000n;

interface Event {
  metadata: { name: string; namespace: string };
  eventTime: string;
  series?: { count: number; lastObservedTime: string };
  reportingController: string;
  reportingInstance: string;
  action: string;
  reason: string;
  regarding: { kind: string; apiVersion?: string; name: string; namespace: string; uid?: string; fieldPath?: string };
  note: string;
  type: string;
}

describeK8s("kubernetes: the exit reporter's Events against a real API server", () => {
  let cluster: Cluster;
  let reporterConfig: string;
  let work: string;
  const uids = new Map<string, string>();
  const reporters: ExitReporter[] = [];
  const lines: string[] = [];
  let sequence = 0;

  /** A reporter of this process, its JSON-lines output off, the Kubernetes output with `kubernetes`'s settings. */
  async function reporter(kubernetes: string, extra = "", oom = "{check: false}"): Promise<ExitReporter> {
    const logger = createLogger({
      stream: {
        write: (line: string) => {
          lines.push(line);
          return true;
        },
      },
    });
    const started = new ExitReporter({ logger });
    await started.configure(
      decodeConfig(
        `jsonLines: false\ngrpc: {listen: ${join(work, `exits-${reporters.length}.sock`)}}\noom: ${oom}\nprometheus: {listen: "127.0.0.1:0"}\nkubernetes: ${kubernetes}\n${extra}`,
      ),
    );
    reporters.push(started);
    return started;
  }

  /** The end of container `name` of pod `pod` (`uid` from the API when the pod exists), as containerd 2.4 sends it. */
  function end(reporter: ExitReporter, pod: string, name: string, exitCode: number, args = ["sh", "-c", "run-app"]) {
    // now, as a real end's time (kubectl shows the Events' ages): a millisecond apart, each its own
    const finished = BigInt(Date.now()) * 1_000_000n + BigInt(++sequence) * 1_000n;
    return reporter.containerEnded(
      "StopContainer",
      PodSandbox.fromPartial({ namespace: NS, name: pod, uid: uids.get(pod) ?? `uid-${pod}` }),
      Container.fromPartial({
        id: `ctr-${pod}-${name}-${sequence}`,
        name,
        args,
        env: ["PATH=/usr/local/bin:/usr/bin:/bin"],
        createdAt: finished - 3n * S,
        startedAt: finished - 2n * S,
        finishedAt: finished,
        exitCode,
      }),
    );
  }

  const events = async (pod?: string): Promise<Event[]> =>
    (await cluster.kubectl.json<{ items: Event[] }>(["get", "events.v1.events.k8s.io", "-n", NS])).items.filter(
      (event) =>
        event.reportingController === "nri-ts.dev/exit-reporter" && (pod === undefined || event.regarding.name === pod),
    );

  const metric = async (reporter: ExitReporter, name: string): Promise<string[]> => {
    const metrics = reporter.activeOutputs.find((output) => output.name === "prometheus") as PrometheusOutput;
    return (await metrics.registry.metrics()).split("\n").filter((line) => line.startsWith(name));
  };

  /** Stops the API server, as an outage would; `start` brings it back with the same command line. */
  function stopApiServer(): { start: () => Promise<void> } {
    const daemons = cluster.plane.daemons;
    const at = daemons.findIndex((daemon) => daemon.name === "kube-apiserver" && daemon.running);
    const old = daemons[at] as Daemon;
    const [command, ...args] = commandLine(old.pid);
    old.stop();
    return {
      start: async () => {
        daemons.push(Daemon.start("kube-apiserver", command as string, args, { dir: cluster.plane.dir }));
        await cluster.kubectl.until("the API server to be ready again", async () => {
          return (await cluster.kubectl.run(["get", "--raw", "/readyz"], { timeoutMs: 10_000 })).trim() === "ok";
        });
      },
    };
  }

  beforeAll(async () => {
    cluster = await Cluster.start({ label: "exit-reporter-api", nodes: 0 });
    work = mkdtempSync(join(cluster.dir, "reporter-"));
    // the reporter's own manifests: its ServiceAccount and RBAC (the DaemonSet has no node to run on)
    await cluster.kubectl.run(["apply", "-k", localOverlay("exit-reporter")]);
    await cluster.kubectl.run(["create", "namespace", NS]);
    const token = (
      await cluster.kubectl.run([
        "create",
        "token",
        "nri-plugin-exit-reporter",
        "-n",
        PLUGIN_NAMESPACE,
        "--duration=2h",
      ])
    ).trim();
    reporterConfig = join(work, "reporter.kubeconfig");
    kubeconfig(reporterConfig, cluster.plane.server, cluster.plane.pki.caCert, token);
    // pods the Events are about: a scheduler without nodes leaves them Pending, which is all describe needs
    for (const pod of ["web", "loader", "setup", "oom"]) {
      await cluster.kubectl.apply({
        apiVersion: "v1",
        kind: "Pod",
        metadata: { name: pod, namespace: NS },
        spec: { containers: [{ name: "app", image: "busybox" }] },
      });
      uids.set(
        pod,
        (await cluster.kubectl.run(["get", "pod", pod, "-n", NS, "-o", "jsonpath={.metadata.uid}"])).trim(),
      );
    }
  }, 600_000);
  afterEach((context) => {
    // the reporters' log is the evidence of what went wrong
    if (context.task.result?.state === "fail")
      console.log(`k8s: the reporters' last log lines:\n${lines.slice(-40).join("")}`);
  });
  afterAll(async () => {
    await Promise.all(reporters.map((r) => r.close()));
    cluster?.teardown();
  });

  it("creates one Event per end with the issue's fields, as the reporter's ServiceAccount", async () => {
    const exits = await reporter(`{kubeconfig: ${reporterConfig}, node: node-7}`);
    await end(exits, "web", "app", 127, ["sh", "-c", "migrate-db --all"]);
    await end(exits, "web", "warmup", 0);
    const [event] = await cluster.kubectl.until("the Event of web/app", async () => {
      const found = await events("web");
      return found.length > 0 && found;
    });
    expect(event).toMatchObject({
      metadata: { namespace: NS, name: expect.stringMatching(/^web\.[0-9a-f]+$/) },
      eventTime: expect.stringMatching(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{6}Z$/),
      reportingController: "nri-ts.dev/exit-reporter",
      reportingInstance: "node-7",
      action: "ContainerEnded",
      reason: "Error",
      type: "Warning",
      regarding: {
        kind: "Pod",
        apiVersion: "v1",
        namespace: NS,
        name: "web",
        uid: uids.get("web"),
        fieldPath: "spec.containers{app}",
      },
      note: "exited with code 127 (command not found): the container couldn't find the command migrate-db (the first of its script) in its PATH (/usr/local/bin:/usr/bin:/bin); command: sh -c 'migrate-db --all'; ran for 2s",
    });
    expect(event?.series).toBeUndefined();
    // the clean end is not sent (every non-zero end is, by default)
    expect(await events("web")).toHaveLength(1);
    // core/v1, as kubectl get events shows it
    const core = await cluster.kubectl.run([
      ...["get", "events", "-n", NS, "--field-selector", "involvedObject.name=web"],
      ...["-o", "custom-columns=TYPE:.type,REASON:.reason,OBJECT:.involvedObject.fieldPath,MESSAGE:.message"],
    ]);
    console.log(`k8s: kubectl get events --field-selector involvedObject.name=web\n${core}`);
    expect(core).toContain("couldn't find the command migrate-db");
    expect(await metric(exits, "nri_exit_reporter_kubernetes_requests_total")).toContain(
      'nri_exit_reporter_kubernetes_requests_total{operation="create",outcome="ok"} 1',
    );
  });

  it("repeats are a series: the same container ending the same way raises one Event's count", async () => {
    const exits = await reporter(`{kubeconfig: ${reporterConfig}}`);
    for (let i = 0; i < 4; i++) await end(exits, "loader", "crash", 1);
    const event = await cluster.kubectl.until("the series of loader/crash at 4", async () => {
      const [found, ...more] = await events("loader");
      expect(more).toEqual([]);
      return found?.series?.count === 4 && found;
    });
    expect(event.series?.lastObservedTime).toMatch(/Z$/);
    const describe = await cluster.kubectl.run(["describe", "pod", "loader", "-n", NS]);
    console.log(`k8s: kubectl describe pod loader:\n${describe.slice(describe.indexOf("Events:"))}`);
    expect(describe).toMatch(
      /Warning\s+Error\s+.*\(x4 over .*\)\s+nri-ts\.dev\/exit-reporter.*exited with code 1 \(general error\)/,
    );
  });

  it("a cause another plugin attaches (a setup step that failed) reaches the pod's events", async () => {
    const exits = await reporter(`{kubeconfig: ${reporterConfig}}`);
    let connection: ExitReporterConnection | undefined;
    try {
      connection = connectExitReporter(join(work, `exits-${reporters.length - 1}.sock`));
      await connection.client.attachCause({
        containerId: `ctr-setup-app-${sequence + 1}`,
        declaredBy: "10-gpu-setup",
        reason: "SetupFailed",
        message: "failed to start a user-defined container: the GPU driver did not load",
      });
    } finally {
      connection?.close();
    }
    await end(exits, "setup", "app", 137);
    const describe = await cluster.kubectl.until("the cause in kubectl describe pod setup", async () => {
      const text = await cluster.kubectl.run(["describe", "pod", "setup", "-n", NS]);
      return text.includes("SetupFailed") && text;
    });
    console.log(`k8s: kubectl describe pod setup:\n${describe.slice(describe.indexOf("Events:"))}`);
    expect(describe).toMatch(
      /Warning\s+SetupFailed\s+.*nri-ts\.dev\/exit-reporter.*stopped by plugin 10-gpu-setup: failed to start a user-defined container: the GPU driver did not load \(exit 137, SIGKILL\)/,
    );
  });

  it("a SIGKILL the reporter could not confirm as an OOM kill: the pod's status saying OOMKilled makes its Event one", async () => {
    // the OOM check on, and nothing for it to read (no cgroup path, no kernel log): not confirmed
    const exits = await reporter(`{kubeconfig: ${reporterConfig}}`, "", "{check: true, kernelLog: false}");
    const record = await end(exits, "oom", "app", 137);
    expect(record?.explanation).toMatch(
      /^killed by SIGKILL \(exit 137\) \(OOM not confirmed: the runtime sent no cgroup path/,
    );
    // then the kubelet writes the end in the pod's status, as it does a moment after an OOM kill the runtime saw
    const finished = new Date().toISOString().replace(/\.\d+Z$/, "Z");
    await cluster.kubectl.run([
      ...["patch", "pod", "oom", "-n", NS, "--subresource=status", "--type=merge", "-p"],
      JSON.stringify({
        status: {
          containerStatuses: [
            {
              name: "app",
              image: "busybox",
              imageID: "",
              ready: false,
              restartCount: 1,
              state: { waiting: { reason: "CrashLoopBackOff" } },
              lastState: {
                terminated: {
                  exitCode: 137,
                  reason: "OOMKilled",
                  containerID: `containerd://${record?.container?.id}`,
                  startedAt: finished,
                  finishedAt: finished,
                },
              },
            },
          ],
        },
      }),
    ]);
    const [event] = await cluster.kubectl.until("the Event of oom/app", async () => {
      const found = await events("oom");
      return found.length > 0 && found;
    });
    expect(event).toMatchObject({
      reason: "OOMKilled",
      note: expect.stringMatching(
        /^killed by the out-of-memory killer \(exit 137, SIGKILL\), as the runtime told the kubelet: the pod's status says OOMKilled \(the reporter could not confirm it itself: the runtime sent no cgroup path/,
      ),
    });
    expect(await events("oom")).toHaveLength(1);
  });

  it("50 containers end while the API server is stopped: all 50 arrive when it is back, none twice", async () => {
    const exits = await reporter(`{kubeconfig: ${reporterConfig}}`);
    const outage = stopApiServer();
    // 10 pods of 5 containers: within each pod's burst of writes
    for (let i = 0; i < 50; i++) await end(exits, `away-${i % 10}`, `c${i}`, 2);
    await expect
      .poll(() => lines.some((line) => line.includes("does not take Events")), { timeout: 60_000 })
      .toBe(true);
    await outage.start();
    const arrived = await cluster.kubectl.until(
      "the 50 Events",
      async () => {
        const found = (await events()).filter((event) => event.regarding.name.startsWith("away-"));
        return found.length >= 50 && found;
      },
      180_000,
    );
    expect(arrived).toHaveLength(50);
    expect(new Set(arrived.map((event) => `${event.regarding.name} ${event.regarding.fieldPath}`)).size).toBe(50);
    expect(arrived.every((event) => event.series === undefined)).toBe(true);
    expect(await metric(exits, "nri_exit_reporter_dropped_records_total")).toEqual([]);
    expect(lines.some((line) => line.includes("answers again after"))).toBe(true);
  }, 300_000);

  it("past the bound the oldest are dropped and counted in the Prometheus metric, logged once per burst", async () => {
    const exits = await reporter(`{kubeconfig: ${reporterConfig}, queue: {maxEvents: 10}}`);
    const before = lines.length;
    const outage = stopApiServer();
    for (let i = 0; i < 25; i++) await end(exits, `bound-${i % 5}`, `c${i}`, 2);
    // the oldest may be in flight (refused, its retry waiting) outside the queue: it is dropped when it returns to it
    await expect
      .poll(() => metric(exits, "nri_exit_reporter_dropped_records_total"), { timeout: 60_000 })
      .toEqual(['nri_exit_reporter_dropped_records_total{output="kubernetes"} 15']);
    // the first loss at once, the rest of the burst in one summary (after 10 s)
    const losses = lines.slice(before).filter((line) => line.includes("kubernetes output lost"));
    expect(losses.length).toBeGreaterThanOrEqual(1);
    expect(losses.length).toBeLessThanOrEqual(2);
    expect(losses[0]).toContain("kubernetes output lost 1 record: its queue is full (10 entries or 1048576 bytes)");
    await outage.start();
    const arrived = await cluster.kubectl.until(
      "the 10 newest Events",
      async () => {
        const found = (await events()).filter((event) => event.regarding.name.startsWith("bound-"));
        return found.length >= 10 && found;
      },
      180_000,
    );
    expect(arrived.map((event) => event.regarding.fieldPath).sort()).toEqual(
      Array.from({ length: 10 }, (_, i) => `spec.containers{c${i + 15}}`).sort(),
    );
  }, 300_000);

  it("a token without RBAC: an error at start, then each Event refused (403), logged and counted, nothing else stops", async () => {
    // the namespace's default ServiceAccount may do nothing
    const token = (await cluster.kubectl.run(["create", "token", "default", "-n", NS])).trim();
    const config = join(work, "unbound.kubeconfig");
    kubeconfig(config, cluster.plane.server, cluster.plane.pki.caCert, token);
    const before = lines.length;
    const exits = await reporter(`{kubeconfig: ${config}}`);
    await expect
      .poll(() => lines.slice(before).find((line) => line.includes("may not create events.events.k8s.io")))
      .toContain('"level":"error"');
    const record = await end(exits, "web", "denied", 1);
    expect(record?.explanation).toMatch(/^exited with code 1/);
    await expect
      .poll(() => metric(exits, "nri_exit_reporter_dropped_records_total"))
      .toEqual(['nri_exit_reporter_dropped_records_total{output="kubernetes"} 1']);
    expect(await metric(exits, "nri_exit_reporter_kubernetes_requests_total")).toContain(
      'nri_exit_reporter_kubernetes_requests_total{operation="create",outcome="403"} 1',
    );
    expect(lines.slice(before).find((line) => line.includes("kubernetes output lost 1 record"))).toMatch(
      /the API server refused the Event Error on pod shop\/web: 403 Forbidden: .*cannot create resource \\"events\\" in API group \\"events\.k8s\.io\\"/,
    );
  });
});
