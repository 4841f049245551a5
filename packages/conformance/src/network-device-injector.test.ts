/*
 * network-device-injector: ours (@nri-ts/plugin-network-device-injector)
 * against a Go twin (cmd/plugin-network-device-injector: upstream's logic
 * on upstream's stub, sigs.k8s.io/yaml v1.4.0, netlink and the CNI
 * namespace helpers). Both run, launched as a runtime launches them, in a
 * scratch network namespace standing for the node's, through the same
 * nri-sim scenario whose pods have scratch namespaces of their own: what
 * each request returned and where every link is after every step (name,
 * alias, up or down) must be the same. Then the twin's decoder mode and
 * ours read the same annotations, a table of cases and generated ones, and
 * must give the same devices or the same error text.
 */
import { execFileSync } from "node:child_process";
import { readFileSync } from "node:fs";
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { ANNOTATION_KEYS, netDeviceAnnotation, parseNetDevices } from "@nri-ts/plugin-network-device-injector";
import { type SimReport, simulate } from "@nri-ts/sim";
import fc from "fast-check";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { writeLauncher } from "../fixtures/stub/harness.js";
import { describeWithGo, goCommand, goJsonLines, moduleDir, pinnedNriModule } from "./go.js";
import { ourPluginCommand } from "./plugin-process.js";

const ip = (...args: string[]) => execFileSync("ip", args, { encoding: "utf8" });

/** Why network namespaces cannot be made here, or undefined. */
const noNetns = ((): string | undefined => {
  if (process.getuid?.() !== 0) return "not root";
  const probe = `ndi-${process.pid}-probe`;
  try {
    ip("netns", "add", probe);
    ip("-n", probe, "link", "add", "v0", "type", "veth", "peer", "name", "v1");
    return undefined;
  } catch (error) {
    return (error as Error).message.split("\n")[0];
  } finally {
    try {
      ip("netns", "del", probe);
    } catch {
      // it was never made
    }
  }
})();

/** The pods of the live scenario and their annotations. */
const PODS: Record<string, { annotations?: Record<string, string>; hostNetwork?: boolean }> = {
  web: {
    annotations: {
      "netdevice.noderesource.dev/pod":
        "- {name: ens1, new_name: net1}\n- {name: ens2, new_name: net2, address: 10.1.0.2, prefix: 24, mtu: 9000}",
    },
  },
  // its namespace has a net1 already: the rename fails, and ens4 after it is left
  clash: {
    annotations: { "netdevices.nri.containerd.io": "- {name: ens3, new_name: net1}\n- {name: ens4, new_name: net4}" },
  },
  missing: {
    annotations: { "netdevice.noderesource.dev": "- {name: nope0, new_name: x}\n- {name: ens5, new_name: net5}" },
  },
  noname: { annotations: { "netdevice.noderesource.dev": "- {name: ens6}" } },
  bridge: { annotations: { "netdevice.noderesource.dev": "- {name: br0, new_name: net0}" } },
  // the node gets another ens7 while the pod runs: the release cannot give the link its name back
  taken: { annotations: { "netdevice.noderesource.dev": "- {name: ens7, new_name: net7}" } },
  hostnet: { hostNetwork: true, annotations: { "netdevice.noderesource.dev": "- {name: ens5, new_name: y}" } },
  badyaml: { annotations: { "netdevice.noderesource.dev": "- name: [x]" } },
  badip: { annotations: { "netdevice.noderesource.dev": "- {name: ens5, address: 1.2.3}" } },
  plain: {},
};
const STARTED = ["web", "clash", "missing", "noname", "bridge", "taken", "plain"];

const uid = (pod: string) => `ndi-${process.pid}-${pod}`;
const HOST = `ndi-${process.pid}-host`;
const NAMESPACES = [
  HOST,
  ...Object.keys(PODS)
    .filter((pod) => !PODS[pod].hostNetwork)
    .map((pod) => `cni-${uid(pod)}`),
];

const scenario = `
runtime: {registrationTimeout: 120s, requestTimeout: 120s}
pods:
${Object.entries(PODS)
  .map(([name, pod]) => `  - ${JSON.stringify({ name, uid: uid(name), ...pod })}`)
  .join("\n")}
steps:
${[...Object.keys(PODS).map((pod) => `  - run-pod: ${pod}`), ...STARTED.map((pod) => `  - stop-pod: ${pod}`)].join("\n")}
`;

