/*
 * device-injector: ours (@nri-ts/plugin-device-injector) against a Go twin
 * (cmd/plugin-device-injector: upstream's logic on upstream's stub, pkg/api
 * and sigs.k8s.io/yaml v1.3.0). Both run, launched as a runtime launches
 * them, through the same nri-sim scenario: the merged adjustments and the
 * error texts must be the same, step by step. Then the twin's decoder mode
 * and ours read the same annotated pods, a table of cases and generated
 * ones, and must give the same adjustment or the same error text.
 */
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { ContainerAdjustment } from "@nri-ts/api";
import { type AnnotationKind, deviceAdjustment, KINDS } from "@nri-ts/plugin-device-injector";
import { type SimReport, simulate } from "@nri-ts/sim";
import fc from "fast-check";
import { afterAll, beforeAll, expect, it } from "vitest";
import { LAUNCHES_MS, writeLauncher } from "../fixtures/stub/harness.js";
import { describeWithGo, goCommand, goJsonLines } from "./go.js";
import { ourPluginCommand } from "./plugin-process.js";

const ourProgram = ourPluginCommand("device-injector");

const scenario = `
name: device-injector
runtime: {registrationTimeout: 60s}  # our plugin is launched with Node and tsx: seconds on a busy machine
pods:
  - name: web
    annotations:
      devices.noderesource.dev/container.c0: |
        - path: /dev/nri-null
          type: c
          major: 1
          minor: 3
          file_mode: 0666
      devices.nri.io/container.c1: "- {path: /dev/nri-zero, type: c, major: 1, minor: 5, uid: 1000, gid: 1000}"
      cdi-devices.noderesource.dev/container.c2: "- vendor0.com/device=dev0\\n- vendor1.com/device=dev1"
      mounts.noderesource.dev/container.c2: "- {source: /home, destination: /host-home, type: bind, options: [bind, ro]}"
      io-priority.noderesource.dev/container.c1: "class: IOPRIO_CLASS_RT\\npriority: 2"
      scheduling-policy.noderesource.dev/container.c1: "policy: SCHED_FIFO\\npriority: 10\\nflags: [SCHED_FLAG_RESET_ON_FORK]"
      network-devices.noderesource.dev/container.c0: "- {hostIf: ens2.100, name: netdev0}"
      sysctl.noderesource.dev/pod: "net.core.somaxconn: 256\\nnet.ipv4.ip_forward: yes"
      memory-policy.noderesource.dev/pod: "mode: MPOL_INTERLEAVE\\nnodes: \\"2,3\\"\\nflags: [MPOL_F_STATIC_NODES]"
      memory-policy.noderesource.dev/container.badpolicy: "mode: MPOL_FAST"
      mounts.noderesource.dev/container.badmount: "- {source: /home, options: bind}"
      devices.noderesource.dev/container.baddevice: "- {path: /dev/x, major: 1.5}"
      io-priority.noderesource.dev/container.unknownclass: "class: IOPRIO_CLASS_FAST"
  - name: plain
containers:
  - {name: c0, pod: web}
  - {name: c1, pod: web}
  - {name: c2, pod: web}
  - {name: badpolicy, pod: web}
  - {name: badmount, pod: web}
  - {name: baddevice, pod: web}
  - {name: unknownclass, pod: web}
  - {name: p0, pod: plain}
steps:
  - run-pod: web
  - run-pod: plain
  - create: c0
  - create: c1
  - create: c2
  - create: badpolicy
  - create: badmount
  - create: baddevice
  - create: unknownclass
  - create: p0
`;

function outcome(report: SimReport) {
  return report.steps.map((s) => ({
    step: s.step,
    ok: s.ok,
    error: s.error,
    adjustment: s.adjustment,
    changes: s.changes,
  }));
}

interface Answer {
  adjustment?: unknown;
  error?: string;
  panic?: string;
}

/** Ours in the twin's shape: the adjustment as protojson, or the error. */
/** An error of go-yaml's parser: what comes before the line number is ours too. */
const SYNTAX = /^(.*error converting YAML to JSON: yaml: )line \d+: /;

function ours(container: string, annotations: Record<string, string>): Answer {
  try {
    return {
      adjustment: ContainerAdjustment.toJSON(deviceAdjustment({ name: "pod", annotations }, { name: container })),
    };
  } catch (error) {
    return { error: (error as Error).message };
  }
}

