/*
 * @nri-ts/sigs-yaml against sigs.k8s.io/yaml v1.3.0: cmd/sigs-yaml-oracle
 * decodes YAML into the Go types of the upstream plugins (same names,
 * fields and JSON tags), and ours decodes the same text into the same types
 * described with `go.*`. Values and error texts must be the same, for a
 * table of corner cases and for generated documents of every shape.
 */
import { decodeSigsYaml, go, type GoType } from "@nri-ts/sigs-yaml";
import fc from "fast-check";
import { beforeAll, expect, it } from "vitest";
import { describeWithGo, goCommand, goJsonLines } from "./go.js";

const device = go.struct("main.device", {
  path: go.string,
  type: go.string,
  major: go.int64,
  minor: go.int64,
  file_mode: go.uint32,
  uid: go.uint32,
  gid: go.uint32,
});
const mount = go.struct("main.mount", {
  source: go.string,
  destination: go.string,
  type: go.string,
  options: go.slice(go.string),
});
const TYPES: Record<string, { type: GoType; base?: unknown }> = {
  ulimits: { type: go.slice(go.struct("main.ulimit", { type: go.string, hard: go.uint64, soft: go.uint64 })) },
  devices: { type: go.slice(device) },
  "cdi-devices": { type: go.slice(go.string) },
  mounts: { type: go.slice(mount) },
  "io-priority": { type: go.struct("main.ioPrio", { class: go.string, priority: go.int32 }) },
  "network-devices": {
    type: go.slice(go.pointer(go.struct("main.netDevice", { hostIf: go.string, name: go.string }))),
  },
  scheduler: {
    type: go.struct("main.scheduler", {
      policy: go.string,
      nice: go.int32,
      priority: go.int32,
      flags: go.slice(go.string),
      runtime: go.uint64,
      deadline: go.uint64,
      period: go.uint64,
    }),
  },
  sysctl: { type: go.map(go.string) },
  "memory-policy": {
    type: go.struct("main.memoryPolicy", { mode: go.string, nodes: go.string, flags: go.slice(go.string) }),
  },
  netdevices: {
    type: go.slice(
      go.struct("main.netdevice", {
        name: go.string,
        new_name: go.string,
        address: go.string,
        prefix: go.int,
        mtu: go.int,
      }),
    ),
  },
  "logger-config": {
    type: go.struct("main.config", {
      logFile: go.string,
      events: go.slice(go.string),
      addAnnotation: go.string,
      setAnnotation: go.string,
      addEnv: go.string,
      setEnv: go.string,
    }),
    base: { logFile: "", events: [""], addAnnotation: "", setAnnotation: "", addEnv: "", setEnv: "" },
  },
};

interface Answer {
  value?: unknown;
  error?: string;
}

/** A decoded value as the oracle writes it: integers as text, maps as objects, keys sorted. */
function plain(value: unknown): unknown {
  if (typeof value === "bigint" || typeof value === "number") return String(value);
  if (Array.isArray(value)) return value.map(plain);
  const entries =
    value instanceof Map ? [...value] : value !== null && typeof value === "object" ? Object.entries(value) : undefined;
  if (entries === undefined) return value;
  return Object.fromEntries(entries.sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)).map(([k, v]) => [k, plain(v)]));
}

function ours(type: string, yaml: string): Answer {
  const { type: goType, base } = TYPES[type];
  try {
    return { value: plain(decodeSigsYaml(yaml, goType, { base: structuredClone(base) })) };
  } catch (error) {
    return { error: (error as Error).message };
  }
}

async function goAnswers(bin: string, cases: readonly (readonly [string, string])[]): Promise<Answer[]> {
  const answers = await goJsonLines<Answer>(
    bin,
    [],
    cases.map(([type, yaml]) => ({ type, yaml })),
  );
  return answers.map((answer) => (answer.value === undefined ? answer : { value: plain(answer.value) }));
}

async function compare(bin: string, cases: readonly (readonly [string, string])[]) {
  const answers = await goAnswers(bin, cases);
  const results = cases.map(([type, yaml], i) => ({ type, yaml, go: answers[i], ours: ours(type, yaml) }));
  return { results, mismatches: results.filter((r) => JSON.stringify(r.go) !== JSON.stringify(r.ours)) };
}