/** The node and the pods as each run starts: the same links, made in the same order (so with the same indexes). */
function makeNamespaces(): void {
  for (const ns of NAMESPACES) ip("netns", "add", ns);
  for (let i = 1; i <= 7; i++) ip("-n", HOST, "link", "add", `ens${i}`, "type", "veth", "peer", "name", `peer${i}`);
  ip("-n", HOST, "link", "add", "br0", "type", "bridge");
  for (const up of ["ens1", "ens3", "ens6", "ens7", "br0"]) ip("-n", HOST, "link", "set", up, "up");
  ip("-n", `cni-${uid("clash")}`, "link", "add", "net1", "type", "veth", "peer", "name", "podpeer");
}

function removeNamespaces(): void {
  for (const ns of NAMESPACES) {
    try {
      ip("netns", "del", ns);
    } catch {
      // not made
    }
  }
}

/** Every namespace's links but lo, as `name[@alias]:up|down`. */
function linkState(): Record<string, string[]> {
  return Object.fromEntries(
    NAMESPACES.map((ns) => {
      const all = JSON.parse(ip("-n", ns, "-json", "link", "show")) as {
        ifname: string;
        flags: string[];
        ifalias?: string;
      }[];
      const shown = all
        .filter((link) => link.ifname !== "lo")
        .map(
          (link) =>
            `${link.ifname}${link.ifalias ? `@${link.ifalias}` : ""}:${link.flags.includes("UP") ? "up" : "down"}`,
        )
        .sort();
      return [ns === HOST ? "node" : ns.slice(`cni-${uid("")}`.length), shown];
    }),
  );
}

interface Outcome {
  steps: { step: string; ok: boolean; error?: string }[];
  links: Record<string, string[]>[];
  closed: string[];
}

async function runLive(dir: string, command: string[]): Promise<Outcome> {
  removeNamespaces();
  makeNamespaces();
  try {
    const plugins = await mkdtemp(join(dir, "plugins-"));
    await writeLauncher(plugins, "10-network-device-injector", ["ip", "netns", "exec", HOST, ...command]);
    const links: Record<string, string[]>[] = [];
    const report: SimReport = await simulate(scenario, {
      pluginDir: plugins,
      clock: "virtual",
      observer: {
        stepDone: (step) => {
          links.push(linkState());
          if (step.step === "run-pod taken")
            ip("-n", HOST, "link", "add", "ens7", "type", "veth", "peer", "name", "other7");
        },
      },
    });
    return {
      steps: report.steps.map((s) => ({ step: s.step, ok: s.ok, ...(s.error !== undefined && { error: s.error }) })),
      links,
      closed: report.steps.flatMap((s) => s.closed),
    };
  } finally {
    removeNamespaces();
  }
}

interface Answer {
  devices?: Record<string, string>[];
  error?: string;
}

function ours(annotations: Record<string, string>): Answer {
  try {
    // in the order Go writes a map's keys
    const devices = parseNetDevices(annotations).map((d) => ({
      address: d.address,
      mtu: String(d.mtu),
      name: d.name,
      new_name: d.new_name,
      prefix: String(d.prefix),
    }));
    return { devices };
  } catch (error) {
    return { error: (error as Error).message };
  }
}

/** An error of go-yaml's parser: what comes before the line number is ours too. */
const SYNTAX = /^(.*error converting YAML to JSON: yaml: )line \d+: /;

const CASES: Record<string, string>[] = [
  {
    "netdevice.noderesource.dev":
      "- name: dummy0\n  new_name: eth33\n  address: 192.168.2.2\n  prefix: 24\n  mtu: 1500",
  },
  {
    "netdevice.noderesource.dev/pod": "- {name: a}",
    "netdevices.nri.containerd.io/pod": "- {name: b}",
    "netdevice.noderesource.dev": "- {name: c}",
  },
  { "netdevices.nri.containerd.io/pod": "- {name: b}", "netdevice.noderesource.dev": "x: [" },
  { "netdevices.noderesource.dev": "- {name: never-read}" },
  { "netdevice.noderesource.dev/container.c0": "- {name: never-read}" },
  { "netdevice.noderesource.dev": "" },
  { "netdevice.noderesource.dev": "~" },
  { "netdevice.noderesource.dev": "[]" },
  { "netdevice.noderesource.dev": "- ~" },
  { "netdevice.noderesource.dev": "- {}" },
  { "netdevice.noderesource.dev": "name: x" },
  { "netdevice.noderesource.dev": "- x" },
  { "netdevice.noderesource.dev": "- {NAME: 5, New_Name: yes, ADDRESS: '::1', Prefix: 0x10, mtu: 0644}" },
  { "netdevice.noderesource.dev": "- {name: a, prefix: -1, mtu: 9223372036854775807}" },
  { "netdevice.noderesource.dev": "- {name: a, mtu: 9223372036854775808}" },
  { "netdevice.noderesource.dev": "- {name: a, mtu: 1.5}" },
  { "netdevice.noderesource.dev": "- {name: a, mtu: 1e3}" },
  { "netdevice.noderesource.dev": "- {name: a, mtu: '1'}" },
  { "netdevice.noderesource.dev": "- {name: [a]}" },
  { "netdevice.noderesource.dev": "- {name: a, address: 10.0.0.01}" },
  { "netdevice.noderesource.dev": "- {name: a, address: 'fe80::1%eth0'}" },
  { "netdevice.noderesource.dev": "- {name: a, address: '::ffff:1.2.3.4'}" },
  { "netdevice.noderesource.dev": "- {name: a, address: '1:2:3:4:5:6:7:8:9'}" },
  { "netdevice.noderesource.dev": "- {name: a, address: 1.2.3.4}\n- {name: b, address: bogus}" },
  { "netdevice.noderesource.dev": "- {name: a, address: ''}" },
  { "netdevice.noderesource.dev": "- {name: a, address: 5}" },
  { "netdevice.noderesource.dev": "- [" },
  { "netdevice.noderesource.dev": "- {name: a}\n\t- b" },
];

