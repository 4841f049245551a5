/**
 * The messages of cmd/golden, written again by hand in TypeScript. Each entry
 * is named like its Go vector; the test decodes Go's bytes and expects
 * exactly these values, so a wrong field number, type or default on either
 * side shows up as a difference.
 */
import {
  ConfigureRequest,
  ConfigureResponse,
  Container,
  ContainerAdjustment,
  ContainerEviction,
  ContainerState,
  ContainerUpdate,
  CreateContainerRequest,
  CreateContainerResponse,
  Empty,
  Event,
  FailurePolicy,
  Field,
  FieldOwners,
  Hooks,
  IOPrioClass,
  LinuxContainer,
  LinuxIOPriority,
  LinuxMemory,
  LinuxMemoryPolicy,
  LinuxResources,
  LinuxScheduler,
  LinuxSchedulerFlag,
  LinuxSchedulerPolicy,
  LinuxSeccomp,
  LogRequest,
  LogRequest_Level,
  MpolFlag,
  MpolMode,
  OptionalBool,
  OptionalFileMode,
  OptionalInt,
  OptionalInt32,
  OptionalInt64,
  OptionalRepeatedString,
  OptionalString,
  OptionalUInt32,
  OptionalUInt64,
  PodSandbox,
  RegisterPluginRequest,
  SecurityProfile,
  SecurityProfile_ProfileType,
  StateChangeEvent,
  StopContainerResponse,
  SynchronizeRequest,
  SynchronizeResponse,
  UpdateContainerRequest,
  UpdateContainerResponse,
  UpdateContainersRequest,
  UpdateContainersResponse,
  ValidateContainerAdjustmentRequest,
  ValidateContainerAdjustmentResponse,
  type MessageFns,
} from "@nri-ts/api";

/** One expected message, with the codec of its type. */
export interface Expectation {
  /** Full proto name, as Go reports it. */
  readonly type: string;
  readonly value: unknown;
  decode(bytes: Uint8Array): unknown;
  encode(): Uint8Array;
  /** ts-proto's JSON rendering of the value. */
  toJSON(): unknown;
}

function expectation<T>(name: string, fns: MessageFns<T>, value: T): Expectation {
  return {
    type: `nri.pkg.api.v1alpha1.${name}`,
    value,
    decode: (bytes) => fns.decode(bytes),
    encode: () => fns.encode(value).finish(),
    toJSON: () => fns.toJSON(value),
  };
}

// Unix-epoch nanosecond timestamps in 2026; all exceed 2^53.
const createdAt = 1767323045123456789n; // 2026-01-02T03:04:05.123456789Z
const startedAt = 1767323046000000001n; // 2026-01-02T03:04:06.000000001Z
const finishedAt = 1773500966535897932n; // 2026-03-14T15:09:26.535897932Z

// Values a float64 cannot hold exactly: 2^53 + 1 and its negation.
const beyond53 = 9007199254740993n;
const belowNeg53 = -9007199254740993n;
const maxUint64 = 18446744073709551615n;
const maxInt64 = 9223372036854775807n;
const minInt64 = -9223372036854775808n;
const maxUint32 = 4294967295;
const minInt32 = -2147483648;
const nriVersion = "v0.12.5";
const oomKilledId = "4f6c0d3e9a7b";

function fullHooks(): Hooks {
  return Hooks.fromPartial({
    prestart: [{ path: "/usr/bin/prestart", args: ["prestart", "--verbose"], env: ["A=1"], timeout: { value: 5n } }],
    createRuntime: [{ path: "/usr/libexec/oci/hooks.d/gpu" }],
    createContainer: [{ path: "/bin/create-ctr", timeout: { value: 0n } }],
    startContainer: [{ path: "/bin/start-ctr", args: ["start-ctr"] }],
    poststart: [{ path: "/bin/poststart", env: ["WHO=ünïcödé"] }],
    poststop: [{ path: "/bin/poststop", timeout: { value: -1n } }],
  });
}