/** JSON with its object keys sorted, so that map order does not count. */
function canonical(value: unknown): string {
  const sort = (v: unknown): unknown =>
    Array.isArray(v)
      ? v.map(sort)
      : v !== null && typeof v === "object"
        ? Object.fromEntries(
            Object.entries(v)
              .sort(([a], [b]) => (a < b ? -1 : 1))
              .map(([k, x]) => [k, sort(x)]),
          )
        : v;
  return JSON.stringify(sort(value));
}

const CASES: Record<string, string>[] = [
  {
    "devices.noderesource.dev/container.c0":
      "- {path: /dev/a, type: c, major: 1, minor: 3}\n- {path: /dev/b, type: b, major: 8, minor: 1, file_mode: 0600, uid: 0, gid: 7}",
  },
  { "devices.noderesource.dev/pod": "- {path: /dev/a}", "devices.nri.io/container.c0": "- {path: /dev/legacy}" },
  { "devices.noderesource.dev": "", "devices.nri.io": "- {path: /dev/ignored}" },
  { "devices.noderesource.dev/container.c0": "- {path: /dev/x, uid: -1}" },
  { "devices.noderesource.dev/container.c0": "path: /dev/x" },
  { "cdi-devices.noderesource.dev/container.c0": "- vendor.com/class=a\n- 5\n- yes" },
  { "cdi-devices.nri.io/pod": "vendor.com/class=a" },
  { "mounts.noderesource.dev/container.c0": "- {source: /a, destination: /b, type: bind, options: [rbind, ro, 5]}" },
  { "mounts.noderesource.dev/container.c0": "- {source: /a, options: ro}" },
  { "io-priority.noderesource.dev/container.c0": "class: IOPRIO_CLASS_IDLE\npriority: 7" },
  { "io-priority.nri.io": "class: bogus" },
  { "io-priority.noderesource.dev": "" },
  { "io-priority.noderesource.dev": "priority: 2147483648" },
  {
    "scheduling-policy.noderesource.dev/container.c0":
      "policy: SCHED_DEADLINE\nruntime: 1e6\ndeadline: 0x1E8480\nperiod: 2000000\nflags: [SCHED_FLAG_RECLAIM, BOGUS]",
  },
  { "scheduling-policy.nri.io": "policy: SCHED_WHAT\nnice: -20" },
  { "scheduling-policy.noderesource.dev": "" },
  { "scheduling-policy.noderesource.dev": "flags: x" },
  {
    "network-devices.noderesource.dev/container.c0":
      "- {hostIf: ens2, name: net0}\n- {hostIf: ens2, name: net1}\n- {hostIf: ens3}",
  },
  { "network-devices.noderesource.dev": "" },
  { "network-devices.nri.io/pod": "- x" },
  { "sysctl.noderesource.dev/container.c0": "net.core.somaxconn: 256\nkernel.x: 1.5\nkernel.y: ~\nkernel.z: yes" },
  { "sysctl.noderesource.dev": "a: [1]" },
  { "sysctl.nri.io": "a: b" },
  {
    "memory-policy.noderesource.dev/container.c0":
      "mode: MPOL_BIND\nnodes: 0-3\nflags: [MPOL_F_RELATIVE_NODES, MPOL_F_NUMA_BALANCING]",
  },
  { "memory-policy.noderesource.dev": "mode: MPOL_BIND\nflags: [MPOL_F_WHAT]" },
  { "memory-policy.noderesource.dev": "" },
  { "memory-policy.noderesource.dev": "mode: [x]" },
  { "mounts.noderesource.dev": "x: [", "devices.noderesource.dev": "- path: [a]" },
  {
    "devices.noderesource.dev": "- {path: /dev/a}",
    "cdi-devices.noderesource.dev": "- v.com/c=d",
    "mounts.noderesource.dev": "- {source: /s, destination: /d}",
    "io-priority.noderesource.dev": "class: IOPRIO_CLASS_BE",
    "scheduling-policy.noderesource.dev": "policy: SCHED_BATCH",
    "network-devices.noderesource.dev": "- {hostIf: h, name: n}",
    "sysctl.noderesource.dev": "k: v",
    "memory-policy.noderesource.dev": "mode: MPOL_LOCAL",
  },
];

