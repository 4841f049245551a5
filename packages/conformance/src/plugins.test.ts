/*
 * Our reference plugin ports against Go.
 *
 * ulimit-adjuster: the Go plugin (cmd/plugin-ulimit-adjuster, the upstream
 * plugin restated on the upstream stub and sigs.k8s.io/yaml v1.3.0, see its
 * main.go for why it is not the upstream binary) and ours
 * (@nri-ts/plugin-ulimit-adjuster's nri-ulimit-adjuster) each run, as a
 * runtime launches them, through the same nri-sim scenario: the merged
 * adjustments and the error texts must be the same, step by step. Then the
 * Go program's decoder mode and ours read the same annotation values, a
 * table of YAML corner cases and generated lists, and must give the same
 * rlimits or the same error text.
 */
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { adjustUlimits, parseUlimits } from "@nri-ts/plugin-ulimit-adjuster";
import { type SimReport, simulate } from "@nri-ts/sim";
import fc from "fast-check";
import { afterAll, beforeAll, expect, it } from "vitest";
import { LAUNCHES_MS, writeLauncher } from "../fixtures/stub/harness.js";
import { describeWithGo, goCommand, goJsonLines } from "./go.js";
import { ourPluginCommand } from "./plugin-process.js";

/** Our program, run from source the way the fixture plugin is. */
const ourUlimitAdjuster = ourPluginCommand("ulimit-adjuster");

const scenario = `
name: ulimit-adjuster
runtime: {registrationTimeout: 60s}  # our plugin is launched with Node and tsx: seconds on a busy machine
pods:
  - name: web
    annotations:
      ulimits.noderesource.dev/container.app: |
        - type: RLIMIT_NOFILE
          soft: 1024
          hard: 4096
        - type: memlock
          soft: 645321
          hard: 987654
        - type: Nproc
          hard: 9000
        - {TYPE: rlimit_rtprio, SOFT: 1, hard: 18446744073709551615}
      ulimits.nri.containerd.io/container.legacy: "- {type: core, hard: 0}"
      ulimits.noderesource.dev/container.typo: "- {type: nofile, hard: 2}\\n- {type: ULIMIT_STACK, hard: 1}"
      ulimits.noderesource.dev/container.upside: "- {type: stack, soft: 100, hard: 10}"
      ulimits.noderesource.dev/container.negative: "- {type: cpu, soft: -1}"
      ulimits.noderesource.dev/container.mapping: "type: cpu"
      ulimits.noderesource.dev/container.empty: ""
      ulimits.nri.containerd.io/container.empty: "- {type: bogus}"
containers:
  - {name: app, pod: web}
  - {name: legacy, pod: web}
  - {name: typo, pod: web}
  - {name: upside, pod: web}
  - {name: negative, pod: web}
  - {name: mapping, pod: web}
  - {name: empty, pod: web}
  - {name: plain, pod: web}
steps:
  - run-pod: web
  - create: app
  - create: legacy
  - create: typo
  - create: upside
  - create: negative
  - create: mapping
  - create: empty
  - create: plain
`;

/** What the runtime saw of each step: whether it worked, its error, its adjustment and who owns each change. */
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
  rlimits?: { type: string; hard: string; soft: string }[] | null;
  error?: string;
}

/** Our answer in the Go program's shape. */
function ours(value: string): Answer {
  try {
    const adjustment = adjustUlimits(parseUlimits("c", { "ulimits.noderesource.dev/container.c": value }));
    return { rlimits: adjustment.rlimits.map((r) => ({ type: r.type, hard: String(r.hard), soft: String(r.soft) })) };
  } catch (error) {
    return { rlimits: null, error: (error as Error).message };
  }
}

/** The Go program's answers for annotation values, one process for all of them. */
function goAnswers(bin: string, values: readonly string[]): Promise<Answer[]> {
  const requests = values.map((value) => ({
    container: "c",
    annotations: { "ulimits.noderesource.dev/container.c": value },
  }));
  return goJsonLines<Answer>(bin, ["-decode"], requests);
}

