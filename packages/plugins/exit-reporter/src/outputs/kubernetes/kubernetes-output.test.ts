import { afterEach, describe, expect, it } from "vitest";
import { type DeepPartial, ExitRecord, OomVerdict, Source } from "../../gen/nri_ts/exit_reporter/v1/exit_reporter.js";
import { capture } from "../../testing/captured-logger.js";
import { MemoryKubeApi, outputOptions } from "../../testing/memory-kube-api.js";
import {
  AUTHORIZER_WARMUP_MS,
  KubernetesOutput,
  type KubernetesOutputOptions,
  LAST_END_ANNOTATION,
} from "./kubernetes-output.js";

const S = 1_000_000_000n;
const FINISHED = 1_796_138_504_224_121_506n;

function ended(fields: DeepPartial<ExitRecord> = {}): ExitRecord {
  return ExitRecord.fromPartial({
    sequence: 1n,
    reportedAt: FINISHED + S,
    event: "StopContainer",
    pod: { namespace: "shop", name: "web", uid: "uid-web" },
    container: { name: "app", id: "ctr1", image: "busybox" },
    exitCode: 3,
    reason: "Error",
    finishedAt: FINISHED,
    explanation: "exited with code 3: the configuration file is missing (as the pod declares); ran for 3s",
    ...fields,
  });
}

let outputs: KubernetesOutput[] = [];
afterEach(async () => {
  await Promise.all(outputs.map((output) => output.close(0)));
  outputs = [];
});

function start(api: MemoryKubeApi, options: Partial<KubernetesOutputOptions> = {}) {
  const drops: { output: string; records: number; why: string }[] = [];
  const output = new KubernetesOutput(
    outputOptions(api, {
      onDrop: (output, records, why) => drops.push({ output, records, why }),
      retry: { minMs: 5, maxMs: 20 },
      ...options,
    }),
  );
  outputs.push(output);
  const dropped = () => drops.reduce((sum, drop) => sum + drop.records, 0);
  return { output, drops, dropped };
}

describe("one Event per container end, on the pod", () => {
  it("has the fields the issue names: regarding the pod and container, reason, note, type, controller, instance", async () => {
    const api = new MemoryKubeApi();
    const { output } = start(api);
    output.publish(ended());
    await expect.poll(() => api.events.size).toBe(1);
    const [event] = api.events.values();
    expect(event).toEqual({
      apiVersion: "events.k8s.io/v1",
      kind: "Event",
      metadata: { name: `web.${(FINISHED + S).toString(16)}`, namespace: "shop" },
      eventTime: "2026-12-01T15:21:44.224121Z",
      reportingController: "nri-ts.dev/exit-reporter",
      reportingInstance: "node-1",
      action: "ContainerEnded",
      reason: "Error",
      regarding: {
        apiVersion: "v1",
        kind: "Pod",
        namespace: "shop",
        name: "web",
        uid: "uid-web",
        fieldPath: "spec.containers{app}",
      },
      note: "exited with code 3: the configuration file is missing (as the pod declares); ran for 3s",
      type: "Warning",
    });
  });

  it("sends every non-zero end by default (an unknown code too); `all` adds the clean ones, as Normal", async () => {
    const api = new MemoryKubeApi();
    const { output } = start(api);
    output.publish(ended({ exitCode: 0, reason: "Completed", explanation: "exited normally (code 0)" }));
    output.publish(ended({ container: { name: "unknown" }, exitCode: undefined, reason: "" }));
    await expect.poll(() => api.events.size).toBe(1);
    expect([...api.events.values()][0]).toMatchObject({ reason: "Ended", type: "Warning" });

    const everything = new MemoryKubeApi();
    start(everything, { events: "all" }).output.publish(
      ended({ exitCode: 0, reason: "Completed", explanation: "exited normally (code 0)" }),
    );
    await expect.poll(() => everything.events.size).toBe(1);
    expect([...everything.events.values()][0]).toMatchObject({ reason: "Completed", type: "Normal" });
  });

  it("cuts the note to the API server's 1024 bytes, and names the cut", async () => {
    const api = new MemoryKubeApi();
    start(api).output.publish(ended({ explanation: `exited with code 3: ${"é".repeat(3000)}` }));
    await expect.poll(() => api.events.size).toBe(1);
    const { note } = [...api.events.values()][0]!;
    expect(Buffer.byteLength(note)).toBeLessThanOrEqual(1024);
    expect(note).toMatch(/more bytes\]$/);
  });

  it("skips a record without a pod: there is no object to put it on", async () => {
    const api = new MemoryKubeApi();
    const { output } = start(api);
    output.publish(ended({ pod: { namespace: "", name: "", uid: "" } }));
    output.publish(ended({ container: { name: "next" } }));
    await expect.poll(() => api.events.size).toBe(1);
  });
});

