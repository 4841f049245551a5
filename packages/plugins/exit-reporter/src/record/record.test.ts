import { Container, ContainerState, type DeepPartial, PodSandbox } from "@nri-ts/api";
import { describe, expect, it } from "vitest";
import type { DeclaredCause } from "./causes.js";
import { ExitRecord, type OomCheck, OomVerdict, Source } from "../gen/nri_ts/exit_reporter/v1/exit_reporter.js";
import { buildExitRecord, NOT_CHECKED, type RecordInput } from "./record.js";

const S = 1_000_000_000n;
const CREATED = 1_796_138_501_224_121_506n; // times as containerd 2.4.2 sent them
const STARTED = CREATED + S / 5n;

const pod = PodSandbox.fromPartial({ id: "pod1", name: "web", namespace: "shop", uid: "uid-1" });

function stopped(fields: DeepPartial<Container>): Container {
  return Container.fromPartial({
    id: "ctr1",
    name: "app",
    state: ContainerState.CONTAINER_STOPPED,
    args: ["sh", "-c", "run-app"],
    createdAt: CREATED,
    startedAt: STARTED,
    finishedAt: STARTED + 3n * S,
    ...fields,
  });
}

const CONFIRMED: OomCheck = {
  verdict: OomVerdict.OOM_VERDICT_CONFIRMED,
  evidence: "cgroup v1 memory.oom_control: oom_kill 1",
  path: "/sys/fs/cgroup/memory/k8s.io/ctr1/memory.oom_control",
};
const NOT_FOUND: OomCheck = {
  ...CONFIRMED,
  verdict: OomVerdict.OOM_VERDICT_NOT_FOUND,
  evidence: "cgroup v1 memory.oom_control: oom_kill 0",
};
const GONE: OomCheck = {
  verdict: OomVerdict.OOM_VERDICT_UNKNOWN,
  evidence: "the container's cgroup /k8s.io/ctr1 no longer exists",
  path: "",
};

function record(container: Container, input: Partial<RecordInput> = {}): ExitRecord {
  return buildExitRecord({
    event: "StopContainer",
    pod,
    container,
    sequence: 7n,
    reportedAt: STARTED + 4n * S,
    oom: NOT_CHECKED,
    causes: [],
    podMeanings: new Map(),
    configMeanings: new Map(),
    wrappers: [],
    problems: [],
    ...input,
  });
}