/** Every field of LinuxResources, including wrappers holding zero or "". */
export function fullResources(): LinuxResources {
  return LinuxResources.fromPartial({
    memory: {
      limit: { value: beyond53 },
      reservation: { value: 268435456n },
      swap: { value: -1n },
      kernel: { value: 0n },
      kernelTcp: { value: 67108864n },
      swappiness: { value: 60n },
      disableOomKiller: { value: false },
      useHierarchy: { value: true },
    },
    cpu: {
      shares: { value: 1024n },
      quota: { value: -1n },
      period: { value: 100000n },
      realtimeRuntime: { value: 950000n },
      realtimePeriod: { value: 1000000n },
      cpus: "0-3,8",
      mems: "0",
    },
    hugepageLimits: [
      { pageSize: "2MB", limit: 1073741824n },
      { pageSize: "1GB", limit: maxUint64 },
    ],
    blockioClass: { value: "throttled" },
    rdtClass: { value: "" },
    unified: { "memory.high": "805306368", "cpu.weight": "79", "io.max": "" },
    devices: [
      { allow: false, access: "rwm" },
      { allow: true, type: "c", major: { value: 10n }, minor: { value: 200n }, access: "rwm" },
      { allow: true, type: "b", major: { value: 259n }, minor: { value: -1n }, access: "r" },
    ],
    pids: { limit: -1n },
  });
}

function fullSeccomp(): LinuxSeccomp {
  return LinuxSeccomp.fromPartial({
    defaultAction: "SCMP_ACT_ERRNO",
    defaultErrno: { value: 38 },
    architectures: ["SCMP_ARCH_X86_64", "SCMP_ARCH_AARCH64"],
    flags: ["SECCOMP_FILTER_FLAG_LOG"],
    listenerPath: "/run/seccomp-agent.sock",
    listenerMetadata: "golden",
    syscalls: [
      { names: ["read", "write"], action: "SCMP_ACT_ALLOW" },
      {
        names: ["personality"],
        action: "SCMP_ACT_ERRNO",
        errnoRet: { value: 1 },
        args: [
          { index: 0, value: 8n, valueTwo: maxUint64, op: "SCMP_CMP_MASKED_EQ" },
          { index: 5, op: "SCMP_CMP_EQ" },
        ],
      },
    ],
  });
}

function fullLinuxContainer(): LinuxContainer {
  return LinuxContainer.fromPartial({
    namespaces: [{ type: "pid" }, { type: "network", path: "/var/run/netns/cni-5e1f" }, { type: "mount" }],
    devices: [
      {
        path: "/dev/fuse",
        type: "c",
        major: 10n,
        minor: 229n,
        fileMode: { value: 0o666 },
        uid: { value: 0 },
        gid: { value: maxUint32 },
      },
      { path: "/dev/odd", type: "b", major: 4294967296n, minor: belowNeg53 },
    ],
    resources: fullResources(),
    oomScoreAdj: { value: -998n },
    cgroupsPath: "kubepods-burstable-pod7e21.slice:cri-containerd:4f6c0d3e9a7b",
    ioPriority: { class: IOPrioClass.IOPRIO_CLASS_BE, priority: 7 },
    seccompProfile: { profileType: SecurityProfile_ProfileType.LOCALHOST, localhostRef: "profiles/audit.json" },
    seccompPolicy: fullSeccomp(),
    sysctl: { "net.ipv4.ip_forward": "1", "kernel.shm_rmid_forced": "1" },
    netDevices: { eth1: { name: "net1" }, ib0: { name: "ib-ü" } },
    scheduler: {
      policy: LinuxSchedulerPolicy.SCHED_DEADLINE,
      nice: -20,
      priority: 5,
      flags: [
        LinuxSchedulerFlag.SCHED_FLAG_RESET_ON_FORK,
        LinuxSchedulerFlag.SCHED_FLAG_DL_OVERRUN,
        LinuxSchedulerFlag.SCHED_FLAG_UTIL_CLAMP_MAX,
      ],
      runtime: 10000000n,
      deadline: 20000000n,
      period: maxUint64,
    },
    rdt: {
      closId: { value: "gold" },
      schemata: { value: ["L3:0=ff", "MB:0=50"] },
      enableMonitoring: { value: true },
    },
  });
}

