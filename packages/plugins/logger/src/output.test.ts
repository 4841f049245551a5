import { Container, ContainerState } from "@nri-ts/api";
import { describe, expect, it } from "vitest";
import { dump, goShape } from "./dump.js";
import { statusLine } from "./status.js";
import { TextLog } from "./text-log.js";

function capture(isTTY: boolean) {
  const lines: string[] = [];
  let now = new Date("2026-01-01T00:00:00Z").getTime();
  const log = new TextLog({ sink: { isTTY, write: (text: string) => lines.push(text) }, now: () => new Date((now += 1500)) });
  return { log, lines };
}

describe("TextLog", () => {
  it("writes logfmt when not on a terminal", () => {
    const { log, lines } = capture(false);
    log.info("StopContainer: pod:");
    log.error("plain");
    expect(lines).toEqual([
      'time="2026-01-01T00:00:03Z" level=info msg="StopContainer: pod:"\n',
      'time="2026-01-01T00:00:04Z" level=error msg=plain\n',
    ]);
  });

  it("writes padded levels and seconds on a terminal", () => {
    const { log, lines } = capture(true);
    log.info("hello");
    log.warn("careful");
    expect(lines).toEqual(["INFO   [0001] hello\n", "WARNING[0003] careful\n"]);
  });
});

const stopped = Container.fromPartial({
  id: "abc",
  name: "nginx",
  podSandboxId: "pod1",
  state: ContainerState.CONTAINER_STOPPED,
  createdAt: 1767225601000000000n,
  startedAt: 1767225602000000000n,
  finishedAt: 1767225605000000000n,
  exitCode: 137,
  statusReason: "OOMKilled",
  statusMessage: "memory limit of 512Mi exceeded",
  linux: { resources: { memory: { limit: { value: 0n } } } },
});

describe("dump", () => {
  it("writes the protocol's field names, leaves empty fields out and keeps wrapped zeros", () => {
    expect(goShape(stopped)).toEqual({
      id: "abc",
      pod_sandbox_id: "pod1",
      name: "nginx",
      state: 4,
      linux: { resources: { memory: { limit: { value: 0n } } } },
      created_at: 1767225601000000000n,
      started_at: 1767225602000000000n,
      finished_at: 1767225605000000000n,
      exit_code: 137,
      status_reason: "OOMKilled",
      status_message: "memory limit of 512Mi exceeded",
    });
  });

  it("logs one line per YAML line under the prefix", () => {
    const { log, lines } = capture(true);
    dump(log, "RunPodSandbox", ["pod", { name: "web", namespace: "default", labels: {} }]);
    expect(lines.map((l) => l.slice(14).trimEnd())).toEqual(["RunPodSandbox: pod:", "RunPodSandbox:    name: web", "RunPodSandbox:    namespace: default"]);
  });
});

describe("statusLine", () => {
  it("names every status field that is set", () => {
    expect(statusLine(stopped)).toBe(
      "exited 137 (OOMKilled): memory limit of 512Mi exceeded (created_at 2026-01-01T00:00:01.000Z, started_at 2026-01-01T00:00:02.000Z, finished_at 2026-01-01T00:00:05.000Z, exit_code 137, status_reason OOMKilled, status_message \"memory limit of 512Mi exceeded\")",
    );
  });

  it("is absent when the runtime sends no status", () => {
    expect(statusLine(Container.fromPartial({ name: "x", state: ContainerState.CONTAINER_RUNNING }))).toBeUndefined();
  });
});
