/*
 * Merge scenarios: one runtime request and what each plugin answers to it,
 * to be decided by the Go adaptation and by the @nri-ts/adaptation merge
 * engine alike. The fast-check arbitraries draw keys from small pools, so
 * that plugins often touch the same field (conflicts), remove what another
 * one set (removal markers, takeovers) and update the same containers.
 */
import type {
  Container,
  ContainerAdjustment,
  ContainerUpdate,
  CreateContainerRequest,
  CreateContainerResponse,
  DeepPartial,
  LinuxContainerAdjustment,
  LinuxResources,
  StopContainerRequest,
  StopContainerResponse,
  UpdateContainerRequest,
  UpdateContainerResponse,
} from "@nri-ts/api";
import fc from "fast-check";

/** A plugin of a scenario; plugins are listed in invocation (index) order. */
export interface ScenarioPlugin<Response> {
  index: string;
  name: string;
  /** Its answer to the request; null: not subscribed to it. */
  response: DeepPartial<Response> | null;
  /** Makes it a validator that rejects every adjustment with this reason. */
  reject?: string;
}

export interface CreateScenario {
  kind: "create";
  request: DeepPartial<CreateContainerRequest>;
  plugins: Array<ScenarioPlugin<CreateContainerResponse>>;
  /** The builtin default validator's configuration, under its YAML keys. */
  defaultValidator?: Record<string, unknown>;
}

export interface UpdateScenario {
  kind: "update";
  request: DeepPartial<UpdateContainerRequest>;
  plugins: Array<ScenarioPlugin<UpdateContainerResponse>>;
}

export interface StopScenario {
  kind: "stop";
  request: DeepPartial<StopContainerRequest>;
  plugins: Array<ScenarioPlugin<StopContainerResponse>>;
}

export type MergeScenario = CreateScenario | UpdateScenario | StopScenario;

/** The container every request is about; updates may also name OTHER_CONTAINERS. */
export const CONTAINER = "ctr0";
const OTHER_CONTAINERS = ["ctr1", "ctr2"];

/** Three plugins, in invocation order (the default validator is 00, the Go side's capture validator 99). */
const PLUGINS = [
  { index: "10", name: "p1" },
  { index: "20", name: "p2" },
  { index: "30", name: "p3" },
];

/** Present three times in four. */
function usually<T>(arb: fc.Arbitrary<T>): fc.Arbitrary<T | undefined> {
  return fc.option(arb, { nil: undefined, freq: 4 });
}

/** Present about one time in three. */
function sometimes<T>(arb: fc.Arbitrary<T>): fc.Arbitrary<T | undefined> {
  return fc.oneof({ arbitrary: fc.constant(undefined), weight: 2 }, { arbitrary: arb, weight: 1 });
}

/** Present about one time in twenty. */
function rarely<T>(arb: fc.Arbitrary<T>): fc.Arbitrary<T | undefined> {
  return fc.oneof({ arbitrary: fc.constant(undefined), weight: 19 }, { arbitrary: arb, weight: 1 });
}

const wrapped = <T>(values: T[]) => fc.constantFrom(...values).map((value) => ({ value }));
const int64 = wrapped([0n, 1n, -1n, 1000n]);
const uint64 = wrapped([0n, 2n, 1024n]);

const memory = fc.record({
  limit: sometimes(int64),
  reservation: sometimes(int64),
  swap: sometimes(int64),
  kernel: sometimes(int64),
  kernelTcp: sometimes(int64),
  swappiness: sometimes(uint64),
  disableOomKiller: sometimes(wrapped([true, false])),
  useHierarchy: sometimes(wrapped([true, false])),
});

const cpu = fc.record({
  shares: sometimes(uint64),
  quota: sometimes(int64),
  period: sometimes(uint64),
  realtimeRuntime: sometimes(int64),
  realtimePeriod: sometimes(uint64),
  cpus: fc.constantFrom("", "0-1", "2"),
  mems: fc.constantFrom("", "0"),
});