export function fullContainer(): Container {
  return Container.fromPartial({
    id: oomKilledId,
    podSandboxId: "pod-7e21",
    name: "app",
    state: ContainerState.CONTAINER_STOPPED,
    labels: { "io.kubernetes.container.name": "app", tier: "backend" },
    annotations: { "io.kubernetes.container.restartCount": "3", "example.com/note": "日本語のメモ" },
    args: ["/bin/app", "--port=8080", ""],
    env: ["PATH=/usr/bin:/bin", "GREETING=grüß dich"],
    mounts: [
      { destination: "/data", type: "bind", source: "/var/lib/data", options: ["rbind", "ro"] },
      {
        destination: "/dev/shm",
        type: "tmpfs",
        source: "shm",
        options: ["nosuid", "noexec", "nodev", "mode=1777", "size=65536k"],
      },
    ],
    hooks: fullHooks(),
    linux: fullLinuxContainer(),
    pid: 4242,
    rlimits: [
      { type: "RLIMIT_NOFILE", hard: 1048576n, soft: 1024n },
      { type: "RLIMIT_CORE", hard: maxUint64, soft: maxUint64 },
    ],
    createdAt,
    startedAt,
    finishedAt,
    exitCode: 137,
    statusReason: "OOMKilled",
    statusMessage: "内存不足 — container exceeded its 512 MiB limit 🚫",
    CDIDevices: [{ name: "nvidia.com/gpu=0" }, { name: "vendor.example/fpga=all" }],
    user: { uid: 65534, gid: 65534, additionalGids: [4, 24, maxUint32 - 1] },
    image: {
      name: "registry.k8s.io/app:1.2.3",
      digest: "sha256:0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef",
      configDigest: "sha256:fedcba9876543210fedcba9876543210fedcba9876543210fedcba9876543210",
    },
  });
}

/** Fields 14 to 19 and nothing else. */
export function statusOnlyContainer(): Container {
  return Container.fromPartial({
    createdAt,
    startedAt,
    finishedAt,
    exitCode: -1,
    statusReason: "Error",
    statusMessage: 'hook "10-audit" failed: exec: "audit": executable file not found in $PATH',
  });
}

export function fullPod(): PodSandbox {
  return PodSandbox.fromPartial({
    id: "pod-7e21",
    name: "web-0",
    uid: "c0ffee00-1234-4abc-8def-000000000001",
    namespace: "production",
    labels: { app: "web", "statefulset.kubernetes.io/pod-name": "web-0" },
    annotations: { "kubernetes.io/config.source": "api", "note.example.com/ünicode": "✓ ready" },
    runtimeHandler: "runc",
    linux: {
      podOverhead: { cpu: { shares: { value: 2n } }, memory: { limit: { value: 134217728n } } },
      podResources: fullResources(),
      cgroupParent: "kubepods-burstable-pod7e21.slice",
      cgroupsPath: "kubepods-burstable-pod7e21.slice:cri-containerd:pod-7e21",
      namespaces: [{ type: "network", path: "/var/run/netns/cni-5e1f" }, { type: "ipc" }],
      resources: { cpu: { quota: { value: 200000n }, period: { value: 100000n } }, pids: { limit: 4096n } },
    },
    pid: 4100,
    ips: ["10.244.1.17", "fd00:10:244:1::11"],
  });
}

/** What the Go helpers (RemoveAnnotation, RemoveMount, ...) put on the wire. */
function adjustmentWithRemovals(): ContainerAdjustment {
  return ContainerAdjustment.fromPartial({
    annotations: { "-example.com/stale": "", "example.com/owner": "10-golden" },
    mounts: [
      { destination: "-/tmp/old" },
      { destination: "/cache", type: "tmpfs", source: "tmpfs", options: ["size=64m"] },
    ],
    env: [{ key: "-DEBUG" }, { key: "LOG_LEVEL", value: "info" }],
    hooks: { poststart: [{ path: "/bin/notify", args: ["notify", "started"] }] },
    linux: {
      devices: [
        { path: "-/dev/old" },
        { path: "/dev/golden", type: "c", major: 240n, minor: 1n, fileMode: { value: 0o600 } },
      ],
      resources: {
        memory: { limit: { value: 536870912n } },
        cpu: { cpus: "2-3" },
        unified: { "memory.oom.group": "1" },
      },
      cgroupsPath: "/golden/ctr",
      oomScoreAdj: { value: 1000n },
      ioPriority: { class: IOPrioClass.IOPRIO_CLASS_RT },
      seccompPolicy: { defaultAction: "SCMP_ACT_ALLOW" },
      namespaces: [{ type: "-network" }, { type: "cgroup" }],
      sysctl: { "-net.core.somaxconn": "", "net.ipv4.tcp_keepalive_time": "600" },
      // Go's RemoveLinuxNetDevice stores a nil value; it travels as an empty message.
      netDevices: { "-eth9": {}, eth1: { name: "golden0" } },
      scheduler: { policy: LinuxSchedulerPolicy.SCHED_FIFO, priority: 50 },
      rdt: { remove: true },
      memoryPolicy: {
        mode: MpolMode.MPOL_INTERLEAVE,
        nodes: "0-1",
        flags: [MpolFlag.MPOL_F_STATIC_NODES, MpolFlag.MPOL_F_NUMA_BALANCING],
      },
    },
    rlimits: [{ type: "RLIMIT_NPROC", hard: 4096n, soft: 2048n }],
    CDIDevices: [{ name: "vendor.example/gpu=0" }],
    // UpdateArgs prefixes an empty argument.
    args: ["", "/bin/golden", "--flag"],
  });
}

