/**
 * The TypeScript examples of a README and what they say they print
 * (CONTRIBUTING.md, "README.md"): a ```ts block, optionally named
 * (```ts my-plugin.ts) so that later blocks can import it; its output is
 * either the `// → line` comments in it, or the plain block after a
 * paragraph ending in "prints".
 */

export interface Example {
  /** 1-based position among the README's ts blocks. */
  number: number;
  /** The README line of the opening fence. */
  line: number;
  /** The file name it is written as (`example-3.ts` unless named). */
  file: string;
  /** Whether the README named it (other blocks may import it). */
  named: boolean;
  code: string;
  /** The lines it must print, or undefined when the README does not say. */
  prints?: string[];
}

const FENCE = /^```(\S*)(?:[ \t]+(.+?))?[ \t]*$/;
const ARROW = /^\s*\/\/ → (.*)$/;

interface Block {
  lang: string;
  name?: string;
  line: number;
  body: string[];
  /** The prose between the previous block and this one. */
  before: string;
}

function blocks(readme: string): Block[] {
  const found: Block[] = [];
  let open: Block | undefined;
  let prose: string[] = [];
  readme.split("\n").forEach((text, i) => {
    const fence = FENCE.exec(text);
    if (open) {
      if (text === "```") {
        found.push(open);
        open = undefined;
      } else open.body.push(text);
    } else if (fence) {
      open = { lang: fence[1]!, name: fence[2], line: i + 1, body: [], before: prose.join("\n") };
      prose = [];
    } else prose.push(text);
  });
  if (open) throw new Error(`line ${open.line}: the block is never closed`);
  return found;
}

/** The README's TypeScript examples, in order. */
export function readmeExamples(readme: string): Example[] {
  const all = blocks(readme);
  const examples: Example[] = [];
  all.forEach((block, i) => {
    if (block.lang !== "ts") return;
    const number = examples.length + 1;
    const code = `${block.body.join("\n")}\n`;
    const arrows = block.body.map((text) => ARROW.exec(text)?.[1]).filter((text) => text !== undefined);
    const next = all[i + 1];
    const output = next && next.lang === "" && /\bprints:?\s*$/.test(next.before.trim()) ? next.body : undefined;
    if (block.name !== undefined && !/^[\w.-]+\.ts$/.test(block.name)) {
      throw new Error(
        `line ${block.line}: a block's name must be a file name ending in .ts, not ${JSON.stringify(block.name)}`,
      );
    }
    examples.push({
      number,
      line: block.line,
      file: block.name ?? (/from "vitest"/.test(code) ? `example-${number}.test.ts` : `example-${number}.ts`),
      named: block.name !== undefined,
      code,
      prints: output ?? (arrows.length > 0 ? arrows : undefined),
    });
  });
  return examples;
}

/** A fenced block of a Markdown section: its language, its name (```ts annotate.ts) and its text. */
export interface SectionBlock {
  lang: string;
  name?: string;
  code: string;
}

/**
 * The fenced blocks under the heading `heading` (`## Quick start`), in
 * order, up to the next heading of the same or a higher level: what a
 * reader types and writes, for a test that does the same word for word.
 */
export function sectionBlocks(markdown: string, heading: string): SectionBlock[] {
  const lines = markdown.split("\n");
  const start = lines.indexOf(heading);
  if (start < 0) throw new Error(`no section ${JSON.stringify(heading)}`);
  const level = /^#+/.exec(heading)![0].length;
  let inFence = false;
  let end = lines.length;
  for (let i = start + 1; i < lines.length; i++) {
    if (lines[i]!.startsWith("```")) inFence = !inFence;
    const match = /^(#+) /.exec(lines[i]!);
    if (!inFence && match && match[1]!.length <= level) {
      end = i;
      break;
    }
  }
  return blocks(lines.slice(start + 1, end).join("\n")).map((block) => ({
    lang: block.lang,
    name: block.name,
    code: `${block.body.join("\n")}\n`,
  }));
}

/** Whether `printed` matches the `expected` lines; `…` in an expected line stands for any text. */
export function printedMatches(printed: string[], expected: string[]): boolean {
  if (printed.length !== expected.length) return false;
  return expected.every((line, i) => {
    const pattern = line.split("…").map((part) => part.replace(/[.*+?^${}()|[\]\\]/g, "\\$&"));
    return new RegExp(`^${pattern.join(".*")}$`, "s").test(printed[i]!);
  });
}
