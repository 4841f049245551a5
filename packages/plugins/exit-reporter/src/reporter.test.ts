import { mkdir, mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { Container, ContainerState, PodSandbox } from "@nri-ts/api";
import { ServerError, Status } from "nice-grpc-common";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { decodeConfig } from "./config.js";
import { BurstLog, recordsLost } from "./burst-log.js";
import { capture } from "./testing/captured-logger.js";
import {
  type AttachCauseRequest,
  type ExitRecord,
  OomVerdict,
  Source,
} from "./gen/nri_ts/exit_reporter/v1/exit_reporter.js";
import { CAUSE_LIMITS } from "./record/causes.js";
import type { ExitOutput } from "./outputs/output.js";
import { ExitReporter } from "./reporter.js";

/** An output of our own (ExitReporterOptions.outputs) that keeps what it is given. */
function keeping(): ExitOutput & { records: ExitRecord[] } {
  const records: ExitRecord[] = [];
  return { name: "kept", records, publish: (record) => void records.push(record), close: async () => {} };
}

const pod = PodSandbox.fromPartial({ id: "p1", name: "web", namespace: "shop", uid: "u1" });
const S = 1_000_000_000n;

function ended(id: string, exitCode: number): Container {
  return Container.fromPartial({
    id,
    name: "app",
    state: ContainerState.CONTAINER_STOPPED,
    args: ["app"],
    startedAt: 10n * S,
    finishedAt: 12n * S,
    exitCode,
    linux: { cgroupsPath: `/k8s.io/${id}` },
  });
}

let reporter: ExitReporter | undefined;
afterEach(async () => {
  await reporter?.close();
  reporter = undefined;
});

describe("causes attached over gRPC", () => {
  const config = decodeConfig("jsonLines: false\ngrpc: false\noom: {check: false}\n");

  it("explain the exit they were attached for, once", async () => {
    const kept = keeping();
    reporter = new ExitReporter({ outputs: [kept] });
    await reporter.configure(config);
    reporter.attachCause({
      containerId: "c1",
      declaredBy: "10-evictor",
      reason: "Evicted",
      message: "node memory pressure",
      exitCodes: [],
      ttlSeconds: 0,
    });
    await reporter.containerEnded("StopContainer", pod, ended("c1", 137));
    expect(kept.records[0]).toMatchObject({
      reason: "Evicted",
      reasonSource: Source.SOURCE_PLUGIN,
      declaredBy: "10-evictor",
    });
    expect(kept.records[0].explanation).toBe(
      "stopped by plugin 10-evictor: node memory pressure (exit 137, SIGKILL); ran for 2s",
    );
  });

  it("are refused when bad, or when the end was reported already", async () => {
    reporter = new ExitReporter({ outputs: [keeping()] });
    await reporter.configure(config);
    const attach = (fields: Partial<Parameters<ExitReporter["attachCause"]>[0]>) => () =>
      reporter!.attachCause({
        containerId: "c1",
        declaredBy: "10-x",
        reason: "Evicted",
        message: "",
        exitCodes: [],
        ttlSeconds: 0,
        ...fields,
      });
    expect(attach({ containerId: "" })).toThrow(new ServerError(Status.INVALID_ARGUMENT, "container_id: required"));
    expect(attach({ reason: "evicted by me" })).toThrow(/^INVALID_ARGUMENT: reason: expected a short CamelCase word/);
    expect(attach({ declaredBy: "" })).toThrow(expect.objectContaining({ code: Status.INVALID_ARGUMENT }));
    await reporter.containerEnded("StopContainer", pod, ended("c1", 1));
    expect(attach({})).toThrow(
      new ServerError(Status.FAILED_PRECONDITION, "container c1 has ended already and was reported (record 1)"),
    );
  });

  it("are refused as INVALID_ARGUMENT, not with a TypeError, when the request is a plain object that is no request", async () => {
    reporter = new ExitReporter({ outputs: [keeping()] });
    await reporter.configure(config);
    const attach = (request: unknown) => () => reporter!.attachCause(request as AttachCauseRequest);
    const refused = (message: string) => new ServerError(Status.INVALID_ARGUMENT, message);
    const cause = { containerId: "c1", declaredBy: "10-x", reason: "Evicted" };
    expect(attach(null)).toThrow(refused("expected an AttachCause request, got null"));
    expect(attach({ declaredBy: "10-x", reason: "Evicted" })).toThrow(refused("container_id: required"));
    expect(attach({ ...cause, containerId: 7 })).toThrow(refused("container_id: expected a text, got 7"));
    expect(attach({ containerId: "c1", declaredBy: "10-x" })).toThrow(refused("reason: required"));
    expect(attach({ ...cause, declaredBy: ["10-x"] })).toThrow(refused("declared_by: expected a text, got a list"));
    expect(attach({ ...cause, message: 3 })).toThrow(refused("message: expected a text, got 3"));
    expect(attach({ ...cause, exitCodes: "137" })).toThrow(
      refused('exit_codes: expected a list of exit codes, got "137"'),
    );
    expect(attach({ ...cause, exitCodes: ["137"] })).toThrow(refused("exit_codes: expected whole numbers, got 137"));
    expect(attach({ ...cause, ttlSeconds: -1 })).toThrow(
      refused("ttl_seconds: expected a whole number of seconds, got -1"),
    );
    // absent optional fields mean what absent protobuf fields mean
    expect(attach(cause)()).toEqual({ replaced: false });
  });

  it("are forgotten, oldest first, beyond the reporter's limits, and counted and logged", async () => {
    const { logger, messages } = capture();
    reporter = new ExitReporter({ outputs: [], logger });
    await reporter.configure(
      decodeConfig(
        "jsonLines: false\ngrpc: false\noom: {check: false}\ncauses: {maxContainers: 1}\nprometheus: {listen: '127.0.0.1:0'}\n",
      ),
    );
    const attach = (containerId: string, declaredBy: string) =>
      reporter!.attachCause({ containerId, declaredBy, reason: "Evicted", message: "", exitCodes: [], ttlSeconds: 0 });
    for (let i = 0; i < CAUSE_LIMITS.perContainer; i++) attach("c1", `${10 + i}-p`);
    expect(messages().filter((message) => message.startsWith("forgot"))).toEqual([]);
    attach("c1", "99-last");
    attach("c2", "10-p");
    const limits = `${CAUSE_LIMITS.perContainer} causes a container, 1 container, ${CAUSE_LIMITS.bytes} bytes in all`;
    // a burst is logged once, then summed up (here when the reporter closes), and every cause is counted
    expect(messages().filter((message) => message.startsWith("forgot"))).toEqual([
      `forgot 1 declared cause: the reporter keeps at most ${limits}`,
    ]);
    const port = (reporter.activeOutputs[0] as unknown as { port: number }).port;
    const text = await (await fetch(`http://127.0.0.1:${port}/metrics`)).text();
    expect(text).toContain(`nri_exit_reporter_forgotten_causes_total ${CAUSE_LIMITS.perContainer + 1}`);
    await reporter.close();
    expect(
      messages()
        .filter((message) => message.startsWith("forgot"))
        .slice(1),
    ).toEqual([
      `forgot ${CAUSE_LIMITS.perContainer} declared causes more in 10s (the last: all those of container c1; the reporter keeps at most ${limits})`,
    ]);
  });

  it("are refused before the reporter is configured", () => {
    reporter = new ExitReporter();
    expect(() =>
      reporter!.attachCause({
        containerId: "c1",
        declaredBy: "10-x",
        reason: "Evicted",
        message: "",
        exitCodes: [],
        ttlSeconds: 0,
      }),
    ).toThrow(new ServerError(Status.UNAVAILABLE, "the exit reporter is not configured yet"));
  });
});

describe("OOM kills the runtime does not name", () => {
  let root: string;
  beforeAll(async () => {
    root = await mkdtemp(join(tmpdir(), "exit-reporter-oom-"));
    await mkdir(join(root, "memory/k8s.io/killed"), { recursive: true });
    await writeFile(
      join(root, "memory/k8s.io/killed/memory.oom_control"),
      "oom_kill_disable 0\nunder_oom 0\noom_kill 1\n",
    );
    await writeFile(
      join(root, "kmsg"),
      "6,3002,6200357334,-;oom-kill:constraint=CONSTRAINT_MEMCG,nodemask=(null),cpuset=removed,mems_allowed=0,oom_memcg=/k8s.io/removed,task_memcg=/k8s.io/removed,task=sh,pid=7171,uid=0\n",
    );
  });
  afterAll(() => rm(root, { recursive: true, force: true }));

  it("are confirmed from the container's cgroup, and the cgroup is only asked when the exit calls for it", async () => {
    const kept = keeping();
    reporter = new ExitReporter({ outputs: [kept] });
    await reporter.configure(
      decodeConfig(`jsonLines: false\ngrpc: false\noom: {cgroupRoot: ${root}, kernelLog: ${join(root, "kmsg")}}\n`),
    );
    await reporter.containerEnded("StopContainer", pod, ended("killed", 137));
    await reporter.containerEnded("StopContainer", pod, ended("gone", 137));
    await reporter.containerEnded("StopContainer", pod, ended("clean", 0));
    await reporter.containerEnded("StopContainer", pod, { ...ended("named", 137), statusReason: "OOMKilled" });
    expect(
      kept.records.map((record) => [record.container?.id, record.reason, record.oom?.verdict, record.oom?.evidence]),
    ).toEqual([
      ["killed", "OOMKilled", OomVerdict.OOM_VERDICT_CONFIRMED, "cgroup v1 memory.oom_control: oom_kill 1"],
      [
        "gone",
        "Error",
        OomVerdict.OOM_VERDICT_UNKNOWN,
        "the container's cgroup /k8s.io/gone no longer exists; cgroup v1 counts an OOM kill only in the killed process's own cgroup, not in its pod's, and the kernel log has no OOM kill for it",
      ],
      ["clean", "Completed", OomVerdict.OOM_VERDICT_NOT_CHECKED, ""],
      ["named", "OOMKilled", OomVerdict.OOM_VERDICT_NOT_CHECKED, ""],
    ]);
    expect(kept.records[1].explanation).toBe(
      "killed by SIGKILL (exit 137) (OOM not confirmed: the container's cgroup /k8s.io/gone no longer exists; cgroup v1 counts an OOM kill only in the killed process's own cgroup, not in its pod's, and the kernel log has no OOM kill for it); ran for 2s",
    );
  });

  it("are confirmed from the kernel's log when the cgroup is gone already", async () => {
    const kept = keeping();
    reporter = new ExitReporter({ outputs: [kept] });
    await reporter.configure(
      decodeConfig(`jsonLines: false\ngrpc: false\noom: {cgroupRoot: ${root}, kernelLog: ${join(root, "kmsg")}}\n`),
    );
    await reporter.containerEnded("StopContainer", pod, ended("removed", 137));
    expect(kept.records[0]).toMatchObject({
      reason: "OOMKilled",
      oom: {
        verdict: OomVerdict.OOM_VERDICT_CONFIRMED,
        evidence: "the kernel log: oom-kill of sh (pid 7171) in memory cgroup /k8s.io/removed",
        path: join(root, "kmsg"),
      },
      explanation:
        "killed by the out-of-memory killer (exit 137, SIGKILL), confirmed by the kernel log: oom-kill of sh (pid 7171) in memory cgroup /k8s.io/removed; ran for 2s",
    });
  });

  it("go on without the kernel's log when it cannot be read, and say so", async () => {
    const { logger, messages } = capture();
    reporter = new ExitReporter({ logger });
    await reporter.configure(
      decodeConfig(`jsonLines: false\ngrpc: false\noom: {cgroupRoot: ${root}, kernelLog: ${join(root, "nothing")}}\n`),
    );
    expect(messages()).toContain(
      `cannot read the kernel log (${join(root, "nothing")}): ENOENT: no such file or directory, open '${join(root, "nothing")}'; OOM kills are confirmed only while the container's cgroup is there`,
    );
  });
});

describe("records that cannot be built in full", () => {
  it("are still reported with what is known, and say what is missing", async () => {
    const kept = keeping();
    const { logger, messages } = capture();
    reporter = new ExitReporter({ outputs: [kept], logger });
    await reporter.configure(decodeConfig("jsonLines: false\ngrpc: false\n"));
    // A caller of the library may hand over a container without its lists.
    const partial = { id: "c9", name: "app", finishedAt: 5n * S, exitCode: 2 } as Container;
    const record = await reporter.containerEnded("StopContainer", pod, partial);
    expect(record).toMatchObject({
      sequence: 1n,
      event: "StopContainer",
      pod: { namespace: "shop", name: "web", uid: "u1" },
      container: { name: "app", id: "c9", image: "" },
      exitCode: 2,
      flags: ["incomplete"],
      explanation: "ended with code 2 (the rest of the record could not be built)",
    });
    expect(record?.notes[0]).toMatch(/^the record is incomplete: /);
    expect(kept.records).toEqual([record]);
    expect(messages().some((message) => message.startsWith("exit of shop/web/app: the record is incomplete: "))).toBe(
      true,
    );
  });
});

describe("outputs that fail", () => {
  it("do not keep the record from the others, and are logged and counted", async () => {
    const kept = keeping();
    const broken: ExitOutput = {
      name: "broken",
      publish: () => {
        throw new Error("it broke");
      },
      close: async () => {},
    };
    const { logger, messages } = capture();
    reporter = new ExitReporter({ outputs: [broken, kept], logger });
    await reporter.configure(decodeConfig("jsonLines: false\ngrpc: false\nprometheus: {listen: '127.0.0.1:0'}\n"));
    await reporter.containerEnded("StopContainer", pod, ended("c1", 1));
    await reporter.containerEnded("StopContainer", pod, ended("c2", 1));
    expect(kept.records).toHaveLength(2);
    expect(messages()).toContain("broken output lost 1 record: it broke");
    const port = (reporter.activeOutputs[0] as unknown as { port: number }).port;
    const text = await (await fetch(`http://127.0.0.1:${port}/metrics`)).text();
    expect(text).toContain('nri_exit_reporter_dropped_records_total{output="broken"} 2');
  });
});

describe("BurstLog", () => {
  it("logs the first loss of a kind at once, then a summary per interval", async () => {
    const { logger, messages } = capture();
    const log = new BurstLog(logger, 30);
    log.lost(recordsLost("json-lines"), 1, "disk full");
    log.lost(recordsLost("json-lines"), 1, "disk full");
    log.lost(recordsLost("json-lines"), 2, "disk still full");
    log.lost(recordsLost("grpc"), 1, "slow");
    expect(messages()).toEqual(["json-lines output lost 1 record: disk full", "grpc output lost 1 record: slow"]);
    await new Promise((resolve) => setTimeout(resolve, 60));
    expect(messages().slice(2)).toEqual(["json-lines output lost 3 records more in 0.03s (the last: disk still full)"]);
    log.close();
  });
});
