import { Container, ContainerState, PodSandbox } from "@nri-ts/api";
import { describe, expect, it } from "vitest";
import { dump } from "./dump.js";
import { statusLine } from "./status.js";
import { TextLog } from "./text-log.js";

function capture(isTTY: boolean) {
  const lines: string[] = [];
  let now = new Date("2026-01-01T00:00:00Z").getTime();
  const log = new TextLog({
    sink: { isTTY, write: (text: string) => lines.push(text) },
    now: () => new Date((now += 1500)),
  });
  return { log, lines };
}

/** Through the wire, as the stub hands messages to the plugin. */
const decoded = <T>(fns: { encode(m: T): { finish(): Uint8Array }; decode(b: Uint8Array): T }, message: T) =>
  fns.decode(fns.encode(message).finish());

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
  labels: { appVersion: "2.0", "io.kubernetes.container.name": "nginx", empty: "" },
  createdAt: 1767225601000000000n,
  startedAt: 1767225602000000000n,
  finishedAt: 1767225605000000000n,
  exitCode: 137,
  statusReason: "OOMKilled",
  statusMessage: "memory limit of 512Mi exceeded",
  CDIDevices: [{ name: "vendor.com/gpu=0" }],
  linux: { resources: { memory: { limit: { value: 0n } } } },
});

// The expected lines are the Go logger's for the same objects (packages/conformance compares the two on many more).
describe("dump", () => {
  it("logs one line per YAML line under the prefix, as the Go logger does", () => {
    const { log, lines } = capture(true);
    const pod = decoded(
      PodSandbox,
      PodSandbox.fromPartial({
        name: "web",
        namespace: "default",
        labels: { appVersion: "1.0", yes: "", note: "line one\nline two" },
      }),
    );
    dump(log, "RunPodSandbox", ["pod", pod]);
    expect(lines.map((l) => l.slice(14).trimEnd())).toEqual([
      "RunPodSandbox: pod:",
      "RunPodSandbox:    labels:",
      'RunPodSandbox:      appVersion: "1.0"',
      "RunPodSandbox:      note: |-",
      "RunPodSandbox:        line one",
      "RunPodSandbox:        line two",
      'RunPodSandbox:      "yes": ""',
      "RunPodSandbox:    name: web",
      "RunPodSandbox:    namespace: default",
    ]);
  });

  it("logs why, as Go does, where Go cannot dump an object", () => {
    const { log, lines } = capture(true);
    dump(log, "RunPodSandbox", ["pod", decoded(PodSandbox, PodSandbox.fromPartial({ name: "a\u007fb" }))]);
    expect(lines.map((l) => l.slice(14).trimEnd())).toEqual([
      "RunPodSandbox: pod: failed to dump object: error converting JSON to YAML: yaml: control characters are not allowed",
    ]);
  });
});

describe("statusLine", () => {
  it("names every status field that is set", () => {
    expect(statusLine(stopped)).toBe(
      'exited 137 (OOMKilled): memory limit of 512Mi exceeded (created_at 2026-01-01T00:00:01.000Z, started_at 2026-01-01T00:00:02.000Z, finished_at 2026-01-01T00:00:05.000Z, exit_code 137, status_reason OOMKilled, status_message "memory limit of 512Mi exceeded")',
    );
  });

  it("is absent when the runtime sends no status", () => {
    expect(statusLine(Container.fromPartial({ name: "x", state: ContainerState.CONTAINER_RUNNING }))).toBeUndefined();
  });
});