/** Resources whose unified map has up to `unifiedKeys` keys. */
const resourcesWith = (unifiedKeys: number): fc.Arbitrary<DeepPartial<LinuxResources>> =>
  fc.record({
    memory: sometimes(memory),
    cpu: sometimes(cpu),
    hugepageLimits: rarely(
      fc.array(fc.record({ pageSize: fc.constantFrom("2MB", "1GB"), limit: fc.constantFrom(0n, 4096n) }), {
        maxLength: 2,
      }),
    ),
    unified: fc.dictionary(fc.constantFrom("memory.high", "memory.low"), fc.constantFrom("1", "max"), {
      maxKeys: unifiedKeys,
    }),
    blockioClass: sometimes(wrapped(["gold", "silver"])),
    rdtClass: sometimes(wrapped(["gold", "silver"])),
    pids: sometimes(fc.constantFrom(0n, 10n).map((limit) => ({ limit }))),
    devices: fc.array(
      fc.record({ allow: fc.boolean(), type: fc.constant("c"), major: sometimes(int64), access: fc.constant("rw") }),
      { maxLength: 1 },
    ),
  });
const resources = resourcesWith(2);

/** Keys with their removal markers (`-key`) mixed in. */
const keys = (...names: string[]) => fc.constantFrom(...names, ...names.slice(0, 2).map((name) => `-${name}`));

function linuxAdjustment(tag: string): fc.Arbitrary<DeepPartial<LinuxContainerAdjustment>> {
  return fc.record({
    devices: fc.array(
      fc.record({
        path: keys("/dev/d1", "/dev/d2", "/dev/d3"),
        type: fc.constant("c"),
        major: fc.constant(1n),
        minor: fc.constantFrom(1n, 2n),
      }),
      { maxLength: 3 },
    ),
    resources: sometimes(resources),
    cgroupsPath: fc.constantFrom("", `/${tag}`),
    oomScoreAdj: sometimes(wrapped([0, -500, 1000])),
    ioPriority: sometimes(fc.constantFrom({ class: 1, priority: 3 }, { class: 2, priority: 0 })),
    seccompPolicy: sometimes(fc.constant({ defaultAction: "SCMP_ACT_ALLOW", architectures: ["SCMP_ARCH_X86_64"] })),
    namespaces: fc.array(fc.record({ type: keys("network", "ipc", "cgroup"), path: fc.constant(`/ns/${tag}`) }), {
      maxLength: 2,
    }),
    sysctl: fc.dictionary(keys("net.a", "net.b", "net.c"), fc.constant(tag), { maxKeys: 3 }),
    netDevices: fc.dictionary(keys("eth1", "eth2"), fc.constant({ name: `if-${tag}` }), { maxKeys: 2 }),
    scheduler: sometimes(fc.constant({ policy: 1, priority: 5, flags: [1] })),
    rdt: sometimes(
      fc.record({
        closId: sometimes(fc.constant({ value: tag })),
        schemata: sometimes(fc.constant({ value: ["L3:0=f"] })),
        enableMonitoring: sometimes(wrapped([true, false])),
        remove: fc.boolean(),
      }),
    ),
    memoryPolicy: sometimes(fc.constant({ mode: 1, nodes: "0", flags: [1] })),
  });
}

const hook = (path: string) => ({ path, args: [path, "--now"], env: ["X=1"] });

/** An adjustment; `tag` (the plugin's full name) marks the values it sets. */
function adjustment(tag: string): fc.Arbitrary<DeepPartial<ContainerAdjustment>> {
  return fc.record({
    annotations: sometimes(fc.dictionary(keys("a", "b", "c"), fc.constant(tag), { maxKeys: 3 })),
    mounts: sometimes(
      fc.array(
        fc.record({
          destination: keys("/m1", "/m2", "/m3"),
          type: fc.constant("bind"),
          source: fc.constant(`/src/${tag}`),
          options: fc.constantFrom([], ["ro"]),
        }),
        { maxLength: 3 },
      ),
    ),
    env: sometimes(fc.array(fc.record({ key: keys("A", "B", "D"), value: fc.constant(tag) }), { maxLength: 3 })),
    args: sometimes(fc.constantFrom(["run", tag], ["", tag], [""])),
    hooks: sometimes(
      fc.record({
        prestart: fc.constantFrom([], [hook(`/hooks/${tag}/prestart`)]),
        createRuntime: fc.constantFrom([], [hook(`/hooks/${tag}/create-runtime`)]),
        poststop: fc.constantFrom([], [hook(`/hooks/${tag}/poststop`)]),
      }),
    ),
    linux: sometimes(linuxAdjustment(tag)),
    rlimits: rarely(
      fc.array(
        fc.record({
          type: fc.constantFrom("RLIMIT_NOFILE", "RLIMIT_NPROC"),
          hard: fc.constantFrom(0n, 1024n),
          soft: fc.constantFrom(0n, 512n),
        }),
        {
          maxLength: 2,
        },
      ),
    ),
    CDIDevices: rarely(
      fc.array(fc.record({ name: fc.constantFrom("vendor.com/dev=a", "vendor.com/dev=b") }), { maxLength: 2 }),
    ),
  });
}

