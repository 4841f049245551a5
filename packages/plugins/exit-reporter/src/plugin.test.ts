/**
 * The reporter as a runtime drives it: the event sequences below are what
 * containerd 2.4.2 and 2.2.9 sent on our machines (containerd-e2e.md §7 and
 * §8, and our own probe of 2.4.2), over a real NRI connection.
 */
import { mkdir, mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { type Container, ContainerState, type DeepPartial, Event, type PodSandbox } from "@nri-ts/api";
import { connectPlugin, ScriptedRuntime } from "@nri-ts/stub/testing";
import { silentLogger, Stub } from "@nri-ts/stub";
import { afterEach, describe, expect, it } from "vitest";
import { connectExitReporter } from "./client.js";
import { decodeConfig } from "./config.js";
import type { ExitRecord } from "./gen/nri_ts/exit_reporter/v1/exit_reporter.js";
import type { ExitOutput } from "./outputs/output.js";
import { createExitReporterPlugin } from "./plugin.js";
import { ExitReporter } from "./reporter.js";

const pod: DeepPartial<PodSandbox> = { id: "pod1", name: "probe", namespace: "exits", uid: "uid-probe-1" };

/** An output of our own (ExitReporterOptions.outputs) that keeps what it is given. */
function keeping(): ExitOutput & { records: ExitRecord[] } {
  const records: ExitRecord[] = [];
  return { name: "kept", records, publish: (record) => void records.push(record), close: async () => {} };
}

let running: { stub: Stub; runtime: ScriptedRuntime; reporter: ExitReporter } | undefined;

afterEach(async () => {
  await running?.stub.stop();
  running?.runtime.close();
  await running?.reporter.close();
  running = undefined;
});

/** The reporter with no outputs but one that keeps records, connected to a scripted runtime. */
async function connect(
  oom = "{check: false}",
): Promise<{ runtime: ScriptedRuntime; kept: ReturnType<typeof keeping> }> {
  const kept = keeping();
  const reporter = new ExitReporter({ outputs: [kept] });
  const config = decodeConfig(`jsonLines: false\ngrpc: false\noom: ${oom}\n`);
  const { stub, runtime } = await connectPlugin(createExitReporterPlugin(reporter, { config }));
  running = { stub, runtime, reporter };
  return { runtime, kept };
}

const base = {
  id: "ctr1",
  name: "exit3",
  args: ["sh", "-c", "sleep 0.2; exit 3"],
  linux: { cgroupsPath: "/k8s.io/ctr1" },
};
const CREATED = 1796138501224121506n;
const STARTED = 1796138501434360718n;
const FINISHED = 1796138501646408648n;

describe("containerd 2.4.2 (every event its own RPC, status fields 14-17)", () => {
  it("one record from StopContainer; RemoveContainer's UNKNOWN state is not a new exit", async () => {
    const { runtime, kept } = await connect();
    const container = (fields: DeepPartial<Container>) => ({ pod, container: { ...base, ...fields } });
    await runtime.plugin.postCreateContainer(
      container({ state: ContainerState.CONTAINER_CREATED, createdAt: CREATED }),
    );
    await runtime.plugin.stopContainer(
      container({
        state: ContainerState.CONTAINER_STOPPED,
        pid: 13191,
        createdAt: CREATED,
        startedAt: STARTED,
        finishedAt: FINISHED,
        exitCode: 3,
      }),
    );
    await runtime.plugin.removeContainer(
      container({
        state: ContainerState.CONTAINER_UNKNOWN,
        createdAt: CREATED,
        startedAt: STARTED,
        finishedAt: FINISHED,
        exitCode: 3,
      }),
    );
    expect(kept.records).toHaveLength(1);
    expect(kept.records[0]).toMatchObject({
      event: "StopContainer",
      exitCode: 3,
      reason: "Error",
      runTimeNs: FINISHED - STARTED,
      explanation:
        "exited with code 3, which only the program can explain (no meaning is declared for it); ran for 212ms",
    });
  });

  it("a start error arrives with StopContainer in state UNKNOWN, without a pid or a start time", async () => {
    const { runtime, kept } = await connect();
    const failed = {
      ...base,
      name: "nocmd",
      args: ["/bin/no-such-command"],
      createdAt: CREATED,
      finishedAt: FINISHED,
      exitCode: 128,
    };
    await runtime.plugin.postCreateContainer({
      pod,
      container: { ...failed, state: ContainerState.CONTAINER_CREATED, finishedAt: 0n, exitCode: 0 },
    });
    await runtime.plugin.stopContainer({ pod, container: { ...failed, state: ContainerState.CONTAINER_UNKNOWN } });
    await runtime.plugin.removeContainer({ pod, container: { ...failed, state: ContainerState.CONTAINER_UNKNOWN } });
    expect(kept.records.map((record) => [record.event, record.reason, record.flags, record.explanation])).toEqual([
      [
        "StopContainer",
        "StartError",
        ["never-started", "start-error"],
        "failed to start (exit 128); the runtime sent no message saying why; command: /bin/no-such-command",
      ],
    ]);
  });

  it("a RemoveContainer without StopContainer is reported for a container it watched, and only then", async () => {
    const { runtime, kept } = await connect();
    const ended = {
      state: ContainerState.CONTAINER_UNKNOWN,
      createdAt: CREATED,
      startedAt: STARTED,
      finishedAt: FINISHED,
      exitCode: 1,
    };
    // Running when the reporter connected: the runtime lists it in Synchronize.
    await runtime.plugin.synchronize({
      containers: [{ ...base, id: "seen", state: ContainerState.CONTAINER_RUNNING }],
    });
    await runtime.plugin.removeContainer({ pod, container: { ...base, id: "seen", ...ended } });
    // Ended before the reporter connected (not in Synchronize): an earlier instance may have reported it.
    await runtime.plugin.removeContainer({ pod, container: { ...base, id: "before", ...ended } });
    // Created and removed without ever running.
    await runtime.plugin.postCreateContainer({
      pod,
      container: { ...base, id: "idle", state: ContainerState.CONTAINER_CREATED },
    });
    await runtime.plugin.removeContainer({
      pod,
      container: { ...base, id: "idle", state: ContainerState.CONTAINER_UNKNOWN, createdAt: CREATED },
    });
    expect(kept.records.map((record) => [record.container?.id, record.event, record.flags])).toEqual([
      ["seen", "RemoveContainer", ["reported-at-removal"]],
    ]);
  });

  it("never reports the same end twice, even when StopContainer comes again", async () => {
    const { runtime, kept } = await connect();
    const stopped = {
      pod,
      container: {
        ...base,
        state: ContainerState.CONTAINER_STOPPED,
        startedAt: STARTED,
        finishedAt: FINISHED,
        exitCode: 3,
      },
    };
    await runtime.plugin.stopContainer(stopped);
    await runtime.plugin.stopContainer(stopped);
    expect(kept.records).toHaveLength(1);
  });
});

describe("an OOM kill whose cgroup runc removed before StopContainer (cgroup v2, systemd driver)", () => {
  it("is confirmed by the pod's cgroup, whose count rose since PostCreateContainer", async () => {
    const root = await mkdtemp(join(tmpdir(), "exit-reporter-plugin-oom-"));
    try {
      const podCgroup = "/kubepods.slice/kubepods-burstable.slice/kubepods-burstable-pod1.slice";
      const own = join(root, podCgroup, "cri-containerd-ctr1.scope");
      await mkdir(own, { recursive: true });
      const events = (oomKills: number) => `low 0\nhigh 0\nmax 1\noom 1\noom_kill ${oomKills}\noom_group_kill 0\n`;
      await writeFile(join(root, podCgroup, "memory.events"), events(0));
      await writeFile(join(own, "memory.events"), events(0));
      const { runtime, kept } = await connect(`{cgroupRoot: ${root}, kernelLog: false}`);
      const oomPod = { ...pod, linux: { cgroupParent: "kubepods-burstable-pod1.slice" } };
      const container = (fields: DeepPartial<Container>) => ({
        pod: oomPod,
        container: {
          ...base,
          name: "hog",
          linux: { cgroupsPath: "kubepods-burstable-pod1.slice:cri-containerd:ctr1" },
          ...fields,
        },
      });
      await runtime.plugin.postCreateContainer(container({ state: ContainerState.CONTAINER_CREATED }));
      // the kernel counts the kill in the container's cgroup and its ancestors; then runc removes the container's
      await writeFile(join(own, "memory.events"), events(1));
      await writeFile(join(root, podCgroup, "memory.events"), events(1));
      await rm(own, { recursive: true });
      await runtime.plugin.stopContainer(
        container({
          state: ContainerState.CONTAINER_STOPPED,
          startedAt: STARTED,
          finishedAt: FINISHED,
          exitCode: 137,
        }),
      );
      expect(kept.records.map((record) => [record.reason, record.explanation])).toEqual([
        [
          "OOMKilled",
          `killed by the out-of-memory killer (exit 137, SIGKILL), confirmed by the pod's cgroup ${podCgroup}: cgroup v2 memory.events oom_kill 1, 0 when the container was created (its own cgroup ${podCgroup}/cri-containerd-ctr1.scope no longer exists); no other container ran in it, as far as the reporter saw; ran for 212ms`,
        ],
      ]);
    } finally {
      await rm(root, { recursive: true, force: true });
    }
  });
});

describe("containerd 2.2 (NRI v0.11: RemoveContainer only through StateChange, no status fields)", () => {
  it("reports the end from StopContainer with no exit status, and not again at the StateChange removal", async () => {
    const { runtime, kept } = await connect();
    await runtime.plugin.stateChange({
      event: Event.POST_CREATE_CONTAINER,
      pod,
      container: { ...base, state: ContainerState.CONTAINER_CREATED },
    });
    await runtime.plugin.stopContainer({
      pod,
      container: { ...base, state: ContainerState.CONTAINER_RUNNING, pid: 4242 },
    });
    await runtime.plugin.stateChange({
      event: Event.REMOVE_CONTAINER,
      pod,
      container: { ...base, state: ContainerState.CONTAINER_STOPPED },
    });
    expect(kept.records.map((record) => [record.event, record.exitCode, record.flags, record.explanation])).toEqual([
      [
        "StopContainer",
        undefined,
        ["no-exit-status", "no-times"],
        "ended, but the runtime reported no exit code (runtimes before containerd 2.3 and CRI-O 1.36 do not)",
      ],
    ]);
  });

  it("reports an end that only a StateChange removal carries", async () => {
    const { runtime, kept } = await connect();
    await runtime.plugin.stateChange({
      event: Event.POST_CREATE_CONTAINER,
      pod,
      container: { ...base, state: ContainerState.CONTAINER_CREATED },
    });
    await runtime.plugin.stateChange({
      event: Event.REMOVE_CONTAINER,
      pod,
      container: { ...base, state: ContainerState.CONTAINER_STOPPED },
    });
    expect(kept.records.map((record) => [record.event, record.exitCode, record.flags])).toEqual([
      ["RemoveContainer", undefined, ["no-exit-status", "no-times", "reported-at-removal"]],
    ]);
  });
});

describe("Configure", () => {
  it("refuses a bad configuration with the field and what was expected, as the runtime sees it", async () => {
    const { runtime, connection } = await ScriptedRuntime.pair();
    const reporter = new ExitReporter();
    const stub = new Stub(createExitReporterPlugin(reporter), {
      index: "90",
      name: "exit-reporter",
      logger: silentLogger,
      env: {},
      connection,
    });
    const started = stub.start().catch((error: Error) => error);
    await runtime.registered();
    await expect(runtime.configure({ config: "prometheus: {listen: 9309}\n" })).rejects.toThrow(
      "invalid configuration: line 1, column 22: prometheus.listen: expected a text, got 9309",
    );
    expect(String(await started)).toContain("invalid configuration: line 1, column 22: prometheus.listen");
    await stub.stop();
    runtime.close();
    await reporter.close();
  });

  it("refuses an output that cannot start, naming it (here: an address in use)", async () => {
    const dir = await mkdtemp(join(tmpdir(), "exit-reporter-configure-"));
    const holder = new ExitReporter();
    const socket = join(dir, "exits.sock");
    await holder.configure(decodeConfig(`jsonLines: false\ngrpc: {listen: ${socket}}\n`));
    const { runtime, connection } = await ScriptedRuntime.pair();
    const reporter = new ExitReporter();
    const stub = new Stub(createExitReporterPlugin(reporter), {
      index: "90",
      name: "exit-reporter",
      logger: silentLogger,
      env: {},
      connection,
    });
    const started = stub.start().catch((error: Error) => error);
    await runtime.registered();
    await expect(runtime.configure({ config: `jsonLines: false\ngrpc: {listen: ${socket}}\n` })).rejects.toThrow(
      `cannot start the grpc output: cannot listen on unix://${socket}: another process is listening on ${socket}`,
    );
    await started;
    await stub.stop();
    runtime.close();
    await reporter.close();
    await holder.close();
    await rm(dir, { recursive: true, force: true });
  });

  it("starts the outputs the runtime's configuration asks for", async () => {
    const dir = await mkdtemp(join(tmpdir(), "exit-reporter-configure-"));
    const socket = join(dir, "exits.sock");
    const reporter = new ExitReporter();
    const { stub, runtime } = await connectPlugin(createExitReporterPlugin(reporter), {
      configure: { config: `jsonLines: false\ngrpc: {listen: ${socket}}\n` },
    });
    running = { stub, runtime, reporter };
    expect(reporter.activeOutputs.map((output) => output.name)).toEqual(["grpc"]);
    const { client, close } = connectExitReporter(socket);
    expect(await client.listRecentExits({})).toEqual({ exits: [], capacity: 1000 });
    close();
    await rm(dir, { recursive: true, force: true });
  });
});