const CORNERS: [string, string][] = [
  ["devices", "- {path: /dev/x, type: c, major: 1, minor: 3, file_mode: 0644, uid: 1000, gid: 0x10}"],
  ["devices", "- {path: /dev/x, major: 1.5}"],
  ["devices", "- {path: /dev/x, major: 9223372036854775808}"],
  ["devices", "- {path: /dev/x, major: -9223372036854775808, minor: -1}"],
  ["devices", "- {path: /dev/x, uid: -1}"],
  ["devices", "- {path: /dev/x, uid: 4294967296}"],
  ["devices", "- {path: /dev/x, file_mode: 0o777, FILE_MODE: 0600}"],
  ["devices", "- {path: 5, type: yes}"],
  ["devices", "- {Path: /dev/x, MAJOR: 1e3}"],
  ["devices", "- null\n- ~"],
  ["devices", "path: /dev/x"],
  ["cdi-devices", "- vendor.com/class=name\n- 5\n- true\n- ~"],
  ["cdi-devices", "- [a]"],
  ["cdi-devices", "vendor.com/class=name"],
  ["mounts", "- {source: /a, destination: /b, type: bind, options: [bind, ro, 5]}"],
  ["mounts", "- {source: /a, options: bind}"],
  ["mounts", "- {source: /a, options: [[x]]}"],
  ["io-priority", "class: IOPRIO_CLASS_RT\npriority: 2"],
  ["io-priority", "class: 5\npriority: 2147483648"],
  ["io-priority", "priority: -2147483648"],
  ["io-priority", "[a]"],
  ["io-priority", "~"],
  ["io-priority", ""],
  ["network-devices", "- {hostIf: ens2.100, name: netdev0}\n- hostIf: 7"],
  ["network-devices", "- null"],
  ["network-devices", "- x"],
  ["scheduler", "policy: SCHED_FIFO\npriority: 10\nflags: [SCHED_FLAG_RESET_ON_FORK]"],
  ["scheduler", "policy: SCHED_DEADLINE\nruntime: 1e6\ndeadline: 0x100\nperiod: -1"],
  ["scheduler", "nice: -20\nflags: [1, {a: b}]"],
  ["scheduler", "flags: x"],
  ["sysctl", "net.core.somaxconn: 256\nnet.ipv4.ip_forward: yes\nkernel.x: 1.5\nkernel.y: ~"],
  ["sysctl", "a: [1]\nb: {c: d}"],
  ["sysctl", "1: a\ntrue: b\n0x10: c\n1.5: d"],
  ["sysctl", "- a"],
  ["sysctl", "__proto__: x\nconstructor: y"],
  ["memory-policy", 'mode: MPOL_INTERLEAVE\nnodes: "2,3"\nflags: [MPOL_F_STATIC_NODES]'],
  ["memory-policy", "mode: MPOL_BIND\nnodes: 2,3"],
  ["memory-policy", "mode: MPOL_BIND\nnodes: 1"],
  ["memory-policy", "mode: MPOL_BIND\nnodes: [1]"],
  ["netdevices", "- {name: dummy0, new_name: eth33, address: 192.168.2.2, prefix: 24, mtu: 1500}"],
  ["netdevices", "- {name: dummy0, prefix: 9223372036854775808}"],
  ["netdevices", "- {name: dummy0, mtu: 15.5}"],
  ["netdevices", "<<:"],
  ["netdevices", "- <<:\n  name: x"],
  ["sysctl", "a: b\n<<:"],
  ["sysctl", "<<: [{a: b}, ]"],
  ["sysctl", "<<: [{a: b}, ~]"],
  ["sysctl", "{<<}"],
  ["logger-config", "events: [CreateContainer, StopContainer]\naddEnv: X"],
  ["logger-config", "logFile: /tmp/x"],
  ["logger-config", "events: [null, b]"],
  ["logger-config", "events: ~"],
  ["logger-config", "events: []"],
  ["logger-config", "events: x"],
  ["logger-config", "addAnnotation: ~\nsetEnv: 12"],
  ["logger-config", "[a]"],
  ["logger-config", "~"],
];