/** Generated pods: keys of every kind at every level, values good, odd and broken. */
function generatedPods(): Record<string, string>[] {
  const keys = Object.values(KINDS).flatMap((kind: AnnotationKind) =>
    [kind.key, kind.legacyKey ?? kind.key].flatMap((k) => [k, `${k}/pod`, `${k}/container.c0`, `${k}/container.other`]),
  );
  const scalar = fc.oneof(
    fc.constantFrom(
      "1",
      "-1",
      "0644",
      "0x10",
      "1.5",
      "1e3",
      "yes",
      "~",
      '""',
      "'x'",
      "4294967296",
      "9223372036854775808",
      "[1]",
      "{a: b}",
    ),
    fc.constantFrom(
      "/dev/x",
      "c",
      "IOPRIO_CLASS_RT",
      "SCHED_FIFO",
      "SCHED_FLAG_RECLAIM",
      "MPOL_BIND",
      "MPOL_F_STATIC_NODES",
      "bogus",
      "vendor.com/c=d",
    ),
  );
  const field = fc.constantFrom(
    "path",
    "type",
    "major",
    "minor",
    "file_mode",
    "uid",
    "gid",
    "source",
    "destination",
    "options",
    "class",
    "priority",
    "hostIf",
    "name",
    "policy",
    "nice",
    "flags",
    "runtime",
    "deadline",
    "period",
    "mode",
    "nodes",
    "Path",
    "MODE",
    "other",
  );
  const list = fc.array(scalar, { maxLength: 3 }).map((items) => `[${items.join(", ")}]`);
  const value = fc.oneof(scalar, list);
  const mapping = fc
    .array(fc.tuple(field, value), { maxLength: 4 })
    .map((pairs) => `{${pairs.map(([k, v]) => `${k}: ${v}`).join(", ")}}`);
  const annotation = fc.oneof(
    fc.array(mapping, { maxLength: 3 }).map((items) => items.map((m) => `- ${m}`).join("\n")),
    fc.array(fc.tuple(field, value), { maxLength: 4 }).map((pairs) => pairs.map(([k, v]) => `${k}: ${v}`).join("\n")),
    fc.array(scalar, { maxLength: 3 }).map((items) => items.map((s) => `- ${s}`).join("\n")),
    fc.constantFrom("", "{{", "- {"),
  );
  // and pods that mostly hold: each kind's own shape, with numbers in any YAML 1.1 syntax
  const n = fc.oneof(
    fc.integer({ min: 0, max: 4096 }).map(String),
    fc.integer({ min: 0, max: 0o777 }).map((x) => `0${x.toString(8)}`),
    fc.constant("0x1F"),
  );
  const name = fc.constantFrom("a", "b0", "x.y", "ens2.100", "vendor.com/gpu=0", "/dev/null");
  const shapes: [string, fc.Arbitrary<string>][] = [
    [
      "devices.noderesource.dev",
      fc
        .tuple(name, n, n, n, n)
        .map(([p, a, b, m, u]) => `- {path: ${p}, type: c, major: ${a}, minor: ${b}, file_mode: ${m}, uid: ${u}}`),
    ],
    [
      "cdi-devices.noderesource.dev",
      fc.array(name, { minLength: 1, maxLength: 3 }).map((xs) => xs.map((x) => `- ${x}`).join("\n")),
    ],
    [
      "mounts.noderesource.dev",
      fc.tuple(name, name).map(([a, b]) => `- source: ${a}\n  destination: ${b}\n  type: bind\n  options: [rbind, ro]`),
    ],
    [
      "io-priority.noderesource.dev",
      fc
        .tuple(fc.constantFrom("IOPRIO_CLASS_RT", "IOPRIO_CLASS_BE", "IOPRIO_CLASS_IDLE", "IOPRIO_CLASS_NONE"), n)
        .map(([c, p]) => `class: ${c}\npriority: ${p}`),
    ],
    [
      "scheduling-policy.noderesource.dev",
      fc
        .tuple(fc.constantFrom("SCHED_FIFO", "SCHED_RR", "SCHED_DEADLINE", "SCHED_OTHER"), n, n)
        .map(([p, a, b]) => `policy: ${p}\npriority: ${a}\nruntime: ${b}\nflags: [SCHED_FLAG_RECLAIM]`),
    ],
    ["network-devices.noderesource.dev", fc.tuple(name, name).map(([h, x]) => `- {hostIf: ${h}, name: ${x}}`)],
    ["sysctl.noderesource.dev", fc.tuple(name, n).map(([k, v]) => `${k}: ${v}\nnet.core.somaxconn: "256"`)],
    [
      "memory-policy.noderesource.dev",
      fc
        .tuple(fc.constantFrom("MPOL_BIND", "MPOL_INTERLEAVE", "MPOL_LOCAL"), n)
        .map(([m, x]) => `mode: ${m}\nnodes: "${x}"\nflags: [MPOL_F_STATIC_NODES]`),
    ],
  ];
  const level = fc.constantFrom("", "/pod", "/container.c0");
  const good = fc.array(
    fc
      .tuple(fc.constantFrom(...shapes.keys()), level)
      .chain(([i, l]) => shapes[i][1].map((v) => [`${shapes[i][0]}${l}`, v] as const)),
    { minLength: 1, maxLength: 4 },
  );
  return [
    ...fc.sample(fc.dictionary(fc.constantFrom(...keys), annotation, { minKeys: 1, maxKeys: 4 }), {
      numRuns: 1000,
      seed: 20260401,
    }),
    ...fc.sample(
      good.map((pairs) => Object.fromEntries(pairs)),
      { numRuns: 500, seed: 20260402 },
    ),
  ];
}

