import { describe, expect, it } from "vitest";
import { printedMatches, readmeExamples, sectionBlocks } from "./readme-examples.js";

const readme = [
  "# x",
  "```ts helper.ts",
  "export const two = 2;",
  "```",
  "",
  "```ts",
  'import { two } from "./helper.js";',
  "console.log(two);",
  "// → 2",
  "```",
  "",
  "```sh",
  "echo not typescript",
  "```",
  "```ts",
  'import { it } from "vitest";',
  "```",
  "",
  "The example prints",
  "",
  "```",
  "a",
  "b",
  "```",
].join("\n");

describe("readmeExamples", () => {
  it("finds ts blocks, their names and what they print", () => {
    expect(readmeExamples(readme)).toEqual([
      { number: 1, line: 2, file: "helper.ts", named: true, code: "export const two = 2;\n", prints: undefined },
      {
        number: 2,
        line: 6,
        file: "example-2.ts",
        named: false,
        code: expect.stringContaining("console.log(two)"),
        prints: ["2"],
      },
      { number: 3, line: 15, file: "example-3.test.ts", named: false, code: expect.any(String), prints: ["a", "b"] },
    ]);
  });

  it("refuses an unclosed block and a bad name", () => {
    expect(() => readmeExamples("```ts\nx")).toThrow("line 1: the block is never closed");
    expect(() => readmeExamples("```ts my plugin\n```")).toThrow(
      'line 1: a block\'s name must be a file name ending in .ts, not "my plugin"',
    );
  });
});

describe("printedMatches", () => {
  it("compares line by line, … matching any text", () => {
    expect(printedMatches(["hello ada (deadline 2026-01-01)"], ["hello ada (deadline …)"])).toBe(true);
    expect(printedMatches(["hello ada"], ["hello bob"])).toBe(false);
    expect(printedMatches(["a", "b"], ["a"])).toBe(false);
    expect(printedMatches(["a.b"], ["a*b"])).toBe(false);
  });
});

describe("sectionBlocks", () => {
  const markdown = [
    "# x",
    "## Quick start",
    "```sh",
    "npm install x",
    "```",
    "### Deeper",
    "```ts a.ts",
    "export const a = 1;",
    "# not a heading: inside a block",
    "```",
    "## Next",
    "```sh",
    "not this",
    "```",
  ].join("\n");

  it("takes the section's blocks, its subsections' included, up to the next heading of its level", () => {
    expect(sectionBlocks(markdown, "## Quick start")).toEqual([
      { lang: "sh", name: undefined, code: "npm install x\n" },
      { lang: "ts", name: "a.ts", code: "export const a = 1;\n# not a heading: inside a block\n" },
    ]);
  });

  it("says when there is no such section", () => {
    expect(() => sectionBlocks(markdown, "## Install")).toThrow('no section "## Install"');
  });
});