describe("repeats are a series", () => {
  it("the same container ending the same way again raises one Event's series count", async () => {
    const api = new MemoryKubeApi();
    const { output } = start(api);
    output.publish(ended({ sequence: 1n }));
    await expect.poll(() => api.events.size).toBe(1);
    output.publish(ended({ sequence: 2n, reportedAt: FINISHED + 5n * S, finishedAt: FINISHED + 4n * S }));
    await expect.poll(() => [...api.events.values()][0]?.series?.count).toBe(2);
    output.publish(ended({ sequence: 3n, reportedAt: FINISHED + 9n * S, finishedAt: FINISHED + 8n * S }));
    await expect
      .poll(() => [...api.events.values()][0]?.series)
      .toEqual({
        count: 3,
        lastObservedTime: "2026-12-01T15:21:52.224121Z",
      });
    expect(api.events.size).toBe(1);
    // another reason or another code is another series
    output.publish(ended({ exitCode: 137, signal: "SIGKILL", reason: "OOMKilled" }));
    await expect.poll(() => api.events.size).toBe(2);
  });

  it("repeats while the first is still waiting are sent as one Event with their count", async () => {
    const api = new MemoryKubeApi();
    api.down = true;
    const { output } = start(api);
    for (let i = 0; i < 5; i++) output.publish(ended({ sequence: BigInt(i + 1) }));
    expect(output.waiting).toBe(1);
    api.down = false;
    await expect.poll(() => [...api.events.values()][0]?.series?.count).toBe(5);
    expect(api.events.size).toBe(1);
  });
});

describe("nothing lost while the API server is away", () => {
  it("50 containers end while it is away: all 50 arrive when it answers again, each once", async () => {
    const api = new MemoryKubeApi();
    api.down = true;
    const { output, dropped } = start(api);
    // in 10 pods: a pod writes 25 at once (the rate limit); retries while it is away take none of them
    for (let i = 0; i < 50; i++)
      output.publish(
        ended({
          sequence: BigInt(i + 1),
          pod: { namespace: "shop", name: `web-${i % 10}`, uid: `uid-${i % 10}` },
          container: { name: `c${i}` },
        }),
      );
    await expect.poll(() => api.calls.length).toBeGreaterThan(30);
    expect(api.events.size).toBe(0);
    api.down = false;
    await expect.poll(() => api.events.size).toBe(50);
    expect(new Set([...api.events.values()].map((event) => event.regarding.fieldPath)).size).toBe(50);
    expect([...api.events.values()].every((event) => event.series === undefined)).toBe(true);
    expect(dropped()).toBe(0);
  });

  it("a create the server took without answering is not sent twice (its name is fixed)", async () => {
    const api = new MemoryKubeApi();
    api.loseAnswers = 1;
    const { output, dropped } = start(api);
    output.publish(ended());
    await expect.poll(() => api.calls.length).toBe(2);
    expect(api.calls[0]).toBe(api.calls[1]);
    expect(api.events.size).toBe(1);
    expect(dropped()).toBe(0);
  });

  it("past the bound the oldest are dropped, counted and said why; the newest arrive", async () => {
    const api = new MemoryKubeApi();
    api.down = true;
    const { output, drops, dropped } = start(api, { queue: { maxItems: 10, maxBytes: 1 << 20 } });
    for (let i = 0; i < 25; i++) output.publish(ended({ sequence: BigInt(i + 1), container: { name: `c${i}` } }));
    expect(dropped()).toBe(15);
    expect(drops[0]?.why).toMatch(/^its queue is full \(10 entries or 1048576 bytes\).*: the oldest went$/);
    api.down = false;
    await expect.poll(() => api.events.size).toBe(10);
    expect([...api.events.values()].map((event) => event.regarding.fieldPath)).toEqual(
      Array.from({ length: 10 }, (_, i) => `spec.containers{c${i + 15}}`),
    );
  });

  it("bounds the bytes too", () => {
    const api = new MemoryKubeApi();
    api.down = true;
    const { output, dropped } = start(api, { queue: { maxItems: 1000, maxBytes: 4096 } });
    for (let i = 0; i < 20; i++) output.publish(ended({ container: { name: `c${i}` }, explanation: "x".repeat(900) }));
    expect(output.waiting).toBeLessThan(5);
    expect(dropped() + output.waiting).toBe(20);
  });
});