function memoryUpdate(): ContainerUpdate {
  return ContainerUpdate.fromPartial({
    containerId: oomKilledId,
    linux: { resources: { memory: { limit: { value: beyond53 }, swap: { value: -1n } } } },
  });
}

function cpuUpdate(): ContainerUpdate {
  return ContainerUpdate.fromPartial({
    containerId: "ctr-running",
    linux: { resources: { cpu: { shares: { value: 512n }, cpus: "4-7" } } },
    ignoreFailure: true,
  });
}

function eviction(): ContainerEviction {
  return ContainerEviction.fromPartial({ containerId: "ctr-noisy", reason: "memory pressure: évincé" });
}

function synchronizeRequest(): SynchronizeRequest {
  return SynchronizeRequest.fromPartial({
    pods: [fullPod(), { id: "pod-empty" }],
    containers: [
      fullContainer(),
      {
        id: "ctr-running",
        podSandboxId: "pod-7e21",
        name: "sidecar",
        state: ContainerState.CONTAINER_RUNNING,
        pid: 4301,
        createdAt,
        startedAt,
      },
    ],
    more: true,
  });
}

export function validateRequest(): ValidateContainerAdjustmentRequest {
  return ValidateContainerAdjustmentRequest.fromPartial({
    pod: fullPod(),
    container: fullContainer(),
    adjust: adjustmentWithRemovals(),
    update: [memoryUpdate()],
    owners: {
      owners: {
        [oomKilledId]: {
          simple: {
            [Field.MemLimit]: "10-golden",
            [Field.CPUSetCPUs]: "20-cpu",
            [Field.MemoryPolicy]: "10-golden",
          },
          compound: {
            [Field.Annotations]: { owners: { "example.com/owner": "10-golden" } },
            [Field.Env]: { owners: { LOG_LEVEL: "10-golden", DEBUG: "30-ünï" } },
          },
        },
        "ctr-running": { simple: { [Field.CPUShares]: "20-cpu" } },
      },
    },
    plugins: [
      { name: "golden", index: "10" },
      { name: "cpu", index: "20" },
      { name: "ünï", index: "30" },
    ],
  });
}

