/**
 * The root README's quick start, word for word, as a new user follows it
 * with nothing but the registry: each command of its `sh` blocks typed in an
 * empty directory, each named `ts` block written as the file it names.
 */
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { beforeAll, describe, expect, inject, it } from "vitest";
import { sectionBlocks } from "../src/readme-examples.js";
import { ROOT } from "../src/workspace.js";
import { readFileSync } from "node:fs";
import { ourResolved, user } from "./user.js";

const { registry, first } = inject("released");
const me = user("quick-start");
const printed: { line: string; stdout: string }[] = [];

beforeAll(async () => {
  const blocks = sectionBlocks(readFileSync(join(ROOT, "README.md"), "utf8"), "## Quick start");
  for (const block of blocks) {
    if (block.lang === "sh") {
      for (const line of block.code.split("\n").filter((text) => text.trim() !== "" && !text.startsWith("#")))
        printed.push({ line, stdout: (await me.type(line)).stdout });
    } else if (block.name) writeFileSync(join(me.dir, block.name), block.code);
    else
      throw new Error(
        `the quick start has a ${block.lang} block without a file name: a user would not know where it goes`,
      );
  }
}, 600_000);

describe("the README's quick start, from the registry", () => {
  it("installed our packages, at the released versions, from the registry", () => {
    const resolved = ourResolved(me.dir);
    expect(Object.keys(resolved)).toEqual(
      expect.arrayContaining([
        `@nri-ts/stub@${first.after["@nri-ts/stub"]}`,
        `@nri-ts/sim@${first.after["@nri-ts/sim"]}`,
      ]),
    );
    for (const [name, url] of Object.entries(resolved)) expect(url, name).toMatch(new RegExp(`^${registry.url}`));
  });

  it("ran the plugin in nri-sim through the demo's lifecycle, with the adjustments the README promises", () => {
    const sim = printed.find(({ line }) => line.startsWith("npx nri-sim"));
    expect(sim, "the quick start runs nri-sim").toBeDefined();
    expect(sim!.stdout).toContain("plugins: 10-annotate (module ./annotate.ts)");
    expect(sim!.stdout).toMatch(/annotation example\.com\/seen-by=annotate +10-annotate/);
    expect(sim!.stdout).toMatch(/env POD_NAME=web +10-annotate/);
    expect(sim!.stdout).toMatch(/10-annotate: stopping/);
  });

  it("has a main that nri-sim launches as the runtime would (10-annotate.ts)", async () => {
    // `node --import tsx`, as a plugin directory's executable would start it (tsx itself would lose fd 3).
    writeFileSync(
      join(me.dir, "10-annotate"),
      `#!/bin/sh\ncd "${me.dir}" && exec "${process.execPath}" --import tsx 10-annotate.ts\n`,
      { mode: 0o755 },
    );
    const { stdout } = await me.type(
      "mkdir -p plugins && mv 10-annotate plugins/ && npx nri-sim run node_modules/@nri-ts/sim/scenarios/demo.yaml --plugin-dir plugins --wait-timeout 60s",
    );
    expect(stdout).toMatch(/plugins: 10-annotate \(executable/);
    expect(stdout).toMatch(/annotation example\.com\/seen-by=annotate +10-annotate/);
  });
});
