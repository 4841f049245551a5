/**
 * The exit reporter under a real containerd, on each line: busybox
 * containers that exit 0 or 3, miss their command (127), get SIGTERM (143),
 * are OOM-killed under a 32 MiB memory limit, or cannot start (128) each come
 * out as one record, read back over the reporter's gRPC service with its
 * nice-grpc client and from its JSON lines. containerd 2.4 sends codes and
 * times but no reason: the reporter infers the reasons and confirms the OOM
 * kill from the container's memory cgroup. 2.2 and 2.1 send no status at
 * all: the records say so, and the cgroup still tells the OOM kill.
 */
import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import {
  connectExitReporter,
  type ExitRecord,
  type ExitReporterConnection,
  exitRecordToJson,
  findMemoryCgroup,
  OomVerdict,
  Source,
} from "@nri-ts/plugin-exit-reporter";
import { afterAll, beforeAll, expect, it } from "vitest";
import { describeEachLine } from "./context.js";
import { BUSYBOX_IMAGE } from "./images.js";
import { exitReporter } from "./our-plugins.js";
import type { ExternalPlugin } from "./plugins.js";
import { type ContainerSpec, PodError } from "./pod.js";
import { Runtime } from "./runtime.js";

const START_ERROR = "start-error";

/** Containers of one pod, with the exit code and CRI reason each must end with. */
const CASES: (ContainerSpec & { exitCode: number; reason: string })[] = [
  { name: "exit-0", script: "true", exitCode: 0, reason: "Completed" },
  { name: "exit-3", script: "exit 3", exitCode: 3, reason: "Error" },
  { name: "missing", script: "no-such-command", exitCode: 127, reason: "Error" },
  { name: "sigterm", script: "echo ready; exec sleep 600", stop: { after: "ready" }, exitCode: 143, reason: "Error" },
  // 200 MB of text in a 32 MiB memory limit
  {
    name: "oom",
    script: "x=$(head -c 200000000 /dev/zero | tr '\\0' a)",
    linux: { resources: { memory_limit_in_bytes: 32 * 1024 * 1024 } },
    exitCode: 137,
    reason: "OOMKilled",
  },
];