/** Generated documents for one type: its own keys in any case, other keys, scalars of every YAML 1.1 form, wrong shapes. */
function documents(type: GoType & { kind: string }): fc.Arbitrary<string> {
  const fields = (t: GoType): string[] => {
    if (t.kind === "struct") return Object.keys(t.fields);
    if (t.kind === "slice" || t.kind === "pointer" || t.kind === "map") return fields(t.elem);
    return [];
  };
  const own = fields(type);
  const key = fc.oneof(
    { weight: 6, arbitrary: own.length > 0 ? fc.constantFrom(...own) : fc.constant("k") },
    { weight: 2, arbitrary: (own.length > 0 ? fc.constantFrom(...own) : fc.constant("k")).map((k) => k.toUpperCase()) },
    { weight: 1, arbitrary: fc.constantFrom("other", "1", "yes", "~", "<<", "a.b", "Kind", "\u017fource") },
  );
  const scalar = fc.oneof(
    fc.bigInt({ min: -(1n << 65n), max: 1n << 65n }).map(String),
    fc.integer({ min: -70000, max: 70000 }).map(String),
    fc.integer({ min: 0, max: 0o7777 }).map((n) => `0${n.toString(8)}`),
    fc.integer({ min: 0, max: 1 << 20 }).map((n) => `0x${n.toString(16)}`),
    fc.double({ noNaN: true }).map(String),
    fc.constantFrom(
      "~",
      "null",
      "yes",
      "No",
      "on",
      "true",
      ".inf",
      "-.Inf",
      ".nan",
      '""',
      "'12'",
      '"x"',
      "1e3",
      "0.5",
      "2001-12-14",
      "a,b",
      "!!str 5",
      "!!int 7",
    ),
    fc.stringMatching(/^[a-zA-Z_/.][a-zA-Z0-9_/.=-]{0,8}$/),
  );
  const value: fc.Arbitrary<string> = fc.letrec<{ v: string }>((tie) => ({
    v: fc.oneof(
      { depthSize: "small", withCrossShrink: true },
      { weight: 5, arbitrary: scalar },
      { weight: 1, arbitrary: fc.array(tie("v"), { maxLength: 3 }).map((items) => `[${items.join(", ")}]`) },
      {
        weight: 1,
        arbitrary: fc
          .array(fc.tuple(key, tie("v")), { maxLength: 3 })
          .map((ps) => `{${ps.map(([k, v]) => `${k}: ${v}`).join(", ")}}`),
      },
    ),
  })).v;
  const mapping = fc.array(fc.tuple(key, value), { maxLength: 5 });
  const block = (pairs: [string, string][], indent: string) =>
    pairs.map(([k, v], i) => `${i === 0 ? "" : indent}${k}: ${v}`).join("\n");
  const listOfMaps = fc
    .array(mapping, { maxLength: 3 })
    .map((items) => items.map((pairs) => `- ${block(pairs, "  ")}`).join("\n"));
  const listOfScalars = fc.array(value, { maxLength: 4 }).map((items) => items.map((v) => `- ${v}`).join("\n"));
  return fc.oneof(
    listOfMaps,
    listOfScalars,
    mapping.map((pairs) => block(pairs, "")),
    value,
  );
}

describeWithGo("@nri-ts/sigs-yaml against sigs.k8s.io/yaml v1.3.0", () => {
  let bin: string;

  beforeAll(async () => {
    bin = await goCommand("sigs-yaml-oracle");
  }, 180_000);

  it("decode the corner cases alike", async () => {
    const { mismatches } = await compare(bin, CORNERS);
    expect(mismatches).toEqual([]);
  });

  it("decode generated documents of every upstream type alike", async () => {
    const cases = Object.entries(TYPES).flatMap(([name, { type }], i) =>
      fc.sample(documents(type), { numRuns: 150, seed: 20260300 + i }).map((yaml) => [name, yaml] as const),
    );
    const { results, mismatches } = await compare(bin, cases);
    expect(mismatches.slice(0, 5)).toEqual([]);
    // both outcomes are covered: values and errors
    expect(results.filter((r) => r.go.error === undefined).length).toBeGreaterThan(300);
    expect(results.filter((r) => r.go.error !== undefined).length).toBeGreaterThan(300);
  });
});
