import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { fastParse } from "./fast-parse.js";
import { parseYaml } from "./parse.js";
import type { YamlNode } from "./yaml-node.js";

/**
 * A node tree as text, aliases shown with the position of the node they
 * name (so that two trees compare). An empty node and an empty plain scalar
 * look the same: the full parser gives the one where the fast reader gives
 * the other, and both decode to null.
 */
function show(root: YamlNode | null): string {
  const ids = new Map<YamlNode, number>();
  const number = (node: YamlNode | null): void => {
    if (node === null || node.kind === "alias" || isEmpty(node)) return;
    ids.set(node, ids.size);
    if (node.kind === "seq") node.items.forEach(number);
    if (node.kind === "map")
      for (const [k, v] of node.pairs) {
        number(k);
        number(v);
      }
  };
  number(root);
  const render = (node: YamlNode | null): unknown => {
    if (node === null || isEmpty(node)) return null;
    switch (node.kind) {
      case "scalar":
        return [node.plain ? "plain" : "quoted", node.text, node.tag ?? ""];
      case "alias":
        return ["alias", node.name, node.target === undefined ? -1 : ids.get(node.target)];
      case "seq":
        return node.items.map(render);
      case "map":
        return { pairs: node.pairs.map(([k, v]) => [render(k), render(v)]) };
    }
  };
  return JSON.stringify(render(root));
}

function isEmpty(node: YamlNode): boolean {
  return node.kind === "scalar" && node.plain && node.text === "" && node.tag === undefined;
}

/** What the full parser makes of the text, or its error. */
function full(text: string): string {
  try {
    return show(parseYaml(text));
  } catch (error) {
    return `error: ${(error as Error).message}`;
  }
}

const key = fc.constantFrom("type", "soft", "hard", "a", "B c", "<<", "x.y/z", "1", "~", "'q'", '"d"', "-k", "é");
const scalar = fc.oneof(
  fc.constantFrom(
    "1",
    "-1",
    "0x1F",
    "1e3",
    ".inf",
    "~",
    "yes",
    "a b",
    "a#b",
    "a #c",
    "12:30",
    "a:b",
    "-",
    "- a",
    "?x",
    ":x",
  ),
  fc.constantFrom(
    '"x"',
    '"a\\"b"',
    '"\\n"',
    '"\\u0041"',
    "'it''s'",
    "''",
    '""',
    "*a",
    "&a x",
    "!!int 3",
    "!foo x",
    "!!str",
    "&a",
    "&a [x]",
  ),
  fc.constantFrom(
    "[a, b]",
    "[]",
    "{}",
    "{a: 1}",
    "{a: }",
    "{a:}",
    "[a, [b]]",
    "{a: [1, {b: c}]}",
    "[a,]",
    "[a: b]",
    "{a}",
    '{"a":1}',
    "[*a]",
  ),
  fc.stringMatching(/^[ -~]{0,8}$/),
);
const indent = fc.constantFrom("", " ", "  ", "    ");
const line = fc.oneof(
  fc
    .tuple(indent, key, fc.constantFrom(":", ": ", ":  "), fc.option(scalar, { nil: "" }))
    .map((parts) => parts.join("")),
  fc
    .tuple(indent, fc.constantFrom("- ", "-", "- - ", "- k: "), fc.option(scalar, { nil: "" }))
    .map((parts) => parts.join("")),
  fc.tuple(indent, scalar).map((parts) => parts.join("")),
  fc.constantFrom("# comment", "", "  # c", "---", "...", "%YAML 1.1", "key: |", "  text", "\tx: 1", "a: b\r"),
);
const documents = fc.array(line, { maxLength: 8 }).map((lines) => lines.join("\n"));

describe("fastParse", () => {
  it("reads what it accepts exactly as the full parser does", () => {
    let accepted = 0;
    fc.assert(
      fc.property(documents, (text) => {
        const fast = fastParse(text);
        if (fast === undefined) return;
        accepted++;
        expect(show(fast)).toBe(full(text));
      }),
      { numRuns: 20_000 },
    );
    // the comparison is not empty: most generated documents are of the kind it reads
    expect(accepted).toBeGreaterThan(3000);
  });

  it("reads the usual annotation shapes itself", () => {
    for (const text of [
      "- type: RLIMIT_NOFILE\n  soft: 1024\n  hard: 4096\n- {type: memlock, soft: 1, hard: 2}\n",
      "- path: /dev/nri-null\n  type: c\n  major: 1\n  minor: 3\n",
      "- vendor0.com/device=dev0\n- vendor1.com/device=dev1\n",
      "- source: /home\n  destination: /host-home\n  type: bind\n  options: [ bind, ro ]\n",
      'mode: MPOL_INTERLEAVE\nnodes: "2,3"\nflags: [ MPOL_F_STATIC_NODES ]\n',
      'net.core.somaxconn: "256"\n# a comment\nkernel.x: 1\n',
      "logFile: /var/log/nri-logger.log\nevents: [ CreateContainer, StopContainer ]\naddEnv: LOGGER_SEEN\n",
      "- &a {type: nofile, hard: 3}\n- *a\n- <<: *a\n  soft: 2\n",
      "",
      "# only a comment",
    ]) {
      expect(fastParse(text), text).not.toBeUndefined();
      expect(show(fastParse(text) as YamlNode | null)).toBe(full(text));
    }
  });

  it("leaves the rest to the full parser", () => {
    for (const text of [
      "a: |\n  x\n",
      "a: b\n  c",
      "---\na: 1",
      "a: b: c",
      "? a\n: b",
      "a:\tb",
      "a: 'x\n  y'",
      "[a,\n b]",
      "a: b\r\n",
    ]) {
      expect(fastParse(text), text).toBeUndefined();
    }
  });
});