describeEachLine("exit-reporter", (line) => {
  let runtime: Runtime;
  let reporter: ExternalPlugin;
  let connection: ExitReporterConnection;
  const records = new Map<string, ExitRecord>();
  let jsonLines: Record<string, unknown>[] = [];

  beforeAll(async () => {
    runtime = await Runtime.start({ label: "exit-reporter", line });
    const config = join(runtime.layout.base, "exit-reporter.yaml");
    const socket = join(runtime.layout.base, "exits.sock");
    writeFileSync(
      config,
      `jsonLines: {path: ${join(runtime.layout.logs, "exits.jsonl")}}\ngrpc: {listen: unix://${socket}}\n`,
    );
    reporter = await runtime.startPlugin(exitReporter(runtime, "30", config));
    connection = connectExitReporter(socket);
  });
  afterAll(() => {
    connection?.close();
    return runtime?.teardown();
  });

  it("reports each end once: exit 0, exit 3, a missing command, SIGTERM, an OOM kill, a start error", async () => {
    const pod = await runtime.runPod({ name: "exits", namespace: "exits", containers: CASES });
    for (const { name, exitCode, reason } of CASES) {
      const { exitCode: code, reason: criReason } = pod.containers[name];
      expect({ name, exitCode: code, reason: criReason }).toEqual({ name, exitCode, reason });
    }
    // its start fails, and containerd tells NRI of its end only when the pod is removed
    const failed = await runtime
      .runPod({
        name: "exits-start-error",
        namespace: "exits",
        containers: [{ name: START_ERROR, command: ["/no/such/binary"] }],
      })
      .catch((error: unknown) => error);
    expect(failed).toBeInstanceOf(PodError);
    expect((failed as PodError).detail).toMatch(/no such file or directory/);
    const { exits } = await connection.client.listRecentExits({ filter: { namespace: "exits" } });
    for (const record of exits) {
      expect(records.has(record.container!.name), `${record.container!.name} reported twice`).toBe(false);
      records.set(record.container!.name, record);
    }
    // the file is written behind the gRPC output's ring: on a busy machine its last line can come a moment later
    const readJsonLines = () =>
      readFileSync(join(runtime.layout.logs, "exits.jsonl"), "utf8")
        .split("\n")
        .filter(Boolean)
        .map((text) => JSON.parse(text) as Record<string, unknown>);
    await expect.poll(() => readJsonLines().length).toBeGreaterThanOrEqual(exits.length);
    jsonLines = readJsonLines();
    console.log(
      `containerd ${line.version}: what the exit reporter made of it\n${exits
        .map(
          (record) =>
            `  ${record.container!.name}: [${record.event}] ${record.explanation} (${record.flags.join(", ") || "no flags"})`,
        )
        .join("\n")}`,
    );
    expect([...records.keys()].sort()).toEqual([...CASES.map((c) => c.name), START_ERROR].sort());
    expect(reporter.running).toBe(true);
  });

  it("writes the same records as JSON lines", () => {
    expect(jsonLines).toEqual(
      [...records.values()].map((record) => JSON.parse(JSON.stringify(exitRecordToJson(record)))),
    );
  });

  it("names the pod, the container, its image and its command", () => {
    const record = records.get("exit-3")!;
    expect(record.pod).toMatchObject({ namespace: "exits", name: "exits" });
    expect(records.get(START_ERROR)!.pod).toMatchObject({ namespace: "exits", name: "exits-start-error" });
    expect(record.container).toMatchObject({ name: "exit-3", image: BUSYBOX_IMAGE });
    expect(record.command).toEqual(["/bin/sh", "-c", "exit 3"]);
  });

  it.runIf(line.statusFields)("explains the codes containerd sends, with the reasons it does not", async () => {
    const summary = (name: string) => {
      const { exitCode, signal, reason, reasonSource, event } = records.get(name)!;
      return { name, event, exitCode, signal, reason, reasonSource };
    };
    const inferred = Source.SOURCE_INFERRED;
    expect(CASES.map((c) => summary(c.name))).toEqual([
      { name: "exit-0", event: "StopContainer", exitCode: 0, signal: "", reason: "Completed", reasonSource: inferred },
      { name: "exit-3", event: "StopContainer", exitCode: 3, signal: "", reason: "Error", reasonSource: inferred },
      { name: "missing", event: "StopContainer", exitCode: 127, signal: "", reason: "Error", reasonSource: inferred },
      {
        name: "sigterm",
        event: "StopContainer",
        exitCode: 143,
        signal: "SIGTERM",
        reason: "Error",
        reasonSource: inferred,
      },
      {
        name: "oom",
        event: "StopContainer",
        exitCode: 137,
        signal: "SIGKILL",
        reason: "OOMKilled",
        reasonSource: inferred,
      },
    ]);
    const explanation = (name: string) => records.get(name)!.explanation.replace(/; ran for [^;]+$/, "; ran for …");
    expect(explanation("exit-0")).toBe("exited normally (code 0); ran for …");
    expect(explanation("exit-3")).toBe(
      "exited with code 3, which only the program can explain (no meaning is declared for it); ran for …",
    );
    // containerd gives a container the image's PATH, else its default one
    expect(explanation("missing")).toMatch(
      /^exited with code 127 \(command not found\): the container couldn't find the command no-such-command \(the first of its script\) in its PATH \(([^):]*:)*\/bin(:[^):]*)*\); command: \/bin\/sh -c no-such-command; ran for …$/,
    );
    expect(explanation("sigterm")).toBe(
      "killed by SIGTERM (exit 143): asked to terminate, as a runtime does when it stops a container; ran for …",
    );
    // containerd removes the cgroup at about the time it sends StopContainer: the counter when it is
    // still there, else the kernel's log of the kill.
    const layout = await findMemoryCgroup();
    const file = layout?.version === 1 ? "memory.oom_control" : "memory.events";
    const { oom } = records.get("oom")!;
    console.log(`containerd ${line.version}: the OOM kill was confirmed by ${oom?.evidence}`);
    expect(oom?.verdict).toBe(OomVerdict.OOM_VERDICT_CONFIRMED);
    // the killer may take more than one of the container's processes before the cgroup fits (seen: oom_kill 2)
    const fromCgroup = new RegExp(`^cgroup v${layout?.version} ${file}: oom_kill [1-9]\\d*$`);
    if (!fromCgroup.test(oom?.evidence ?? ""))
      expect(oom?.evidence).toMatch(/^the kernel log: oom-kill of \S+ \(pid \d+\) in memory cgroup \/nri-e2e-/);
    expect(explanation("oom")).toBe(
      `killed by the out-of-memory killer (exit 137, SIGKILL), confirmed by ${oom?.evidence}; ran for …`,
    );
    expect(records.get(START_ERROR)).toMatchObject({
      exitCode: 128,
      reason: "StartError",
      startedAt: 0n,
      flags: ["never-started", "start-error"],
      explanation: "failed to start (exit 128); the runtime sent no message saying why; command: /no/such/binary",
    });
    // A short container may finish before it started, by containerd's clocks: run time 0, flagged.
    for (const { name } of CASES) {
      const { runTimeNs, startedAt, finishedAt, flags } = records.get(name)!;
      if (finishedAt < startedAt)
        console.log(`containerd ${line.version}: ${name} finished ${startedAt - finishedAt} ns before it started`);
      expect({ name, runTimeNs, early: flags.includes("finished-before-started") }).toEqual({
        name,
        runTimeNs: finishedAt >= startedAt ? finishedAt - startedAt : 0n,
        early: finishedAt < startedAt,
      });
    }
  });

  it.runIf(!line.statusFields)(
    "says the runtime sent no exit status, and still finds the OOM kill in the cgroup",
    () => {
      for (const name of ["exit-0", "exit-3", "missing", "sigterm", START_ERROR]) {
        expect({ name, exitCode: records.get(name)!.exitCode, flags: records.get(name)!.flags }).toEqual({
          name,
          exitCode: undefined,
          flags: expect.arrayContaining(["no-exit-status", "no-times"]),
        });
        expect(records.get(name)!.explanation).toBe(
          "ended, but the runtime reported no exit code (runtimes before containerd 2.3 and CRI-O 1.36 do not)",
        );
      }
      expect(records.get("oom")).toMatchObject({
        exitCode: undefined,
        reason: "OOMKilled",
        reasonSource: Source.SOURCE_INFERRED,
      });
      expect(records.get("oom")!.oom?.verdict).toBe(OomVerdict.OOM_VERDICT_CONFIRMED);
    },
  );
});