/** YAML corner cases: number syntaxes, coercions, key folding, aliases, merges, wrong shapes. */
const CORNERS = [
  "- {type: nofile, soft: 1e3, hard: 0x1F}",
  "- {type: nofile, soft: 0o17, hard: 017}",
  "- {type: nofile, soft: 1_000, hard: 0b101}",
  "- {type: nofile, soft: +12, hard: 08}",
  "- {type: nofile, soft: 1., hard: 1.0}",
  "- {type: nofile, hard: 18446744073709551615}",
  "- {type: nofile, hard: 18446744073709551616}",
  "- {type: nofile, hard: 99999999999999999999}",
  "- {type: nofile, hard: -9223372036854775809}",
  "- {type: nofile, hard: +18446744073709551615}",
  "- {type: nofile, soft: -1, hard: -2}",
  "- {type: nofile, soft: 1.5}",
  "- {type: nofile, soft: 1e21}",
  "- {type: nofile, soft: 1e-7}",
  "- {type: nofile, soft: -0.0}",
  "- {type: nofile, soft: .inf}",
  "- {type: nofile, hard: -.INF}",
  "- {type: nofile, soft: .nan}",
  "- {type: nofile, other: .nan}",
  '- {type: nofile, soft: "12"}',
  "- {type: nofile, soft: true}",
  "- {type: nofile, soft: [1]}",
  "- {type: nofile, soft: {a: 1}}",
  "- {type: nofile, soft: 190:20:30}",
  "- {type: nofile, soft: 1e400}",
  "- {type: nofile, hard: 0x_1F, soft: 1__0}",
  "- {type: nofile, hard: _10}",
  "- {type: nofile, hard: 0x1p4}",
  "- {type: nofile, soft: !!float 3, hard: !!int 7}",
  "- {type: nofile, soft: !!int abc}",
  "- {type: 1.5}",
  "- {type: 5}",
  "- {type: 123456789.0}",
  "- {type: yes}",
  "- {type: Off}",
  "- {type: 2001-12-14}",
  "- {type: ~}",
  "- {type: .inf}",
  "- {type: !!str 12}",
  "- {type: [a]}",
  "- {type: {a: b}}",
  "- {Type: nofile, SOFT: 3, Soft: 4, soft: 5, hard: 9}",
  "- {type: nofile, soft: 3, soft: 4, hard: 9}",
  "- {type: nofile, \u017foft: 3, hard: 9}",
  "- {type: rlimit_nofile, hard: 1}",
  "- {type: RLIMIT_, hard: 1}",
  "- {type: '', hard: 1}",
  '- {type: "no\\tfile"}',
  '- {type: "stra\u00dfe"}',
  "- {type: no\ufb01le}",
  "- {1: nofile}",
  "- {null: nofile}",
  "- {~: [1, 2]}",
  "- {[a]: nofile}",
  "- {true: nofile, type: cpu}",
  "a: b",
  "foo",
  "42",
  "- foo",
  "- [1]",
  "- ",
  "-",
  "  ",
  "# only a comment",
  "---",
  "- {type: cpu, hard: 2}\n---\n- x",
  "- &a {type: nofile, hard: 3}\n- *a",
  "- &a {type: nofile, hard: 3}\n- <<: *a\n  soft: 2",
  "- <<: [{type: cpu, hard: 5}, {type: core, soft: 9}]\n  hard: 10",
  "- {hard: 4, <<: {hard: 1, type: as}}",
  "- type: cpu\n  hard: 2\n- type: nproc\n  soft: 3\n  hard: 1",
  "- type: cpu\n  soft: |\n    12\n",
  "- type: >\n    cpu\n  hard: 1",
  "- {type: CPU, hard: 2}\n- {type: bogus}",
  "- &a x\n- *b",
  "- !!binary aGk=",
  "- {type: !!timestamp 2001-12-14}",
  "- {type: !!float abc}",
  "- {type: bogus}\n- {type: cpu, soft: -1}",
];

