import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { Document, isAlias, isMap, isPair, isScalar, isSeq, type Node, parseAllDocuments, visit } from "yaml";
import { MAX_YAML_NESTING, whereYamlNestsDeeperThan, yamlMayNestDeeperThan } from "./yaml-nesting.js";

/** How deep the `yaml` parser nests the collections of a text (aliases count as scalars). */
function parsedDepth(text: string): { depth: number; errors: number } {
  let depth = 0;
  let errors = 0;
  for (const doc of parseAllDocuments(text)) {
    errors += doc.errors.length;
    depth = Math.max(depth, nodeDepth(doc.contents));
  }
  return { depth, errors };
}

function nodeDepth(node: unknown): number {
  if (node === null || node === undefined || isScalar(node) || isAlias(node)) return 0;
  if (isPair(node)) return Math.max(nodeDepth(node.key), nodeDepth(node.value));
  if (isMap(node) || isSeq(node)) return 1 + Math.max(0, ...node.items.map(nodeDepth));
  return 0;
}

/** The guard finds exactly the parser's depth: not deeper than it, deeper than one less. */
function expectExact(text: string): void {
  const { depth } = parsedDepth(text);
  expect(yamlMayNestDeeperThan(text, depth), `nests ${depth}: ${JSON.stringify(text)}`).toBe(false);
  if (depth > 0) expect(yamlMayNestDeeperThan(text, depth - 1), `nests ${depth}: ${JSON.stringify(text)}`).toBe(true);
}

describe("yamlMayNestDeeperThan", () => {
  it("counts real nesting only: wide lines, long flow lists, brackets and indicators inside scalars and comments", () => {
    const wide = [
      `{${Array.from({ length: 2000 }, (_, i) => `key${i}: value`).join(", ")}}`,
      `[${Array.from({ length: 2000 }, (_, i) => `{type: RLIMIT_NOFILE, hard: ${i}, soft: 512}`).join(", ")}]`,
      `[${Array.from({ length: 2000 }, (_, i) => `k${i}: v`).join(", ")}]`,
      `- ${'"[[[[{{{{" '.repeat(500)}\n- '${"[".repeat(1000)}'`,
      `key: |\n${"  [[[[ {{{{ - - - a: b: c\n".repeat(500)}other: 1`,
      `key: value # ${"[".repeat(1000)}\nlist: a[b]{c}- d: e`,
      `key: folded plain\n  ${"- ".repeat(500)}\n  ${"[".repeat(500)}`,
      `${" ".repeat(1000)}deeply: indented`,
    ];
    for (const text of wide) {
      expectExact(text);
      expect(yamlMayNestDeeperThan(text)).toBe(false);
    }
  }, 120_000);

  it("refuses deep flow and block nesting, valid or not, without parsing it", () => {
    const deep = 100_000;
    for (const text of [
      "[".repeat(deep),
      "{a: ".repeat(deep),
      "[a: ".repeat(deep),
      "- ".repeat(deep),
      Array.from({ length: 2000 }, (_, i) => `${" ".repeat(i)}k:`).join("\n"),
      Array.from({ length: 2000 }, (_, i) => `${" ".repeat(2 * i)}- `).join("\n"),
      `key: ${"[".repeat(deep)}`,
      // the rest of a block scalar's header line is a token to the parser, which nests on from it
      "- |2 [\r\n".repeat(deep / 10),
    ]) {
      expect(yamlMayNestDeeperThan(text)).toBe(true);
    }
    expect(yamlMayNestDeeperThan(`${"[".repeat(MAX_YAML_NESTING)}${"]".repeat(MAX_YAML_NESTING)}`)).toBe(false);
    expect(yamlMayNestDeeperThan(`${"[".repeat(MAX_YAML_NESTING + 1)}${"]".repeat(MAX_YAML_NESTING + 1)}`)).toBe(true);
  });

  it("agrees with the parser on YAML written in every style", () => {
    const leaf = fc.oneof(
      fc.string(),
      fc.constantFrom(
        "[",
        "]",
        "{a: b}",
        "- x",
        "a: b",
        "# c",
        "'",
        '"',
        "|",
        "x\ny",
        "  lead",
        "trail ",
        "*a",
        "&a",
        "!t",
        "---",
        "...",
      ),
      fc.integer(),
      fc.boolean(),
      fc.constant(null),
    );
    const { value } = fc.letrec((tie) => ({
      value: fc.oneof({ depthSize: "small", withCrossShrink: true }, leaf, tie("array"), tie("object")),
      array: fc.array(tie("value"), { maxLength: 4 }),
      object: fc.dictionary(fc.oneof(fc.string(), fc.constantFrom("a", "[k]", "- k", "k: v")), tie("value"), {
        maxKeys: 4,
      }),
    }));
    const style = fc.record({
      indent: fc.integer({ min: 1, max: 4 }),
      indentSeq: fc.boolean(),
      lineWidth: fc.constantFrom(0, 20, 80),
      defaultStringType: fc.constantFrom("PLAIN", "QUOTE_DOUBLE", "QUOTE_SINGLE", "BLOCK_LITERAL", "BLOCK_FOLDED"),
      defaultKeyType: fc.constantFrom(null, "PLAIN", "QUOTE_DOUBLE", "QUOTE_SINGLE"),
      flowCollectionPadding: fc.boolean(),
    } as const);
    fc.assert(
      fc.property(value, style, fc.array(fc.boolean(), { maxLength: 40 }), (data, options, flows) => {
        const doc = new Document(data);
        let n = 0;
        visit(doc, {
          Collection(_, node: Node & { flow?: boolean }) {
            node.flow = flows[n++ % Math.max(1, flows.length)] ?? false;
          },
        });
        expectExact(doc.toString(options));
      }),
      { numRuns: 1000 },
    );
  }, 120_000);

  it("falls at most one level behind the parser on any text, however often its errors repeat", () => {
    const piece = fc.constantFrom(
      "[",
      "]",
      "{",
      "}",
      ",",
      ":",
      " ",
      ": ",
      "- ",
      "-",
      "? ",
      "\n",
      "\n  ",
      "\n    ",
      "  ",
      "'",
      '"',
      "#",
      "|",
      ">",
      "|2",
      "&a ",
      "*a",
      "!t ",
      "a",
      "b",
      "\\",
      "---\n",
      "...\n",
      "\t",
      "\r\n",
    );
    const check = (text: string) => {
      const { depth } = parsedDepth(text);
      if (depth > 1)
        expect(yamlMayNestDeeperThan(text, depth - 2), `nests ${depth}: ${JSON.stringify(text)}`).toBe(true);
    };
    // found by this property: a node right after a flow collection over two lines nests the parser two levels a
    // repeat, and the guard counted one (200 repeats: the parser 401 deep, the guard 202)
    for (const repeat of [1, 3, 200]) check("? [\n  ]\\: ".repeat(repeat));
    fc.assert(
      fc.property(fc.array(piece, { maxLength: 40 }), fc.integer({ min: 1, max: 20 }), (pieces, repeat) =>
        check(pieces.join("").repeat(repeat)),
      ),
      { numRuns: 3000 },
    );
  }, 120_000);

  it("tells where the nesting went beyond the limit", () => {
    expect(whereYamlNestsDeeperThan("a: 1\nb: [[[x]]]\n", 3)).toEqual({ line: 2, column: 6 });
    expect(whereYamlNestsDeeperThan("a: [[x]]\n", 3)).toBeUndefined();
  });
});