/** The hand-written vectors, in the order cmd/golden writes them. */
function messageExpectations(): [string, Expectation][] {
  return [
    ["container-full", expectation("Container", Container, fullContainer())],
    ["container-status-only", expectation("Container", Container, statusOnlyContainer())],
    [
      "container-extremes",
      expectation(
        "Container",
        Container,
        Container.fromPartial({
          id: "ctr-extremes",
          pid: maxUint32,
          createdAt: maxInt64,
          startedAt: -1n,
          finishedAt: minInt64,
          exitCode: minInt32,
        }),
      ),
    ],
    // 42 is no ContainerState; proto3 keeps unknown enum numbers as they are.
    [
      "container-unknown-state",
      expectation("Container", Container, Container.fromPartial({ id: "ctr-future", state: 42 as ContainerState })),
    ],
    ["pod-sandbox-full", expectation("PodSandbox", PodSandbox, fullPod())],
    ["linux-resources-full", expectation("LinuxResources", LinuxResources, fullResources())],
    [
      "linux-memory-zero-wrappers",
      expectation(
        "LinuxMemory",
        LinuxMemory,
        LinuxMemory.fromPartial({
          limit: { value: 0n },
          swappiness: { value: 0n },
          disableOomKiller: { value: false },
        }),
      ),
    ],
    [
      "container-adjustment-removals",
      expectation("ContainerAdjustment", ContainerAdjustment, adjustmentWithRemovals()),
    ],
    ["optional-string", expectation("OptionalString", OptionalString, { value: "gold ✓" })],
    ["optional-string-empty", expectation("OptionalString", OptionalString, { value: "" })],
    [
      "optional-repeated-string",
      expectation("OptionalRepeatedString", OptionalRepeatedString, { value: ["L3:0=ff", "", "MB:0=50"] }),
    ],
    ["optional-int", expectation("OptionalInt", OptionalInt, { value: -1000n })],
    ["optional-int32", expectation("OptionalInt32", OptionalInt32, { value: minInt32 })],
    ["optional-uint32", expectation("OptionalUInt32", OptionalUInt32, { value: maxUint32 })],
    ["optional-int64", expectation("OptionalInt64", OptionalInt64, { value: belowNeg53 })],
    ["optional-uint64", expectation("OptionalUInt64", OptionalUInt64, { value: maxUint64 })],
    ["optional-bool", expectation("OptionalBool", OptionalBool, { value: true })],
    // Go's os.ModeDir | 0o666: a uint32 above 2^31.
    ["optional-file-mode", expectation("OptionalFileMode", OptionalFileMode, { value: 0o20000000666 })],
    [
      "configure-request",
      expectation("ConfigureRequest", ConfigureRequest, {
        config: 'mode: strict\nlabel: "café ☕"\n',
        runtimeName: "containerd",
        runtimeVersion: "v2.2.0",
        registrationTimeout: 5000n,
        requestTimeout: 2000n,
        NRIVersion: nriVersion,
      }),
    ],
    [
      "configure-response",
      expectation("ConfigureResponse", ConfigureResponse, {
        events: (1 << 3) | (1 << 5) | (1 << 9) | (1 << 13),
        failurePolicy: undefined,
      }),
    ],
    ...(
      [
        ["empty-policy", false, false],
        ["fail-request", true, false],
        ["keep-connected", false, true],
        ["full-policy", true, true],
      ] as const
    ).map(([name, failRequest, keepConnected]): [string, Expectation] => [
      `configure-response-${name}`,
      expectation("ConfigureResponse", ConfigureResponse, { events: 1, failurePolicy: { failRequest, keepConnected } }),
    ]),
    ["failure-policy-full", expectation("FailurePolicy", FailurePolicy, { failRequest: true, keepConnected: true })],
    ["synchronize-request", expectation("SynchronizeRequest", SynchronizeRequest, synchronizeRequest())],
    [
      "synchronize-response",
      expectation("SynchronizeResponse", SynchronizeResponse, { update: [memoryUpdate()], more: true }),
    ],
    [
      "create-container-request",
      expectation(
        "CreateContainerRequest",
        CreateContainerRequest,
        CreateContainerRequest.fromPartial({ pod: fullPod(), container: fullContainer() }),
      ),
    ],
    [
      "create-container-response",
      expectation(
        "CreateContainerResponse",
        CreateContainerResponse,
        CreateContainerResponse.fromPartial({
          adjust: adjustmentWithRemovals(),
          update: [cpuUpdate()],
          evict: [eviction()],
        }),
      ),
    ],
    [
      "update-container-request",
      expectation(
        "UpdateContainerRequest",
        UpdateContainerRequest,
        UpdateContainerRequest.fromPartial({
          pod: fullPod(),
          container: statusOnlyContainer(),
          linuxResources: fullResources(),
        }),
      ),
    ],
    [
      "update-container-response",
      expectation("UpdateContainerResponse", UpdateContainerResponse, {
        update: [memoryUpdate(), cpuUpdate()],
        evict: [eviction()],
      }),
    ],
    ["stop-container-response", expectation("StopContainerResponse", StopContainerResponse, { update: [cpuUpdate()] })],
    [
      "validate-container-adjustment-request",
      expectation("ValidateContainerAdjustmentRequest", ValidateContainerAdjustmentRequest, validateRequest()),
    ],
    [
      "validate-container-adjustment-response",
      expectation("ValidateContainerAdjustmentResponse", ValidateContainerAdjustmentResponse, {
        reject: true,
        reason: "10-golden: memory limit 512 MiB < requested 1 GiB ✗",
      }),
    ],
    [
      "state-change-event",
      expectation(
        "StateChangeEvent",
        StateChangeEvent,
        StateChangeEvent.fromPartial({ event: Event.CREATE_CONTAINER, pod: fullPod(), container: fullContainer() }),
      ),
    ],
    [
      "register-plugin-request",
      expectation("RegisterPluginRequest", RegisterPluginRequest, {
        pluginName: "golden",
        pluginIdx: "10",
        NRIVersion: nriVersion,
      }),
    ],
    [
      "update-containers-request",
      expectation(
        "UpdateContainersRequest",
        UpdateContainersRequest,
        UpdateContainersRequest.fromPartial({
          update: [memoryUpdate(), cpuUpdate()],
          evict: [eviction(), { containerId: "ctr-idle" }],
        }),
      ),
    ],
    [
      "update-containers-response",
      expectation("UpdateContainersResponse", UpdateContainersResponse, { failed: [cpuUpdate()] }),
    ],
    ["empty", expectation("Empty", Empty, {})],
    [
      "unicode-strings",
      expectation("ContainerEviction", ContainerEviction, {
        containerId: "ctr-ü-日本-🚀",
        reason: "e\u0301 ß Ω Ж עברית العربية 中文 한국어 👩\u200d💻 𝄞 \u0000\t\n\u007f \uFFFD end",
      }),
    ],
  ];
}

