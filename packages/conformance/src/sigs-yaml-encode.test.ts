/*
 * @nri-ts/sigs-yaml's encoder against sigs.k8s.io/yaml v1.3.0 (go-yaml
 * v2.4.0 underneath): cmd/sigs-yaml-oracle marshals a JSON value as the Go
 * logger marshals the objects it dumps, and ours encodes the same value. The
 * YAML, byte for byte, or the error text must be the same, for a table of
 * corner cases and for generated values full of awkward text: quotes,
 * colons, leading and trailing spaces, every line break YAML knows, Unicode
 * beyond the BMP, numbers and booleans as text, timestamps, long lines that
 * go-yaml wraps, long keys, runes go-yaml refuses.
 */
import { encodeSigsYaml, goMap, type JsonValue } from "@nri-ts/sigs-yaml";
import fc from "fast-check";
import { beforeAll, expect, it } from "vitest";
import { awkwardText } from "./awkward-text.js";
import { describeWithGo, goCommand, goJsonLines } from "./go.js";

interface GoAnswer {
  yaml?: string;
  error?: string;
  unstable?: boolean;
}

/** JSON text of a value whose 64-bit integers are bigints. */
function jsonText(value: JsonValue): string {
  if (typeof value === "bigint") return value.toString();
  if (Array.isArray(value)) return `[${value.map(jsonText).join(",")}]`;
  if (value !== null && typeof value === "object") {
    const entries = value instanceof Map ? [...value] : Object.entries(value);
    return `{${entries.map(([k, v]) => `${JSON.stringify(k)}:${jsonText(v)}`).join(",")}}`;
  }
  return JSON.stringify(value);
}

function ours(value: JsonValue): GoAnswer {
  try {
    return { yaml: encodeSigsYaml(value) };
  } catch (error) {
    return { error: (error as Error).message };
  }
}

const CORNERS: JsonValue[] = [
  { labels: { appVersion: "1.0", "app.kubernetes.io/name": "web", yes: "", "-removed": "" } },
  { a10: 1, a2: 2, a01: 3, a1: 4, B: 5, b: 6, _x: 7, "1": 8, "10": 9, "9": 10, "": 11, é: 12, "z-": 13, "z.": 14 },
  {
    plain: "a b",
    colon: "a: b",
    colon2: "a:b",
    hash: "a #b",
    hash2: "a#b",
    lead: " a",
    trail: "a ",
    dash: "- a",
    dash2: "-a",
    q: "it's",
    dq: 'say "hi"',
  },
  {
    tab: "a\tb",
    cr: "a\rb",
    nul: "a\u0000b",
    nel: "a\u0085b",
    ls: "a\u2028b",
    ps: "a\u2029b",
    nbsp: "a\u00a0b",
    bom: "\ufeffab",
    emoji: "😀",
    cjk: "中文",
  },
  {
    n1: "1",
    n2: "0x1F",
    n3: "1e3",
    n4: "08",
    n5: ".5",
    n6: "-.inf",
    n7: "1_000",
    n8: "+1",
    n9: "0b101",
    b60: "1:20",
    b60b: "-1:30:00.5",
  },
  {
    y: "y",
    Y: "Y",
    yes: "Yes",
    no: "NO",
    on: "on",
    off: "Off",
    t: "True",
    n: "~",
    nul: "null",
    merge: "<<",
    empty: "",
  },
  {
    d1: "2024-01-15",
    d2: "2024-1-5",
    d3: "2024-02-30",
    d4: "2024-02-29",
    d5: "2023-02-29",
    d6: "2024-01-15T10:00:00Z",
    d7: "2024-01-15t10:00:00.123456789+01:00",
  },
  {
    d8: "2024-01-15 10:00:00",
    d9: "2024-01-15   1:2:3.5",
    d10: "2024-01-15T24:00:00Z",
    d11: "2024-01-15T10:00:00+25:00",
    d12: "2024-01-15T10:00:00",
    d13: "12024-01-15",
  },
  {
    lit: "a\nb",
    lit2: "a\nb\n",
    lit3: "a\n\n",
    lit4: "\n",
    lit5: " lead\nx",
    lit6: "\nlead",
    lit7: "trail \nx",
    lit8: "x\n trail",
    lit9: "a\r\nb",
    lit10: "a\u2028\nb",
  },
  {
    "multi\nline": "key",
    "cr\rkey": "v",
    ["k".repeat(128)]: "fits",
    ["k".repeat(129)]: "? key",
    ["é".repeat(65)]: "bytes count",
  },
  {
    fold: "word ".repeat(40).trim(),
    foldq: `'${"word ".repeat(40)}`,
    foldd: `${"x".repeat(70)}\t${" y".repeat(40)}`,
    nofold: "x".repeat(300),
  },
  { spaces: `${"a".repeat(79)}  ${"b".repeat(10)} c`, deep: { list: [{ a: 1 }, [], {}, [[1, [2]]], "x"] } },
  [
    1,
    -1,
    0,
    1.5,
    -0.25,
    1e21,
    1e-7,
    123456789,
    9223372036854775807n,
    -9223372036854775808n,
    18446744073709551615n,
    18446744073709551616n,
    -9223372036854775809n,
  ],
  [true, false, null, "", [], {}, [[]], [{}]],
  "a string",
  "",
  42n,
  null,
  [],
  {},
  { ctrl: "a\u007fb" },
  { ctrl: "\u0080" },
  { ["<".repeat(170)]: "json escapes count" },
  { ["k".repeat(1022)]: "longest key" },
  { ["k".repeat(1023)]: "one too long" },
  { nested: { ["k".repeat(2000)]: 1 } },
  [`${"k".repeat(2000)}`],
];

