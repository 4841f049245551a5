import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { encodeSigsYaml } from "./encode.js";
import { SigsYamlError } from "./error.js";
import { goMap, type JsonValue } from "./json-value.js";

// Each expected text is what sigs.k8s.io/yaml v1.3.0 writes for the value (packages/conformance checks these and thousands more against Go).
describe("encodeSigsYaml, as sigs.k8s.io/yaml's Marshal writes", () => {
  it.each<[string, JsonValue, string]>([
    [
      "keys verbatim, in go-yaml's order, empty values and removal markers kept",
      { labels: { appVersion: "1.0", "app.kubernetes.io/name": "web", yes: "", "-removed": "" } },
      'labels:\n  -removed: ""\n  app.kubernetes.io/name: web\n  appVersion: "1.0"\n  "yes": ""\n',
    ],
    [
      "natural key order: digits by value, letters last",
      { a10: 1, a2: 2, a01: 3, a1: 4, B: 5, b: 6, _x: 7, "1": 8, "10": 9, "9": 10 },
      '_x: 7\n"1": 8\n"9": 10\n"10": 9\nB: 5\na1: 4\na01: 3\na2: 2\na10: 1\nb: 6\n',
    ],
    [
      "plain where it reads back, single quotes where an indicator or a space at an end forbids plain",
      {
        plain: "a b",
        colon: "a: b",
        colon2: "a:b",
        hash: "a #b",
        lead: " a",
        trail: "a ",
        dash: "- a",
        dash2: "-a",
        q: "it's",
        dq: 'say "hi"',
      },
      "colon: 'a: b'\ncolon2: a:b\ndash: '- a'\ndash2: -a\ndq: say \"hi\"\nhash: 'a #b'\nlead: ' a'\nplain: a b\nq: it's\ntrail: 'a '\n",
    ],
    [
      "double quotes and escapes for what YAML cannot show; NEL read back as YAML folds it",
      {
        tab: "a\tb",
        cr: "a\rb",
        nul: "a\u0000b",
        nel: "a\u0085b",
        nels: "a \u0085 \u0085\u0085 b",
        ls: "a\u2028b",
        nbsp: "a\u00a0b",
        bom: "\ufeffab",
        emoji: "😀",
      },
      'bom: "\\uFEFF\\x61\\x62"\ncr: "a\\rb"\nemoji: "\\U0001F600"\nls: \'a\u2028  b\'\nnbsp: a\u00a0b\nnel: a b\nnels: |-\n  a\n\n  b\nnul: "a\\0b"\ntab: "a\\tb"\n',
    ],
    [
      "text that would read back as something else is quoted",
      {
        n1: "1",
        n2: "0x1F",
        n3: "1e3",
        n4: "08",
        n5: ".5",
        n6: "-.inf",
        n7: "1_000",
        b60: "1:20",
        y: "y",
        off: "Off",
        tilde: "~",
        merge: "<<",
        empty: "",
        d1: "2024-01-15",
        d2: "2024-02-30",
        d3: "2024-01-15 10:00:00",
      },
      'b60: "1:20"\nd1: "2024-01-15"\nd2: 2024-02-30\nd3: "2024-01-15 10:00:00"\nempty: ""\nmerge: <<\nn1: "1"\nn2: "0x1F"\nn3: "1e3"\nn4: "08"\nn5: ".5"\nn6: "-.inf"\nn7: "1_000"\n"off": "Off"\ntilde: "~"\n"y": "y"\n',
    ],
    [
      "literal blocks with their indentation and chomping hints",
      { lit: "a\nb", keep: "a\n\n", one: "\n", lead: " lead\nx", trail: "trail \nx" },
      'keep: |+\n  a\n\nlead: |2-\n   lead\n  x\nlit: |-\n  a\n  b\none: |2+\n\ntrail: "trail \\nx"\n',
    ],
    [
      "keys on several lines or over 128 bytes after `? `",
      { "multi\nline": "key", ["k".repeat(129)]: "long" },
      `? ${"k".repeat(129)}\n: long\n? |-\n  multi\n  line\n: key\n`,
    ],
    [
      "long text wrapped at 80 columns",
      { fold: Array(20).fill("word").join(" ") },
      `fold: ${Array(16).fill("word").join(" ")}\n  word word word word\n`,
    ],
    [
      "numbers as go-yaml reads them back from JSON",
      [1, -1, 1.5, 1e21, 1e-7, 18446744073709551615n, 18446744073709551616n, true, null, [], {}],
      "- 1\n- -1\n- 1.5\n- 1e+21\n- 1e-07\n- 18446744073709551615\n- 1.8446744073709552e+19\n- true\n- null\n- []\n- {}\n",
    ],
    ["a Map like an object", goMap({ b: 1, a: goMap({}) }), "a: {}\nb: 1\n"],
    ["a scalar document", "text", "text\n"],
  ])("%s", (_, value, yaml) => {
    expect(encodeSigsYaml(value)).toBe(yaml);
  });

  it.each<[string, JsonValue, string]>([
    [
      "runes go-yaml's reader refuses",
      { ctrl: "a\u007fb" },
      "error converting JSON to YAML: yaml: control characters are not allowed",
    ],
    [
      "a key with a line break in it (NEL: JSON leaves it as it is)",
      goMap({ ok: "x", "a\u0085b": 1 }),
      "error converting JSON to YAML: yaml: line 1: did not find expected ',' or '}'",
    ],
    [
      "a key too long for go-yaml's parser",
      { ["k".repeat(1023)]: 1 },
      "error converting JSON to YAML: yaml: did not find expected ',' or '}'",
    ],
    ["a number JSON cannot hold", { x: Number.NaN }, "error marshaling into JSON: json: unsupported value: NaN"],
  ])("fails as Go fails: %s", (_, value, message) => {
    expect(() => encodeSigsYaml(value)).toThrow(new SigsYamlError(message));
  });

  it("takes the longest key go-yaml's parser takes (1024 runes of JSON, quotes included)", () => {
    expect(encodeSigsYaml({ ["k".repeat(1022)]: 1 })).toBe(`? ${"k".repeat(1022)}\n: 1\n`);
    expect(() => encodeSigsYaml({ ["<".repeat(171)]: 1 })).toThrow(SigsYamlError);
  });

  it("never fails but with a SigsYamlError, whatever the value", () => {
    const value = fc.letrec<{ v: JsonValue }>((tie) => ({
      v: fc.oneof(
        { depthSize: "small" },
        fc.string({ unit: "binary" }),
        fc.bigInt(),
        fc.double(),
        fc.constantFrom<JsonValue>(null, true, false),
        fc.array(tie("v"), { maxLength: 4 }),
        fc.dictionary(fc.string({ unit: "binary" }), tie("v"), { maxKeys: 4 }),
      ),
    })).v;
    fc.assert(
      fc.property(value, (v) => {
        try {
          expect(encodeSigsYaml(v).endsWith("\n")).toBe(true);
        } catch (error) {
          expect(error).toBeInstanceOf(SigsYamlError);
        }
      }),
    );
  });
});