describe("explanations for what containerd 2.3+ sends (code and times, no reason)", () => {
  it.each<[string, DeepPartial<Container>, OomCheck, string]>([
    ["0", { exitCode: 0 }, NOT_CHECKED, "exited normally (code 0); ran for 3s"],
    [
      "1",
      { exitCode: 1 },
      NOT_FOUND,
      "exited with code 1 (general error): the program reported a failure; its log usually says what it was; ran for 3s",
    ],
    [
      "2",
      { exitCode: 2 },
      NOT_FOUND,
      "exited with code 2 (incorrect usage): shells and many programs exit 2 on a bad option, argument or script; ran for 3s",
    ],
    [
      "3 (the program's own)",
      { exitCode: 3 },
      NOT_FOUND,
      "exited with code 3, which only the program can explain (no meaning is declared for it); ran for 3s",
    ],
    [
      "125",
      { exitCode: 125 },
      NOT_FOUND,
      "exited with code 125 (the container runtime failed): docker and podman exit 125 when they fail themselves, before the command runs; ran for 3s",
    ],
    [
      "126",
      { exitCode: 126 },
      NOT_FOUND,
      "exited with code 126 (command found but not executable): the command exists but cannot run: no execute permission, or not a program the kernel can run; command: sh -c run-app; ran for 3s",
    ],
    [
      "127",
      { exitCode: 127 },
      NOT_FOUND,
      "exited with code 127 (command not found): the container couldn't find the command run-app (the first of its script) in its PATH (the container sets none, so the shell's default); command: sh -c run-app; ran for 3s",
    ],
    [
      "130 (SIGINT)",
      { exitCode: 130 },
      NOT_FOUND,
      "killed by SIGINT (exit 130): interrupted, as by Ctrl-C; ran for 3s",
    ],
    [
      "137 with the cgroup's OOM kill",
      { exitCode: 137 },
      CONFIRMED,
      "killed by the out-of-memory killer (exit 137, SIGKILL), confirmed by cgroup v1 memory.oom_control: oom_kill 1; ran for 3s",
    ],
    [
      "137 without one",
      { exitCode: 137 },
      NOT_FOUND,
      "killed by SIGKILL (exit 137), not by the out-of-memory killer: cgroup v1 memory.oom_control: oom_kill 0; ran for 3s",
    ],
    [
      "137 when the cgroup is gone",
      { exitCode: 137 },
      GONE,
      "killed by SIGKILL (exit 137) (OOM not confirmed: the container's cgroup /k8s.io/ctr1 no longer exists); ran for 3s",
    ],
    [
      "139 (SIGSEGV)",
      { exitCode: 139 },
      NOT_FOUND,
      "killed by SIGSEGV (exit 139): a segmentation fault (the program accessed memory it may not); ran for 3s",
    ],
    [
      "143 (SIGTERM)",
      { exitCode: 143 },
      NOT_FOUND,
      "killed by SIGTERM (exit 143): asked to terminate, as a runtime does when it stops a container; ran for 3s",
    ],
    [
      "162 (a real-time signal)",
      { exitCode: 162 },
      NOT_FOUND,
      "killed by signal 34 (exit 162): a real-time signal, sent on purpose by another process; ran for 3s",
    ],
    [
      "255",
      { exitCode: 255 },
      NOT_FOUND,
      "exited with code 255, which only the program can explain (no meaning is declared for it); ran for 3s",
    ],
  ])("%s", (_, fields, oom, explanation) => {
    expect(record(stopped(fields), { oom }).explanation).toBe(explanation);
  });

  it("infers the reason and message CRI would give, and says they are inferred", () => {
    expect(record(stopped({ exitCode: 137 }), { oom: CONFIRMED })).toMatchObject({
      exitCode: 137,
      signal: "SIGKILL",
      reason: "OOMKilled",
      reasonSource: Source.SOURCE_INFERRED,
      message: "out of memory (cgroup v1 memory.oom_control: oom_kill 1)",
      messageSource: Source.SOURCE_INFERRED,
      runtimeReason: "",
      oom: CONFIRMED,
      flags: [],
    });
    expect(record(stopped({ exitCode: 0 }))).toMatchObject({
      reason: "Completed",
      reasonSource: Source.SOURCE_INFERRED,
      exitCode: 0,
    });
    expect(record(stopped({ exitCode: 143 }), { oom: NOT_FOUND })).toMatchObject({
      reason: "Error",
      message: "killed by signal 15 (SIGTERM)",
      signal: "SIGTERM",
    });
  });

  it("names an OOM kill of another process of the container when the main one ended otherwise", () => {
    expect(record(stopped({ exitCode: 1 }), { oom: CONFIRMED })).toMatchObject({
      reason: "Error",
      explanation:
        "exited with code 1 (general error): the program reported a failure; its log usually says what it was; a process in it was OOM-killed, confirmed by cgroup v1 memory.oom_control: oom_kill 1; ran for 3s",
    });
  });
});

describe("what runtimes that send a reason say", () => {
  it("keeps the runtime's OOMKilled and message, and says who said it", () => {
    expect(
      record(stopped({ exitCode: 137, statusReason: "OOMKilled", statusMessage: "memory limit of 64Mi exceeded" })),
    ).toMatchObject({
      reason: "OOMKilled",
      reasonSource: Source.SOURCE_RUNTIME,
      message: "memory limit of 64Mi exceeded",
      messageSource: Source.SOURCE_RUNTIME,
      explanation:
        "killed by the out-of-memory killer (exit 137, SIGKILL), as the runtime reports: memory limit of 64Mi exceeded; ran for 3s",
    });
  });

  it("reports a 137 the runtime calls Error as a plain kill", () => {
    expect(record(stopped({ exitCode: 137, statusReason: "Error" })).explanation).toBe(
      "killed by SIGKILL (exit 137), and the runtime does not call it an OOM kill; ran for 3s",
    );
  });
});