/*
 * An update whose conflict ignoreFailure swallows keeps the claims it made
 * before the conflict (a Go quirk we reproduce). Within a unified map with
 * several keys, which keys those are depends on Go's map order, and it then
 * decides whether later updates of those keys conflict: the request may
 * fail in one Go run and pass in the next. Ignorable updates therefore
 * carry at most one unified key; the others up to two.
 */
function updates(
  containers: fc.Arbitrary<string>,
  maxLength: number,
): fc.Arbitrary<Array<DeepPartial<ContainerUpdate>>> {
  const update = (ignoreFailure: boolean) =>
    fc.record({
      containerId: containers,
      ignoreFailure: fc.constant(ignoreFailure),
      linux: sometimes(fc.record({ resources: sometimes(resourcesWith(ignoreFailure ? 1 : 2)) })),
    });
  return fc.array(fc.oneof(update(false), update(true)), { maxLength });
}

const anyContainer = fc.constantFrom(CONTAINER, ...OTHER_CONTAINERS);
/** During creation an update of the container being created fails the request: rarely. */
const mostlyOtherContainers = fc.oneof(
  { arbitrary: fc.constantFrom(...OTHER_CONTAINERS), weight: 39 },
  { arbitrary: fc.constant(CONTAINER), weight: 1 },
);

/** The container as the runtime sends it, with fields the plugins may change. */
const container: fc.Arbitrary<DeepPartial<Container>> = fc.record({
  id: fc.constant(CONTAINER),
  podSandboxId: fc.constant("pod0"),
  name: fc.constant(CONTAINER),
  annotations: fc.dictionary(fc.constantFrom("a", "b"), fc.constant("runtime"), { maxKeys: 2 }),
  args: fc.constantFrom<string[]>([], ["sh", "-c", "true"]),
  env: fc.subarray(["A=1", "B=2", "C", "D=x=y"]),
  mounts: fc.subarray([
    { destination: "/m1", type: "bind", source: "/runtime/m1", options: ["rbind"] },
    { destination: "/m2", type: "bind", source: "/runtime/m2", options: [] },
  ]),
  linux: sometimes(
    fc.record({
      devices: fc.subarray([
        { path: "/dev/d1", type: "c", major: 1n, minor: 0n },
        { path: "/dev/d2", type: "b", major: 8n, minor: 0n },
      ]),
      // A type listed twice: once a plugin adjusts namespaces, only the last of them is left.
      namespaces: fc.subarray([
        { type: "network", path: "/run/netns/a" },
        { type: "cgroup", path: "" },
        { type: "network", path: "/run/netns/b" },
      ]),
      sysctl: fc.dictionary(fc.constantFrom("net.a", "net.b"), fc.constant("runtime"), { maxKeys: 2 }),
      netDevices: fc.dictionary(fc.constant("eth1"), fc.constant({ name: "runtime" }), { maxKeys: 1 }),
      resources: sometimes(resources),
    }),
  ),
});

const pod = { id: "pod0", name: "pod0", namespace: "default", uid: "uid0" };

/** Each plugin answers (or, one time in four, is not subscribed); one in twenty is also a rejecting validator. */
function plugins<Response>(
  response: (tag: string) => fc.Arbitrary<DeepPartial<Response>>,
  validators: boolean,
): fc.Arbitrary<Array<ScenarioPlugin<Response>>> {
  return fc
    .tuple(
      ...PLUGINS.map(({ index, name }) =>
        fc.record({
          index: fc.constant(index),
          name: fc.constant(name),
          response: fc.option(response(`${index}-${name}`), { nil: null, freq: 4 }),
          reject: validators ? rarely(fc.constantFrom("", `${name} says no`)) : fc.constant(undefined),
        }),
      ),
    )
    .map((list) => list.map(({ reject, ...plugin }) => (reject === undefined ? plugin : { ...plugin, reject })));
}