describeWithGo("ulimit-adjuster: ours and Go's", () => {
  let goBin: string;
  let dir: string;

  // a first build fetches sigs.k8s.io/yaml through the module proxy
  beforeAll(async () => {
    goBin = await goCommand("plugin-ulimit-adjuster");
    dir = await mkdtemp(join(tmpdir(), "nri-plugins-conformance-"));
  }, 180_000);

  afterAll(() => rm(dir, { recursive: true, force: true }));

  it("adjust the same containers alike, and fail the same ones with the same errors, under nri-sim", {
    timeout: LAUNCHES_MS,
  }, async () => {
    const runWith = async (command: string[]) => {
      const plugins = await mkdtemp(join(dir, "plugins-"));
      await writeLauncher(plugins, "10-ulimit-adjuster", command);
      return simulate(scenario, { pluginDir: plugins, clock: "virtual" });
    };
    const [go, ts] = [await runWith([goBin]), await runWith(ourUlimitAdjuster)];
    expect(outcome(ts)).toEqual(outcome(go));

    // What the comparison covered, spelled out.
    expect(go.steps.map((s) => s.ok)).toEqual([true, true, true, false, false, false, false, true, true]);
    expect(go.steps[1].adjustment).toEqual({
      rlimits: [
        { type: "RLIMIT_NOFILE", hard: 4096, soft: 1024 },
        { type: "RLIMIT_MEMLOCK", hard: 987654, soft: 645321 },
        { type: "RLIMIT_NPROC", hard: 9000 },
        { type: "RLIMIT_RTPRIO", hard: "18446744073709551615", soft: 1 },
      ],
    });
    expect(go.steps[2].adjustment).toEqual({ rlimits: [{ type: "RLIMIT_CORE" }] });
    for (const [step, text] of [
      [3, 'failed to parse type: "ULIMIT_STACK"'],
      [4, 'ulimit "RLIMIT_STACK" must have hard limit >= soft limit'],
      [
        5,
        "error unmarshaling JSON: while decoding JSON: json: cannot unmarshal number -1 into Go struct field ulimit.soft of type uint64",
      ],
      [
        6,
        "error unmarshaling JSON: while decoding JSON: json: cannot unmarshal object into Go value of type []main.ulimit",
      ],
    ] as const) {
      expect(go.steps[step].error).toContain(text);
    }
    expect(go.steps[7].adjustment).toEqual({});
  });

  it("read the same YAML corner cases alike", async () => {
    const answers = await goAnswers(goBin, CORNERS);
    const mismatches = CORNERS.map((value, i) => ({ value, go: answers[i], ours: ours(value) })).filter(
      ({ go, ours }) => JSON.stringify(go) !== JSON.stringify(ours),
    );
    expect(mismatches).toEqual([]);
  });

  it("both refuse broken YAML, in their parsers' own words", async () => {
    const broken = ["{{", "- type: a\n soft: 1", "[", "- {a: b", "a: b: c", '- "x', "\t- a"];
    const answers = await goAnswers(goBin, broken);
    for (const [i, value] of broken.entries()) {
      expect(answers[i].error).toMatch(/^error converting YAML to JSON: yaml: /);
      expect(ours(value).error).toMatch(/^error converting YAML to JSON: yaml: line \d+: /);
    }
  });

  it("read the same generated ulimit lists alike", async () => {
    const key = fc.constantFrom(
      "type",
      "Type",
      "TYPE",
      "soft",
      "Soft",
      "SOFT",
      "hard",
      "HARD",
      "hArd",
      "\u017foft",
      "other",
      "<<",
    );
    const number = fc.oneof(
      fc.bigInt({ min: -(1n << 65n), max: 1n << 65n }).map(String),
      fc.bigInt({ min: 0n, max: 1n << 64n }).map((n) => `0x${n.toString(16)}`),
      fc.bigInt({ min: 0n, max: 1n << 20n }).map((n) => `0${n.toString(8)}`),
      fc.double({ noNaN: true }).map(String),
      fc.integer({ min: 0, max: 99_999 }).map((n) => String(n).replace(/(\d)(?=\d{3}$)/, "$1_")),
    );
    const type = fc.oneof(
      fc.constantFrom("nofile", "RLIMIT_NPROC", "rlimit_core", "Stack", "ULIMIT_AS", "msgqueue", "rttime", "Bogus"),
      fc.string({ maxLength: 6 }).map((s) => JSON.stringify(s)),
    );
    const scalar = fc.oneof(
      number,
      type,
      fc.constantFrom("~", "null", "yes", "off", "true", ".inf", ".nan", '""', "'12'", "1e3", "[1]", "{a: 1}"),
    );
    const entry = fc
      .array(fc.tuple(key, scalar), { maxLength: 5 })
      .map((pairs) => `{${pairs.map(([k, v]) => (k === "<<" ? `<<: {type: ${v}}` : `${k}: ${v}`)).join(", ")}}`);
    const list = fc.array(fc.oneof({ weight: 6, arbitrary: entry }, { weight: 1, arbitrary: scalar }), {
      maxLength: 4,
    });
    // and lists that mostly hold: known types in any spelling, limits in any integer syntax
    const limit = fc.oneof(
      fc.bigInt({ min: 0n, max: (1n << 64n) - 1n }).map(String),
      fc.bigInt({ min: 0n, max: (1n << 64n) - 1n }).map((n) => `0x${n.toString(16).toUpperCase()}`),
      fc.integer({ min: 0, max: 1_000_000 }).map((n) => `0o${n.toString(8)}`),
      fc.integer({ min: 0, max: 1_000 }).map((n) => `${n}e3`),
      fc.integer({ min: 1_000, max: 99_999 }).map((n) => String(n).replace(/(\d)(?=\d{3}$)/, "$1_")),
    );
    const known = fc
      .tuple(
        fc.constantFrom("nofile", "nproc", "core", "memlock", "stack", "as", "cpu", "rtprio"),
        fc.boolean(),
        fc.boolean(),
      )
      .map(([t, prefixed, upper]) => (prefixed ? `rlimit_${t}` : t)[upper ? "toUpperCase" : "toLowerCase"]());
    const valid = fc
      .array(fc.record({ type: known, soft: fc.option(limit), hard: fc.option(limit) }), { minLength: 1, maxLength: 4 })
      .map((entries) =>
        entries.map((e) =>
          [`- type: ${e.type}`, e.soft === null ? "" : `  soft: ${e.soft}`, e.hard === null ? "" : `  hard: ${e.hard}`]
            .filter(Boolean)
            .join("\n"),
        ),
      );
    const values = [
      ...fc.sample(
        list.map((items) => items.map((item) => `- ${item}`).join("\n")),
        { numRuns: 400, seed: 20260101 },
      ),
      ...fc.sample(
        valid.map((items) => items.join("\n")),
        { numRuns: 400, seed: 20260102 },
      ),
    ];
    const answers = await goAnswers(goBin, values);
    const mismatches = values
      .map((value, i) => ({ value, go: answers[i], ours: ours(value) }))
      .filter(({ go, ours }) => JSON.stringify(go) !== JSON.stringify(ours));
    expect(mismatches.slice(0, 5)).toEqual([]);
    // not all errors: with these seeds, 93 of the 800 lists set rlimits
    expect(answers.filter((a) => a.error === undefined && (a.rlimits?.length ?? 0) > 0).length).toBeGreaterThan(75);
  });
});
