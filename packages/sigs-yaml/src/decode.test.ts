import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { decodeSigsYaml } from "./decode.js";
import { SigsYamlError } from "./error.js";
import { go } from "./go-type.js";

const ULIMITS = go.slice(go.struct("main.ulimit", { type: go.string, hard: go.uint64, soft: go.uint64 }));

const decode = (text: string) => decodeSigsYaml(text, ULIMITS);
const one = (type: string, hard = 0n, soft = 0n) => [{ type, hard, soft }];
const json = "error unmarshaling JSON: while decoding JSON: json: cannot unmarshal";

/**
 * What sigs.k8s.io/yaml v1.3.0 (go-yaml v2.4.0, Go 1.26 encoding/json)
 * gives for these values, as recorded from a Go program decoding into the
 * Go plugin's `[]ulimit`. The conformance suite checks the same table, and
 * more, against Go live.
 */
const RECORDED: [string, unknown][] = [
  ["- {type: nofile, soft: 1e3}", one("nofile", 0n, 1000n)],
  ["- {type: nofile, soft: 0o17, hard: 0x1F}", one("nofile", 31n, 15n)],
  ["- {type: nofile, soft: 017, hard: 1_000}", one("nofile", 1000n, 15n)],
  ["- {type: nofile, soft: 0b101}", one("nofile", 0n, 5n)],
  ["- {type: nofile, soft: +12}", one("nofile", 0n, 12n)],
  ["- {type: nofile, hard: 9223372036854775808}", one("nofile", 9223372036854775808n)],
  ["- {type: nofile, hard: 0x_1F}", one("nofile", 31n)],
  ["- {type: nofile, hard: 1__0}", one("nofile", 10n)],
  ["- {type: nofile, hard: 1.}", one("nofile", 1n)],
  ["- {type: nofile, hard: 1.0}", one("nofile", 1n)],
  ["- {type: nofile, soft: !!float 3}", one("nofile", 0n, 3n)],
  ["- {type: 1.5}", one("1.5")],
  ["- {type: 123456789}", one("123456789")],
  ["- {type: 12345678901}", one("12345678901")],
  ["- {type: 0.1}", one("0.1")],
  ["- {type: yes}", one("true")],
  ["- {type: 2001-12-14}", one("2001-12-14")],
  ["- {type: 1e-7}", one("1e-07")],
  ["- {type: 1e21}", one("1e+21")],
  ["- {type: 0.30000000000000004}", one("0.3")],
  ["- {type: .inf}", one("+Inf")],
  ["- {type: .nan}", one("NaN")],
  ["- {type: ~}", one("")],
  ["- {type: !!str 12}", one("12")],
  ['- {type: !!int "12"}', one("12")],
  ["- {Type: nofile, SOFT: 3, Soft: 4, soft: 5}", one("nofile", 0n, 5n)],
  ["- {type: nofile, soft: 3, soft: 4}", one("nofile", 0n, 4n)],
  ["- {1: nofile}", one("")],
  ["- ", one("")],
  ["  ", []],
  ["# c", []],
  ["- type: a\n  soft: 1\n---\n- x", one("a", 0n, 1n)],
  ["- &a {type: nofile, hard: 3}\n- *a", [...one("nofile", 3n), ...one("nofile", 3n)]],
  ["- <<: {type: nofile}\n  hard: 3", one("nofile", 3n)],
  ["- <<:", "error converting YAML to JSON: yaml: map merge requires map or sequence of maps as the value"],
  [
    "- <<: [{type: a}, ~]",
    "error converting YAML to JSON: yaml: map merge requires map or sequence of maps as the value",
  ],
  ["- {type: nofile, soft: -1}", `${json} number -1 into Go struct field ulimit.soft of type uint64`],
  ["- {type: nofile, soft: -1, hard: -2}", `${json} number -2 into Go struct field ulimit.hard of type uint64`],
  ["- {type: nofile, soft: 1.5}", `${json} number 1.5 into Go struct field ulimit.soft of type uint64`],
  ["- {type: nofile, soft: 1e21}", `${json} number 1e+21 into Go struct field ulimit.soft of type uint64`],
  [
    "- {type: nofile, soft: 18446744073709551616}",
    `${json} number 18446744073709552000 into Go struct field ulimit.soft of type uint64`,
  ],
  [
    "- {type: nofile, soft: 99999999999999999999}",
    `${json} number 100000000000000000000 into Go struct field ulimit.soft of type uint64`,
  ],
  ['- {type: nofile, soft: "12"}', `${json} string into Go struct field ulimit.soft of type uint64`],
  ["- {type: nofile, soft: true}", `${json} bool into Go struct field ulimit.soft of type uint64`],
  ["- {type: nofile, soft: [1]}", `${json} array into Go struct field ulimit.soft of type uint64`],
  ["- {type: nofile, soft: {a: 1}}", `${json} object into Go struct field ulimit.soft of type uint64`],
  ["- {type: nofile, soft: .inf}", "error converting YAML to JSON: json: unsupported value: +Inf"],
  ["- {type: nofile, hard: -.inf}", "error converting YAML to JSON: json: unsupported value: -Inf"],
  ["- {type: nofile, soft: -0.0}", `${json} number -0 into Go struct field ulimit.soft of type uint64`],
  ["- {type: nofile, soft: 190:20:30}", `${json} string into Go struct field ulimit.soft of type uint64`],
  [
    "- {type: nofile, hard: -9223372036854775809}",
    `${json} number -9223372036854776000 into Go struct field ulimit.hard of type uint64`,
  ],
  ["- {type: nofile, hard: _10}", `${json} string into Go struct field ulimit.hard of type uint64`],
  ["- {type: nofile, hard: 01.5}", `${json} number 1.5 into Go struct field ulimit.hard of type uint64`],
  ["- {type: nofile, hard: 0x1p4}", `${json} string into Go struct field ulimit.hard of type uint64`],
  ["- {type: nofile, hard: Infinity}", `${json} string into Go struct field ulimit.hard of type uint64`],
  ["- {type: nofile, soft: 1e-7}", `${json} number 1e-7 into Go struct field ulimit.soft of type uint64`],
  ["- {type: [a]}", `${json} array into Go struct field ulimit.type of type string`],
  ["- {type: {a: b}}", `${json} object into Go struct field ulimit.type of type string`],
  ["a: b", `${json} object into Go value of type []main.ulimit`],
  ["foo", `${json} string into Go value of type []main.ulimit`],
  ["- foo", `${json} string into Go value of type main.ulimit`],
  ["- [1]", `${json} array into Go value of type main.ulimit`],
  [
    "- {null: nofile}",
    'error converting YAML to JSON: Unsupported map key of type: %!s(<nil>), key: <nil>, value: "nofile"',
  ],
];