export const createScenario: fc.Arbitrary<CreateScenario> = fc.record({
  kind: fc.constant("create"),
  request: fc.record({ pod: fc.constant(pod), container }),
  plugins: plugins<CreateContainerResponse>(
    (tag) => fc.record({ adjust: usually(adjustment(tag)), update: updates(mostlyOtherContainers, 2) }),
    true,
  ),
});

export const updateScenario: fc.Arbitrary<UpdateScenario> = fc.record({
  kind: fc.constant("update"),
  request: fc.record({ pod: fc.constant(pod), container, linuxResources: sometimes(resources) }),
  plugins: plugins<UpdateContainerResponse>(() => fc.record({ update: updates(anyContainer, 3) }), false),
});

export const stopScenario: fc.Arbitrary<StopScenario> = fc.record({
  kind: fc.constant("stop"),
  request: fc.record({ pod: fc.constant(pod), container }),
  plugins: plugins<StopContainerResponse>(() => fc.record({ update: updates(anyContainer, 3) }), false),
});

/*
 * Default validator scenarios: its configuration, the pod annotations it
 * reads (required plugins as YAML lists, good and bad, at pod and container
 * level; the toleration), the container's seccomp profile, and adjustments
 * of exactly what it checks.
 */
const TOLERATION = "example.com/tolerate-missing-plugins";
const REQUIRED = "required-plugins.noderesource.dev";
const annotationKey = (base: string) =>
  fc.constantFrom(base, `${base}/pod`, `${base}/container.${CONTAINER}`, `${base}/container.other`);

/** Rules are switched on one time in three, so that scenarios pass as well as fail. */
const rule = fc.constantFrom(false, false, true);

const validatorConfig = fc.record({
  enable: fc.constant(true),
  rejectOCIHookAdjustment: rule,
  rejectRuntimeDefaultSeccompAdjustment: rule,
  rejectUnconfinedSeccompAdjustment: rule,
  rejectCustomSeccompAdjustment: rule,
  rejectNamespaceAdjustment: rule,
  rejectSysctlAdjustment: rule,
  requiredPlugins: fc.oneof(
    { arbitrary: fc.constant([]), weight: 1 },
    { arbitrary: fc.subarray(["p1", "20-p2", "missing", "default-validator", "00-p1"]), weight: 1 },
  ),
  tolerateMissingPluginsAnnotation: fc.constantFrom("", TOLERATION),
});

const validatorAnnotations = fc.dictionary(
  fc.oneof(annotationKey(TOLERATION), annotationKey(REQUIRED)),
  fc.constantFrom(
    "true",
    "false",
    "1",
    "maybe",
    "[p1]",
    "- missing",
    "[ 10-p1, p2 ]",
    '[p3, "20-p2"]',
    "p1",
    "",
    "~",
    "[a, ~, b]",
    "{a: 1}",
    "[a, [b]]",
    '["unclosed"',
    "12",
  ),
  { maxKeys: 2 },
);

function validatedAdjustment(tag: string): fc.Arbitrary<DeepPartial<ContainerAdjustment>> {
  return fc.record({
    hooks: sometimes(fc.constant({ prestart: [hook(`/hooks/${tag}`)] })),
    linux: sometimes(
      fc.record({
        seccompPolicy: sometimes(fc.constant({ defaultAction: "SCMP_ACT_ERRNO" })),
        namespaces: fc.subarray([
          { type: "network", path: `/ns/${tag}` },
          { type: "-ipc", path: "" },
        ]),
        sysctl: fc.dictionary(fc.constantFrom("net.a", "-net.b", "net.c"), fc.constant(tag), { maxKeys: 2 }),
      }),
    ),
  });
}

export const validatorScenario: fc.Arbitrary<CreateScenario> = fc.record({
  kind: fc.constant("create"),
  request: fc.record({
    pod: validatorAnnotations.map((annotations) => ({ ...pod, annotations })),
    container: fc.record({
      id: fc.constant(CONTAINER),
      name: fc.constant(CONTAINER),
      // undefined: no profile; else UNCONFINED, RUNTIME_DEFAULT or LOCALHOST
      linux: fc
        .constantFrom(undefined, 0, 1, 2)
        .map((profileType) => (profileType === undefined ? undefined : { seccompProfile: { profileType } })),
    }),
  }),
  plugins: plugins<CreateContainerResponse>((tag) => fc.record({ adjust: usually(validatedAdjustment(tag)) }), true),
  defaultValidator: validatorConfig,
});