/** Generated annotations: the four keys (and some never read), lists of devices with good, odd and broken fields, and broken YAML. */
function generatedAnnotations(): Record<string, string>[] {
  const key = fc.constantFrom(
    ...ANNOTATION_KEYS,
    "netdevices.noderesource.dev",
    "netdevice.noderesource.dev/container.c0",
  );
  const address = fc.oneof(
    fc.ipV4(),
    fc.ipV6(),
    fc.ipV4Extended(),
    fc.constantFrom(
      "'::'",
      "'1::'",
      "'::1.2.3.4'",
      "1.2.3",
      "256.0.0.1",
      "'fe80::1%1'",
      "x",
      "''",
      "'1:2::3::4'",
      "'::ffff:01.2.3.4'",
    ),
  );
  const scalar = fc.constantFrom(
    "a",
    "ens2.100",
    "1",
    "-1",
    "0644",
    "0x10",
    "1.5",
    "1e3",
    "yes",
    "~",
    '""',
    "9223372036854775808",
    "[1]",
    "{a: b}",
  );
  const field = fc.oneof(
    fc.tuple(fc.constantFrom("name", "new_name", "Name", "NEW_NAME", "other"), scalar),
    fc.tuple(fc.constantFrom("address", "Address"), fc.oneof(address, scalar)),
    fc.tuple(
      fc.constantFrom("prefix", "mtu", "MTU"),
      fc.oneof(fc.integer({ min: -5, max: 70000 }).map(String), scalar),
    ),
  );
  const device = fc
    .array(field, { maxLength: 5 })
    .map((pairs) => `{${pairs.map(([k, v]) => `${k}: ${v}`).join(", ")}}`);
  const value = fc.oneof(
    { weight: 4, arbitrary: fc.array(device, { maxLength: 3 }).map((items) => items.map((d) => `- ${d}`).join("\n")) },
    {
      weight: 1,
      arbitrary: fc.array(field, { maxLength: 3 }).map((pairs) => pairs.map(([k, v]) => `${k}: ${v}`).join("\n")),
    },
    { weight: 1, arbitrary: fc.constantFrom("", "{{", "- {", "- [", "*x", "- !!str", "- - a") },
  );
  // and annotations that mostly hold: block or flow devices, addresses quoted or not, numbers in any YAML 1.1 syntax
  const n = fc.oneof(
    fc.integer({ min: 0, max: 65535 }).map(String),
    fc.integer({ min: 0, max: 0o777 }).map((x) => `0${x.toString(8)}`),
    fc.constant("0x1F"),
  );
  const name = fc.constantFrom("ens1", "eth0", "ens2.100", "enp0s31f6", "dummy0");
  const good = fc
    .tuple(
      name,
      name,
      fc.oneof(
        fc.ipV4(),
        fc.ipV6().map((a) => `'${a}'`),
        fc.constant("''"),
      ),
      n,
      n,
      fc.boolean(),
    )
    .map(([a, b, addr, prefix, mtu, block]) =>
      block
        ? `- name: ${a}\n  new_name: ${b}\n  address: ${addr}\n  prefix: ${prefix}\n  mtu: ${mtu}`
        : `- {name: ${a}, new_name: ${b}, address: ${addr}, prefix: ${prefix}, mtu: ${mtu}}`,
    );
  const goodPods = fc
    .tuple(fc.constantFrom(...ANNOTATION_KEYS), fc.array(good, { minLength: 1, maxLength: 3 }))
    .map(([k, devices]) => ({ [k]: devices.join("\n") }));
  return [
    ...fc.sample(fc.dictionary(key, value, { minKeys: 1, maxKeys: 3 }), { numRuns: 1000, seed: 20261201 }),
    ...fc.sample(goodPods, { numRuns: 500, seed: 20261202 }),
  ];
}