describe("the quirks of real runtimes", () => {
  it("a container that failed to start: exit 128, no start time, state UNKNOWN (containerd 2.4.2)", () => {
    const container = stopped({
      state: ContainerState.CONTAINER_UNKNOWN,
      startedAt: 0n,
      exitCode: 128,
      args: ["/bin/no-such-command"],
    });
    expect(record(container)).toMatchObject({
      exitCode: 128,
      signal: "",
      reason: "StartError",
      reasonSource: Source.SOURCE_INFERRED,
      message: "the container's process could not be started",
      runTimeNs: undefined,
      flags: ["never-started", "start-error"],
      explanation: "failed to start (exit 128); the runtime sent no message saying why; command: /bin/no-such-command",
    });
  });

  it("a start error with the runtime's message (what CRI keeps)", () => {
    const message = 'exec: "/bin/no-such-command": stat /bin/no-such-command: no such file or directory';
    const container = stopped({
      startedAt: 0n,
      exitCode: 128,
      statusReason: "StartError",
      statusMessage: message,
      args: ["/bin/no-such-command"],
    });
    expect(record(container).explanation).toBe(`failed to start (exit 128): ${message}; command: /bin/no-such-command`);
  });

  it("a finish time before the start time: run time 0, flagged, by how much", () => {
    const early = record(stopped({ exitCode: 0, finishedAt: STARTED - 2_000_000n }));
    expect(early).toMatchObject({ runTimeNs: 0n, flags: ["finished-before-started"] });
    expect(early.explanation).toBe(
      "exited normally (code 0); ran for 0s (the runtime's finish time is 2ms before its start time)",
    );
  });

  it("no status at all (containerd 2.2 and older): the code is unknown, not 0", () => {
    const old = record(
      Container.fromPartial({
        id: "ctr1",
        name: "app",
        state: ContainerState.CONTAINER_RUNNING,
        pid: 4242,
        args: ["sleep", "1"],
      }),
    );
    expect(old).toMatchObject({
      exitCode: undefined,
      reason: "",
      reasonSource: Source.SOURCE_UNSPECIFIED,
      runTimeNs: undefined,
      flags: ["no-exit-status", "no-times"],
      explanation:
        "ended, but the runtime reported no exit code (runtimes before containerd 2.3 and CRI-O 1.36 do not)",
    });
  });

  it("no status but the cgroup's OOM kill: still an OOM kill", () => {
    const old = record(Container.fromPartial({ id: "ctr1", name: "app", state: ContainerState.CONTAINER_RUNNING }), {
      oom: CONFIRMED,
    });
    expect(old).toMatchObject({ reason: "OOMKilled", reasonSource: Source.SOURCE_INFERRED });
    expect(old.explanation).toBe(
      "killed by the out-of-memory killer (the runtime reported no exit code), confirmed by cgroup v1 memory.oom_control: oom_kill 1",
    );
  });

  it("a container stopped before it started", () => {
    const never = record(stopped({ state: ContainerState.CONTAINER_CREATED, startedAt: 0n, finishedAt: 0n }));
    expect(never).toMatchObject({
      exitCode: undefined,
      flags: ["no-exit-status", "never-started"],
      explanation: "stopped before it started",
    });
  });

  it("an exit code of 0 absent on the wire still reads as a clean exit when the finish time is there", () => {
    expect(record(stopped({})).exitCode).toBe(0);
  });

  it("reported from RemoveContainer, and without a pod", () => {
    const bare = record(stopped({ exitCode: 1 }), { event: "RemoveContainer", pod: PodSandbox.fromPartial({}) });
    expect(bare.flags).toEqual(["reported-at-removal", "no-pod"]);
    expect(bare.pod).toEqual({ namespace: "", name: "", uid: "" });
  });

  it("takes the image from containerd's annotation when the image field is empty", () => {
    const annotated = stopped({ annotations: { "io.kubernetes.cri.image-name": "localhost/busybox:local" } });
    expect(record(annotated).container).toEqual({ name: "app", id: "ctr1", image: "localhost/busybox:local" });
    expect(record(stopped({ image: { name: "nginx:1.27" } })).container?.image).toBe("nginx:1.27");
  });
});