describe("decodeSigsYaml into the ulimit list", () => {
  it.each(RECORDED)("%j as Go decodes it", (text, expected) => {
    if (typeof expected === "string") expect(() => decode(text)).toThrow(new SigsYamlError(expected));
    else expect(decode(text)).toEqual(expected);
  });

  it("reports syntax errors by line, in our parser's words", () => {
    expect(() => decode("- type: a\n soft: 1")).toThrow(/^error converting YAML to JSON: yaml: line 2: /);
  });

  it("refuses a plain scalar that starts with `:` in a flow collection, as go-yaml v2 does (recorded with sigs.k8s.io/yaml v1.4.0)", () => {
    const nodeContent = "error converting YAML to JSON: yaml: did not find expected node content";
    for (const text of [
      "{a: :b}",
      "[a, :b]",
      "[:b]",
      "- {type: x, hard: ::1}",
      "{:a: b}",
      "[{a: b}, :x]",
      "{a: [b, :c]}",
    ]) {
      expect(() => decode(text), text).toThrow(new SigsYamlError(nodeContent));
    }
    expect(() => decode("[a,\n :b]")).toThrow(
      new SigsYamlError("error converting YAML to JSON: yaml: line 1: did not find expected node content"),
    );
    // outside flow collections, and inside a scalar, it is text
    expect(decode("- type: ::1")).toEqual(one("::1"));
    expect(decode("- {type: 'a:b'}")).toEqual(one("a:b"));
    expect(decode("- {type: ':b'}")).toEqual(one(":b"));
    expect(decode("- {type: b:c}")).toEqual(one("b:c"));
  });

  it("refuses aliases that contain themselves and documents that expand without end", () => {
    expect(() => decode("&a [*a]")).toThrow("anchor 'a' value contains itself");
    const levels = ["a: &a0 [x, x, x, x, x, x, x, x, x, x]"];
    for (let i = 1; i < 8; i++)
      levels.push(
        `b${i}: &a${i} [${Array(10)
          .fill(`*a${i - 1}`)
          .join(", ")}]`,
      );
    expect(() => decode(levels.join("\n"))).toThrow("document contains excessive aliasing");
  });

  it("refuses nesting deeper than it can parse safely, before parsing", () => {
    const tooDeep = "error converting YAML to JSON: yaml: exceeded max depth of 300";
    for (const text of [
      "[".repeat(5000) + "]".repeat(5000),
      "{a: ".repeat(301) + "}".repeat(301),
      `${"- ".repeat(301)}x`,
      Array.from({ length: 400 }, (_, i) => `${" ".repeat(i)}a:`).join("\n"),
    ]) {
      expect(() => decode(text)).toThrow(new SigsYamlError(tooDeep));
    }
    // through aliases, each anchor one level deeper than the one before: refused by one guard or the other
    for (const item of ["[*a%]", "{<<: *a%}"]) {
      const chain = Array.from({ length: 310 }, (_, i) => `- &a${i + 1} ${item.replace("%", String(i))}`);
      expect(() => decode(["- &a0 {type: cpu}", ...chain].join("\n"))).toThrow(
        /exceeded max depth of 300|document contains excessive aliasing/,
      );
    }
    expect(decode(`- {type: cpu, other: ${"[".repeat(250)}${"]".repeat(250)}}`)).toEqual(one("cpu"));
  });

  it("reads back every list of ulimits written as YAML", () => {
    const uint64 = fc.bigInt({ min: 0n, max: (1n << 64n) - 1n });
    const entry = fc.record({ type: fc.string(), hard: uint64, soft: uint64 });
    fc.assert(
      fc.property(fc.array(entry), (entries) => {
        const text = entries
          .map((e) => `- type: ${JSON.stringify(e.type)}\n  hard: ${e.hard}\n  soft: ${e.soft}\n`)
          .join("");
        expect(decode(text)).toEqual(entries);
      }),
    );
  });

  it("gives a SigsYamlError or a value for any input, never another failure", () => {
    const yamlish = fc.stringMatching(/^[-:{}[\]&*!<>|"'#,.~ \n\ta-z0-9_+]{0,40}$/);
    // YAML's own tokens, so that merges, anchors and empty values meet (`<<:` with no value crashed once)
    const tokens = fc
      .array(
        fc.constantFrom("<<", ":", ": ", " ", "\n", "\n  ", "- ", "[", "]", "{", "}", ", ", "~", "&a ", "*a", "a", "1"),
        {
          maxLength: 24,
        },
      )
      .map((parts) => parts.join(""));
    fc.assert(
      fc.property(fc.oneof(fc.string(), yamlish, tokens), (text) => {
        try {
          decode(text);
        } catch (error) {
          expect(error).toBeInstanceOf(SigsYamlError);
        }
      }),
      { numRuns: 2000 },
    );
  });
});