/** The name/number pairs of a ts-proto enum, without its UNRECOGNIZED member. */
function members(enumObject: Record<string, string | number>): [string, number][] {
  return Object.entries(enumObject).filter(
    (entry): entry is [string, number] => typeof entry[1] === "number" && entry[0] !== "UNRECOGNIZED",
  );
}

/**
 * One vector per value of every enum, named enum-<Enum>-<VALUE> like Go's, so
 * a value with the same name and a different number fails to decode equal.
 */
function enumExpectations(): [string, Expectation][] {
  const out: [string, Expectation][] = [];
  const add = (enumName: string, enumObject: Record<string, string | number>, wrap: (n: number) => Expectation) => {
    for (const [name, n] of members(enumObject)) out.push([`enum-${enumName}-${name}`, wrap(n)]);
  };
  add("Event", Event, (n) =>
    expectation("StateChangeEvent", StateChangeEvent, StateChangeEvent.fromPartial({ event: n })),
  );
  add("ContainerState", ContainerState, (n) =>
    expectation("Container", Container, Container.fromPartial({ state: n })),
  );
  add("IOPrioClass", IOPrioClass, (n) =>
    expectation("LinuxIOPriority", LinuxIOPriority, LinuxIOPriority.fromPartial({ class: n })),
  );
  add("LinuxSchedulerPolicy", LinuxSchedulerPolicy, (n) =>
    expectation("LinuxScheduler", LinuxScheduler, LinuxScheduler.fromPartial({ policy: n })),
  );
  add("LinuxSchedulerFlag", LinuxSchedulerFlag, (n) =>
    expectation("LinuxScheduler", LinuxScheduler, LinuxScheduler.fromPartial({ flags: [n] })),
  );
  add("MpolMode", MpolMode, (n) =>
    expectation("LinuxMemoryPolicy", LinuxMemoryPolicy, LinuxMemoryPolicy.fromPartial({ mode: n })),
  );
  add("MpolFlag", MpolFlag, (n) =>
    expectation("LinuxMemoryPolicy", LinuxMemoryPolicy, LinuxMemoryPolicy.fromPartial({ flags: [n] })),
  );
  add("SecurityProfile_ProfileType", SecurityProfile_ProfileType, (n) =>
    expectation("SecurityProfile", SecurityProfile, SecurityProfile.fromPartial({ profileType: n })),
  );
  add("LogRequest_Level", LogRequest_Level, (n) =>
    expectation("LogRequest", LogRequest, LogRequest.fromPartial({ level: n })),
  );
  add("Field", Field, (n) =>
    expectation("FieldOwners", FieldOwners, FieldOwners.fromPartial({ simple: { [n]: "10-golden" } })),
  );
  return out;
}

function byName(entries: [string, Expectation][]): ReadonlyMap<string, Expectation> {
  const map = new Map<string, Expectation>();
  for (const [name, expected] of entries) {
    if (map.has(name)) throw new Error(`duplicate golden expectation ${name}`);
    map.set(name, expected);
  }
  return map;
}

/** Every expected message by vector name. */
export const expectations = byName([...messageExpectations(), ...enumExpectations()]);