describe("declared meanings and causes", () => {
  const evicted: DeclaredCause = {
    declaredBy: "10-evictor",
    source: Source.SOURCE_PLUGIN,
    reason: "Evicted",
    message: "the node ran low on memory",
    exitCodes: [],
  };

  it("a meaning the pod declared for its code wins over the configuration's", () => {
    const container = stopped({ exitCode: 3 });
    expect(
      record(container, {
        podMeanings: new Map([[3, "the queue is unreachable"]]),
        configMeanings: new Map([[3, "other"]]),
      }),
    ).toMatchObject({
      message: "the queue is unreachable",
      messageSource: Source.SOURCE_POD,
      declaredBy: "pod",
      explanation: "exited with code 3: the queue is unreachable (as the pod declares); ran for 3s",
    });
    expect(record(container, { configMeanings: new Map([[3, "the license expired"]]) })).toMatchObject({
      messageSource: Source.SOURCE_CONFIG,
      declaredBy: "",
      explanation: "exited with code 3: the license expired (as the reporter's configuration says); ran for 3s",
    });
  });

  it("a meaning may redefine a conventional code, but not 0, a start failure or an OOM kill (as the README says)", () => {
    const meanings = {
      configMeanings: new Map([
        [0, "never used"],
        [127, "the migration tool is missing from the image"],
        [128, "never used either"],
        [137, "the watchdog killed it"],
      ]),
    };
    const explain = (fields: DeepPartial<Container>, oom = NOT_CHECKED) =>
      record(stopped(fields), { ...meanings, oom }).explanation;
    expect(explain({ exitCode: 127 })).toBe(
      "exited with code 127: the migration tool is missing from the image (as the reporter's configuration says); command: sh -c run-app; ran for 3s",
    );
    expect(explain({ exitCode: 137 }, NOT_FOUND)).toBe(
      "exited with code 137: the watchdog killed it (as the reporter's configuration says); ran for 3s",
    );
    expect(explain({ exitCode: 0 })).toBe("exited normally (code 0); ran for 3s");
    expect(explain({ exitCode: 128, startedAt: 0n })).toMatch(/^failed to start \(exit 128\)/);
    expect(explain({ exitCode: 137 }, CONFIRMED)).toMatch(/^killed by the out-of-memory killer/);
    expect(explain({ exitCode: 137, statusReason: "OOMKilled" })).toMatch(/^killed by the out-of-memory killer/);
  });

  it("a plugin's cause turns a bare 137 into who stopped it and why", () => {
    expect(record(stopped({ exitCode: 137 }), { causes: [evicted], oom: NOT_FOUND })).toMatchObject({
      reason: "Evicted",
      reasonSource: Source.SOURCE_PLUGIN,
      message: "the node ran low on memory",
      messageSource: Source.SOURCE_PLUGIN,
      declaredBy: "10-evictor",
      explanation: "stopped by plugin 10-evictor: the node ran low on memory (exit 137, SIGKILL); ran for 3s",
    });
  });

  it("keeps what the runtime said next to a declared cause", () => {
    const explained = record(stopped({ exitCode: 137, statusReason: "Error", statusMessage: "task killed" }), {
      causes: [evicted],
    });
    expect(explained).toMatchObject({ reason: "Evicted", runtimeReason: "Error", runtimeMessage: "task killed" });
    expect(explained.explanation).toBe(
      "stopped by plugin 10-evictor: the node ran low on memory (exit 137, SIGKILL); the runtime says Error: task killed; ran for 3s",
    );
    // A reason the reporter would have given itself adds nothing; another one is told.
    expect(record(stopped({ exitCode: 1, statusReason: "Error" })).explanation).not.toContain("the runtime says");
    expect(record(stopped({ exitCode: 1, statusReason: "ContainerCannotRun" })).explanation).toContain(
      "; the runtime says ContainerCannotRun;",
    );
  });

  it("a pod's cause, and causes that do not apply to the code", () => {
    const hook: DeclaredCause = {
      declaredBy: "pod",
      source: Source.SOURCE_POD,
      reason: "HookFailed",
      message: "",
      exitCodes: [42],
    };
    expect(record(stopped({ exitCode: 42 }), { causes: [hook] }).explanation).toBe(
      "ended as the pod declares: HookFailed (exit 42); ran for 3s",
    );
    expect(record(stopped({ exitCode: 1 }), { causes: [hook] }).reason).toBe("Error");
    expect(record(stopped({ exitCode: 0 }), { causes: [evicted] }).reason).toBe("Completed");
  });

  it("the first cause that applies wins", () => {
    const other = { ...evicted, declaredBy: "20-other", reason: "Preempted", exitCodes: [1] };
    expect(record(stopped({ exitCode: 137 }), { causes: [other, evicted] }).declaredBy).toBe("10-evictor");
  });
});