describe("refusals and limits", () => {
  it("a 403 is logged and counted per Event, and the output goes on", async () => {
    const api = new MemoryKubeApi();
    api.forbidden = true;
    const { output, drops } = start(api);
    output.publish(ended());
    await expect.poll(() => drops.length).toBe(1);
    expect(drops[0]).toEqual({
      output: "kubernetes",
      records: 1,
      why: 'the API server refused the Event Error on pod shop/web: 403 Forbidden: events.events.k8s.io is forbidden: User "system:serviceaccount:kube-system:default" cannot create resource "events" in API group "events.k8s.io" (is nri-ts.dev/exit-reporter\'s ClusterRole bound to the reporter\'s service account?)',
    });
    api.forbidden = false;
    output.publish(ended({ container: { name: "next" } }));
    await expect.poll(() => api.events.size).toBe(1);
  });

  it("403s from a server that just came back are retried while its authorizer loads RBAC; later ones are not", async () => {
    let now = 1_000_000;
    const api = new MemoryKubeApi();
    api.down = true;
    const { output, dropped } = start(api, { now: () => now });
    output.publish(ended());
    await expect.poll(() => api.calls.length).toBeGreaterThan(2);
    // back, but refusing at first, as a restarted kube-apiserver does for a few seconds
    api.down = false;
    api.forbidden = true;
    const calls = api.calls.length;
    await expect.poll(() => api.calls.length).toBeGreaterThan(calls + 2);
    expect(dropped()).toBe(0);
    api.forbidden = false;
    await expect.poll(() => api.events.size).toBe(1);
    expect(dropped()).toBe(0);
    // past the warm-up, a 403 is the server's answer: dropped and counted at once
    now += AUTHORIZER_WARMUP_MS;
    api.forbidden = true;
    output.publish(ended({ container: { name: "later" } }));
    await expect.poll(() => dropped()).toBe(1);
  });

  it("limits writes per pod: what waits for a token is sent later, a repeat folds into its count, other pods go on", async () => {
    let now = 0;
    const api = new MemoryKubeApi();
    const { output, dropped } = start(api, {
      rateLimits: { pod: { burst: 2, refillMs: 60_000 }, overall: { burst: 100, refillMs: 1 } },
      now: () => now,
    });
    for (const name of ["a", "b", "c"]) output.publish(ended({ container: { name } }));
    await expect.poll(() => api.events.size).toBe(2);
    output.publish(ended({ container: { name: "a" } }));
    output.publish(ended({ pod: { namespace: "shop", name: "other", uid: "uid-other" } }));
    await expect.poll(() => api.eventsOf("other").length).toBe(1);
    expect(api.eventsOf("web")).toHaveLength(2);
    expect(output.waiting).toBe(2);
    now += 60_000;
    output.publish(ended({ container: { name: "a" } }));
    await expect.poll(() => api.eventsOf("web").length).toBe(3);
    now += 60_000;
    output.publish(ended({ container: { name: "d" }, exitCode: 0 })); // not sent: wakes the output
    await expect
      .poll(() => api.eventsOf("web").find((e) => e.regarding.fieldPath.endsWith("{a}"))?.series?.count)
      .toBe(3);
    expect(dropped()).toBe(0);
  });
});

it("optionally keeps the last end of each container as an annotation of its pod", async () => {
  const api = new MemoryKubeApi();
  const { output } = start(api, { podAnnotations: true, events: "none" });
  output.publish(ended({ exitCode: 0, reason: "Completed", explanation: "exited normally (code 0)" }));
  await expect.poll(() => api.pods.get("shop/web")).toBeDefined();
  expect(JSON.parse(api.pods.get("shop/web")![`${LAST_END_ANNOTATION}/app`]!)).toEqual({
    exitCode: 0,
    reason: "Completed",
    finishedAt: "2026-12-01T15:21:44.224121Z",
    explanation: "exited normally (code 0)",
  });
  expect(api.events.size).toBe(0);
});

it("close waits a little for the queue, then counts what is left", async () => {
  const api = new MemoryKubeApi();
  api.down = true;
  const { output, drops } = start(api);
  output.publish(ended());
  await output.close(0);
  expect(drops).toEqual([
    { output: "kubernetes", records: 1, why: "the reporter stopped before the API server took them" },
  ]);
});

