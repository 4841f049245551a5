/**
 * Container lifecycles as our logger and the Go logger see them on each
 * containerd line: containers that exit 0, exit 3, miss their command
 * (127), are stopped with SIGTERM (143) or fail to start, in one pod. Both
 * loggers must see the same events with the same content, and the status
 * fields must be what containerd fills, which the test prints as a table.
 */
import { readFileSync } from "node:fs";
import { ContainerState } from "@nri-ts/api";
import { afterAll, beforeAll, expect, it } from "vitest";
import { describeEachLine } from "./context.js";
import { sleep } from "./exec.js";
import { goLogger, tsLogger } from "./our-plugins.js";
import type { ExternalPlugin } from "./plugins.js";
import type { ContainerSpec } from "./pod.js";
import { Runtime } from "./runtime.js";
import { comparable, goLoggerEvents, type SeenEvent, statusTable, tsLoggerEvents } from "./seen-events.js";

/** Containers of one pod, with the exit code and CRI reason each must end with. */
const CASES: (ContainerSpec & { exitCode: number; reason: string })[] = [
  { name: "exit-0", script: "true", exitCode: 0, reason: "Completed" },
  { name: "exit-3", script: "exit 3", exitCode: 3, reason: "Error" },
  { name: "missing", script: "no-such-command", exitCode: 127, reason: "Error" },
  { name: "sigterm", script: "echo ready; exec sleep 600", stop: { after: "ready" }, exitCode: 143, reason: "Error" },
];

describeEachLine("lifecycle", (line) => {
  let runtime: Runtime;
  let ours: ExternalPlugin;
  let theirs: ExternalPlugin;
  const ids: Record<string, string> = {};
  const podIds: string[] = [];
  let seen: { ours: SeenEvent[]; go: SeenEvent[] };

  beforeAll(async () => {
    runtime = await Runtime.start({ label: "lifecycle", line });
    ours = await runtime.startPlugin(tsLogger(runtime, "10"));
    theirs = await runtime.startPlugin(goLogger(runtime, "20"));
  });
  afterAll(() => runtime?.teardown());

  const read = () => ({
    ours: tsLoggerEvents(readFileSync(`${runtime.layout.logs}/ts-logger.events`, "utf8")),
    go: goLoggerEvents(readFileSync(`${runtime.layout.logs}/go-logger.events`, "utf8")),
  });

  it("runs containers that exit 0, exit 3, miss their command, get SIGTERM, or cannot start", async () => {
    const pod = await runtime.runPod({
      name: "lifecycle",
      containers: CASES,
    });
    for (const { name, exitCode, reason } of CASES) {
      const container = pod.containers[name];
      ids[name] = container.id;
      expect({ name, exitCode: container.exitCode, reason: container.reason }).toEqual({ name, exitCode, reason });
    }

    // a container whose start fails, in a pod of its own, driven step by step
    const other = await runtime.pod({ name: "start-error" });
    const unstartable = await other.create({ name: "start-error", command: ["/no/such/binary"] });
    ids["start-error"] = unstartable.id;
    await expect(unstartable.start()).rejects.toThrow(/no such file or directory/);
    const { status } = await unstartable.inspect();
    expect({ exitCode: status.exitCode, reason: status.reason }).toEqual({ exitCode: 128, reason: "StartError" });
    await other.remove();
    podIds.push(pod.id, other.id);

    // the removal's events reach both loggers before crictl returns; poll anyway, they are other processes
    for (let i = 0; ; i++) {
      seen = read();
      const removed = (events: SeenEvent[]) =>
        podIds.every((id) => events.some((e) => e.event === "RemovePodSandbox" && e.pod === id));
      if (removed(seen.ours) && removed(seen.go)) break;
      if (i > 200) throw new Error("the loggers never saw RemovePodSandbox");
      await sleep(25);
    }
    console.log(`containerd ${line.version}: what the loggers saw\n${statusTable(seen.ours, ids)}`);
    expect(ours.running && theirs.running).toBe(true);
  });

  it("our logger saw the same events, with the same content, as the Go logger", () => {
    expect(seen.ours.length).toBeGreaterThan(0);
    expect(seen.ours.map(comparable)).toEqual(seen.go.map(comparable));
  });

  it("each container got its lifecycle events once, StateChange-only ones included", () => {
    const names = (id: string) =>
      seen.ours
        .filter((e) => e.container === id)
        .map((e) => e.event)
        .sort();
    const validated = line.podUpdatesAndValidation ? ["ValidateContainerAdjustment"] : [];
    const ran = [
      "CreateContainer",
      ...validated,
      "PostCreateContainer",
      "StartContainer",
      "PostStartContainer",
      "StopContainer",
      "RemoveContainer",
    ].sort();
    for (const { name } of CASES) expect({ name, events: names(ids[name]) }).toEqual({ name, events: ran });
    for (const id of podIds) {
      const pods = seen.ours.filter((e) => e.pod === id && !e.container).map((e) => e.event);
      expect(pods).toEqual(["RunPodSandbox", "StopPodSandbox", "RemovePodSandbox"]);
    }
  });

  it("StopContainer carries the status fields containerd fills, never a reason or message", () => {
    const stops = new Map(seen.ours.filter((e) => e.event === "StopContainer").map((e) => [e.container, e]));
    for (const { name, exitCode } of CASES) {
      const stop = stops.get(ids[name]);
      if (line.statusFields) {
        expect({ name, state: stop?.state, exitCode: stop?.exitCode }).toEqual({
          name,
          state: ContainerState.CONTAINER_STOPPED,
          exitCode,
        });
        expect(stop?.createdAt).toBeGreaterThan(0n);
        expect(stop?.startedAt).toBeGreaterThan(0n);
        expect(stop?.finishedAt).toBeGreaterThan(0n);
      } else {
        // before 2.3 the state is whatever CRI had recorded when the exit event got there first: it races
        expect([ContainerState.CONTAINER_RUNNING, ContainerState.CONTAINER_STOPPED]).toContain(stop?.state);
        expect({ name, exitCode: stop?.exitCode }).toEqual({ name, exitCode: 0 });
      }
    }
    for (const event of seen.ours.filter((e) => e.state !== undefined)) {
      expect(event.statusReason).toBe("");
      expect(event.statusMessage).toBe("");
      if (!line.statusFields) {
        expect([event.createdAt, event.startedAt, event.finishedAt, event.exitCode]).toEqual([0n, 0n, 0n, 0]);
      }
    }
  });
});