describe("the command", () => {
  const tini = { wrappers: [["tini", "--"]] };

  it("quotes the user's command without the wrapper", () => {
    const wrapped = record(stopped({ exitCode: 127, args: ["/sbin/tini", "--", "my-app", "--serve"] }), tini);
    expect(wrapped).toMatchObject({ command: ["my-app", "--serve"], wrapper: ["/sbin/tini", "--"] });
    expect(wrapped.explanation).toContain("; command: my-app --serve;");
  });

  it("quotes the whole line when the runtime's message is about the wrapper", () => {
    const container = stopped({
      startedAt: 0n,
      exitCode: 128,
      statusReason: "StartError",
      statusMessage: 'exec: "/sbin/tini": stat /sbin/tini: no such file or directory',
      args: ["/sbin/tini", "--", "my-app"],
    });
    expect(record(container, tini).explanation).toContain("; command: /sbin/tini -- my-app");
  });

  it("stays small whatever the runtime and the pod send: long texts are cut, and say by how much", () => {
    const container = stopped({
      exitCode: 127,
      args: ["sh", "-c", "x".repeat(1_000_000), ...Array(100_000).fill("-v")],
      statusReason: "R".repeat(100_000),
      statusMessage: "m".repeat(1_000_000),
    });
    const big = record(container, {
      podMeanings: new Map([[127, "p".repeat(1_000_000)]]),
      problems: Array(1000).fill(`annotation x: ${"n".repeat(100_000)}`),
    });
    expect(ExitRecord.encode(big).finish().length).toBeLessThan(40_000);
    expect(big.command).toEqual(["sh", "-c", `${"x".repeat(4017)}… [995983 more bytes]`, "… [100000 more words]"]);
    expect(big.runtimeMessage).toBe(`${"m".repeat(4096)}… [995904 more bytes]`);
    expect(big.message).toBe(big.runtimeMessage);
    expect(big.runtimeReason).toBe(`${"R".repeat(1024)}… [98976 more bytes]`);
    expect(big.explanation).toMatch(/^exited with code 127: p+… \[\d+ more bytes\]/);
    expect(big.notes).toHaveLength(17);
    expect(big.notes.at(-1)).toBe("… [984 more notes]");
  });
});

it("carries the problems met while gathering the record as notes", () => {
  expect(record(stopped({}), { problems: ["annotation x: not YAML"] }).notes).toEqual(["annotation x: not YAML"]);
});