/** A corner case with its objects turned into Go maps (the oracle's JSON goes through Go's maps, which sort their keys). */
function sortedKeys(value: JsonValue): JsonValue {
  if (Array.isArray(value)) return value.map(sortedKeys);
  if (value === null || typeof value !== "object") return value;
  return goMap(Object.entries(value).map(([k, v]): [string, JsonValue] => [k, sortedKeys(v as JsonValue)]));
}

const text = awkwardText();

const json: fc.Arbitrary<JsonValue> = fc.letrec<{ value: JsonValue }>((tie) => ({
  value: fc.oneof(
    { depthSize: "small", withCrossShrink: true },
    { weight: 6, arbitrary: text },
    { weight: 1, arbitrary: fc.bigInt({ min: -(1n << 66n), max: 1n << 66n }) },
    { weight: 1, arbitrary: fc.oneof(fc.integer(), fc.double({ noNaN: true, noDefaultInfinity: true })) },
    { weight: 1, arbitrary: fc.constantFrom<JsonValue>(null, true, false) },
    { weight: 2, arbitrary: fc.array(tie("value"), { maxLength: 4 }) },
    { weight: 3, arbitrary: fc.dictionary(text, tie("value"), { maxKeys: 5 }).map((d) => goMap(d)) },
  ),
})).value;

describeWithGo("@nri-ts/sigs-yaml's encoder against sigs.k8s.io/yaml v1.3.0", () => {
  let bin: string;

  beforeAll(async () => {
    bin = await goCommand("sigs-yaml-oracle");
  }, 180_000);

  const compare = async (values: readonly JsonValue[]) => {
    const answers = await goJsonLines<GoAnswer>(
      bin,
      [],
      values.map((value) => ({ marshal: jsonText(value) })),
    );
    return values.map((value, i) => ({ value, go: answers[i], ours: ours(value) }));
  };

  it("write the corner cases alike", async () => {
    const results = await compare(CORNERS.map(sortedKeys));
    expect(results.filter((r) => r.go.unstable)).toEqual([]);
    expect(results.filter((r) => JSON.stringify(r.go) !== JSON.stringify(r.ours))).toEqual([]);
  });

  it("write generated values alike, byte for byte", async () => {
    const values = fc.sample(json, { numRuns: 3000, seed: 20261207 });
    const results = await compare(values);
    // Go's own output changes from run to run where go-yaml's key order is no total order (see the package README).
    const stable = results.filter((r) => !r.go.unstable);
    const mismatches = stable.filter((r) => JSON.stringify(r.go) !== JSON.stringify(r.ours));
    expect(mismatches.slice(0, 3)).toEqual([]);
    expect(stable.length).toBeGreaterThan(2900);
    // what the run covered
    const go = stable.map((r) => r.go);
    expect(go.filter((a) => a.yaml?.includes("|")).length).toBeGreaterThan(50);
    expect(go.filter((a) => a.yaml?.includes("'")).length).toBeGreaterThan(300);
    expect(go.filter((a) => a.yaml?.includes('"')).length).toBeGreaterThan(300);
    expect(go.filter((a) => a.yaml?.includes("\n? ")).length).toBeGreaterThan(10);
    expect(go.filter((a) => a.error?.includes("control characters")).length).toBeGreaterThan(20);
    expect(go.filter((a) => a.error?.includes("did not find expected")).length).toBeGreaterThan(5);
  });
});