describe("the network-device-injector's Go twin", () => {
  it("is a module of its own, on the NRI version the conformance module pins", async () => {
    const own = readFileSync(join(moduleDir, "cmd", "plugin-network-device-injector", "go.mod"), "utf8");
    expect(own).toContain(`\t${await pinnedNriModule()}\n`);
  });
});

describeWithGo("network-device-injector: ours and Go's", () => {
  let goBin: string;
  let dir: string;

  beforeAll(async () => {
    goBin = await goCommand("plugin-network-device-injector");
    dir = await mkdtemp(join(tmpdir(), "nri-network-device-injector-conformance-"));
  }, 300_000);

  afterAll(() => rm(dir, { recursive: true, force: true }));

  it.skipIf(noNetns !== undefined)(
    `answer the same requests alike and leave every link alike, step by step, in real network namespaces under nri-sim${noNetns ? ` (skipped: ${noNetns})` : ""}`,
    async () => {
      const go = await runLive(dir, [goBin]);
      const ts = await runLive(dir, ourPluginCommand("network-device-injector"));
      expect(ts.steps).toEqual(go.steps);
      expect(ts.links).toEqual(go.links);
      expect(ts.closed).toEqual([]);
      expect(go.closed).toEqual([]);
      // and what happened is what the cases are about
      expect(go.steps.map((s) => s.ok)).toEqual([
        true,
        true,
        true,
        true,
        true,
        true,
        false,
        false,
        false,
        true,
        ...STARTED.map(() => true),
      ]);
      expect(go.steps[6].error).toContain("trying to inject network device on host network Pod");
      expect(go.steps[7].error).toContain('invalid device annotation "netdevice.noderesource.dev": ');
      expect(go.steps[8].error).toContain("error parsing address 1.2.3");
      const afterRuns = go.links[Object.keys(PODS).length - 1];
      expect(afterRuns.web).toEqual(["net1@ens1:up", "net2@ens2:up"]);
      expect(afterRuns.clash).toEqual(["net1:down", "podpeer:down"]);
      expect(afterRuns.node).toEqual(
        expect.arrayContaining(["ens3@ens3:up", "ens4:down", "ens5:down", "ens6@ens6:up", "br0:up"]),
      );
      expect(afterRuns.taken).toEqual(["net7@ens7:up"]);
      const end = go.links.at(-1)!;
      expect(end.web).toEqual([]);
      expect(end.taken).toEqual(["net7@ens7:up"]);
      // the clash pod's own net1, which has no alias, cannot be named "" on the node and goes back
      expect(end.clash).toEqual(["net1:down", "podpeer:down"]);
      expect(end.node).toEqual(
        expect.arrayContaining(["ens1@ens1:down", "ens2@ens2:down", "ens7:down", "other7:down"]),
      );
    },
    600_000,
  );

  it("read the same annotations alike: a table of cases and 1,500 generated ones", async () => {
    const pods = [...CASES, ...generatedAnnotations()];
    const answers = await goJsonLines<Answer>(
      goBin,
      ["-decode"],
      pods.map((annotations) => ({ annotations })),
    );
    const results = pods.map((annotations, i) => ({ annotations, go: answers[i], ours: ours(annotations) }));
    // A known difference of @nri-ts/sigs-yaml (its README): in a flow collection go-yaml v2 keeps a `:` right before
    // `,` `[` `]` `{` `}` in a plain scalar (`{address: fd00::, mtu: 1}`) and ends one at `?`; the yaml package does neither.
    const known = (r: (typeof results)[number]) => /:[,[\]{}]|\?/.test(netDeviceAnnotation(r.annotations)?.value ?? "");
    // go-yaml's syntax errors are worded by its parser, ours by ours: the same text up to the line
    const syntax = results.filter((r) => SYNTAX.test(r.go.error ?? ""));
    expect(
      syntax
        .filter((r) => !known(r) && r.ours.error?.match(SYNTAX)?.[1] !== r.go.error?.match(SYNTAX)?.[1])
        .slice(0, 5),
    ).toEqual([]);
    const mismatches = results.filter((r) => !syntax.includes(r) && JSON.stringify(r.go) !== JSON.stringify(r.ours));
    expect(mismatches.filter((r) => !known(r)).slice(0, 5)).toEqual([]);
    expect(mismatches.length).toBeLessThan(results.length / 50);
    expect(results.filter((r) => (r.go.devices?.length ?? 0) > 0).length).toBeGreaterThan(300);
    expect(results.filter((r) => r.go.error?.startsWith("error parsing address")).length).toBeGreaterThan(50);
    expect(results.filter((r) => r.go.error?.startsWith("invalid device annotation")).length).toBeGreaterThan(200);
  });
});