describe("a SIGKILL the reporter could not confirm as an OOM kill: the pod's status", () => {
  const unconfirmed = (id: string) =>
    ended({
      container: { name: "app", id, image: "busybox" },
      exitCode: 137,
      signal: "SIGKILL",
      reason: "Error",
      reasonSource: Source.SOURCE_INFERRED,
      runTimeNs: 1_200_000_000n,
      oom: {
        verdict: OomVerdict.OOM_VERDICT_UNKNOWN,
        evidence: `the container's cgroup /k8s.io/${id} was being removed`,
      },
      explanation: `killed by SIGKILL (exit 137) (OOM not confirmed: the container's cgroup /k8s.io/${id} was being removed); ran for 1.2s`,
    });
  const wait = { attempts: 5, intervalMs: 10 };

  it("waits for the kubelet's word, and OOMKilled there makes the Event an OOM kill, the reporter's own check kept", async () => {
    const api = new MemoryKubeApi();
    start(api, { oomFromPodStatus: { attempts: 200, intervalMs: 10 }, podAnnotations: true }).output.publish(
      unconfirmed("ctr1"),
    );
    // the kubelet has not put the end in the pod's status yet
    await expect.poll(() => api.calls.filter((call) => call === "get pod shop/web").length).toBeGreaterThanOrEqual(2);
    expect(api.events.size).toBe(0);
    api.terminations.set("ctr1", { reason: "OOMKilled", exitCode: 137 });
    await expect.poll(() => api.events.size).toBe(1);
    expect([...api.events.values()][0]).toMatchObject({
      reason: "OOMKilled",
      type: "Warning",
      note: "killed by the out-of-memory killer (exit 137, SIGKILL), as the runtime told the kubelet: the pod's status says OOMKilled (the reporter could not confirm it itself: the container's cgroup /k8s.io/ctr1 was being removed); ran for 1.2s",
    });
    await expect.poll(() => api.pods.get("shop/web")?.[`${LAST_END_ANNOTATION}/app`]).toContain('"reason":"OOMKilled"');
  });

  it("goes as the reporter made it when the status says another reason, says nothing in time, or cannot be read", async () => {
    const api = new MemoryKubeApi();
    api.terminations.set("killed", { reason: "Error", exitCode: 137 });
    const { output } = start(api, { oomFromPodStatus: wait });
    output.publish(unconfirmed("killed"));
    output.publish(ended({ ...unconfirmed("silent"), pod: { namespace: "shop", name: "silent", uid: "uid-silent" } }));
    await expect.poll(() => api.events.size).toBe(2);
    expect([...api.events.values()].map((event) => event.reason)).toEqual(["Error", "Error"]);
    expect(api.calls.filter((call) => call === "get pod shop/silent")).toHaveLength(wait.attempts);

    const refusing = new MemoryKubeApi();
    refusing.forbidden = true;
    const { output: refused, drops } = start(refusing, { oomFromPodStatus: wait });
    refused.publish(unconfirmed("ctr2"));
    // one read: a 403 does not go away by waiting; then the Event goes (and is refused too, here)
    await expect.poll(() => drops.length).toBe(1);
    expect(refusing.calls.filter((call) => call.startsWith("get pod"))).toHaveLength(1);
  });

  it("a pod deleted (its container killed at the end of its grace period) is read once, and says nothing", async () => {
    const api = new MemoryKubeApi();
    api.deletedPods.add("shop/web");
    const { logger, messages } = capture();
    start(api, { oomFromPodStatus: wait, logger }).output.publish(unconfirmed("ctr5"));
    await expect.poll(() => api.events.size).toBe(1);
    expect(api.calls.filter((call) => call.startsWith("get pod"))).toHaveLength(1);
    expect([...api.events.values()][0]?.reason).toBe("Error");
    expect(messages().filter((message) => message.includes("status"))).toEqual([]);
  });

  it("is not read for other ends, nor when not asked", async () => {
    const api = new MemoryKubeApi();
    const { output } = start(api, { oomFromPodStatus: wait });
    output.publish(ended());
    output.publish(ended({ ...unconfirmed("confirmed"), oom: { verdict: OomVerdict.OOM_VERDICT_CONFIRMED } }));
    output.publish(ended({ ...unconfirmed("caused"), reasonSource: Source.SOURCE_PLUGIN, reason: "Evicted" }));
    const plain = new MemoryKubeApi();
    start(plain).output.publish(unconfirmed("ctr3"));
    await expect.poll(() => api.events.size + plain.events.size).toBe(4);
    expect([...api.calls, ...plain.calls].filter((call) => call.startsWith("get pod"))).toEqual([]);
  });

  it("a close ends the wait: the end goes as it is", async () => {
    const api = new MemoryKubeApi();
    const { output } = start(api, { oomFromPodStatus: { attempts: 1000, intervalMs: 50 } });
    output.publish(unconfirmed("ctr4"));
    await expect.poll(() => api.calls.length).toBeGreaterThan(0);
    await output.close(1000);
    expect([...api.events.values()].map((event) => event.reason)).toEqual(["Error"]);
  });
});