describeWithGo("device-injector: ours and Go's", () => {
  let goBin: string;
  let dir: string;

  beforeAll(async () => {
    goBin = await goCommand("plugin-device-injector");
    dir = await mkdtemp(join(tmpdir(), "nri-device-injector-conformance-"));
  }, 180_000);

  afterAll(() => rm(dir, { recursive: true, force: true }));

  it("adjust the same containers alike, and fail the same ones with the same errors, under nri-sim", {
    timeout: LAUNCHES_MS,
  }, async () => {
    const runWith = async (command: string[]) => {
      const plugins = await mkdtemp(join(dir, "plugins-"));
      await writeLauncher(plugins, "10-device-injector", command);
      return simulate(scenario, { pluginDir: plugins, clock: "virtual" });
    };
    const [go, ts] = [await runWith([goBin]), await runWith(ourProgram)];
    expect(outcome(ts)).toEqual(outcome(go));
    expect(go.steps.map((s) => s.ok)).toEqual([true, true, true, true, true, false, false, false, true, true]);
    expect(go.steps[2].adjustment).toMatchObject({
      linux: { devices: [{ path: "/dev/nri-null", fileMode: 0o666 }], netDevices: { "ens2.100": { name: "netdev0" } } },
    });
  });

  it("read the same annotated pods alike: a table of cases and 1,500 generated pods", async () => {
    const pods = [...CASES, ...generatedPods()];
    const answers = await goJsonLines<Answer>(
      goBin,
      ["-decode"],
      pods.map((annotations) => ({ container: "c0", annotations })),
    );
    const results = pods.map((annotations, i) => ({ annotations, go: answers[i], ours: ours("c0", annotations) }));
    // where the upstream plugin crashes (a null network device), ours fails the container
    for (const r of results.filter((r) => r.go.panic !== undefined))
      expect(r.ours.error).toMatch(/^invalid net device annotation .*: entry \d+ is null$/);
    // go-yaml's syntax errors are worded by its parser, ours by ours: the same text up to the line
    const syntax = results.filter((r) => SYNTAX.test(r.go.error ?? ""));
    for (const r of syntax) expect(r.ours.error?.match(SYNTAX)?.[1]).toBe(r.go.error?.match(SYNTAX)?.[1]);
    const mismatches = results.filter(
      (r) => r.go.panic === undefined && !syntax.includes(r) && canonical(r.go) !== canonical(r.ours),
    );
    expect(mismatches.slice(0, 5)).toEqual([]);
    const adjusted = results.filter((r) => r.go.adjustment !== undefined && canonical(r.go.adjustment) !== "{}").length;
    const failed = results.filter((r) => r.go.error !== undefined).length;
    expect(adjusted).toBeGreaterThan(200);
    expect(failed).toBeGreaterThan(200);
  });
});
