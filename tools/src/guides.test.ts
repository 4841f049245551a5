/**
 * The docs site's guides (docs/guides/, listed in typedoc.json): each is
 * listed, has the front matter TypeDoc needs, and the getting-started
 * guide's quick start is the root README's, word for word (the registry
 * test follows the README's).
 */
import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { sectionBlocks } from "./readme-examples.js";
import { ROOT } from "./workspace.js";

const GUIDES = join(ROOT, "docs", "guides");
const read = (path: string) => readFileSync(join(ROOT, path), "utf8");
const listed = (JSON.parse(read("typedoc.json")) as { readme: string; projectDocuments: string[] }).projectDocuments;

describe("the guides", () => {
  it("are each in typedoc.json, the index as the site's start page", () => {
    const files = readdirSync(GUIDES).filter((file) => file.endsWith(".md"));
    expect([...listed, (JSON.parse(read("typedoc.json")) as { readme: string }).readme].sort()).toEqual(
      files.map((file) => `docs/guides/${file}`).sort(),
    );
  });

  it.each(listed)("%s has a title and the Guides group", (path) => {
    expect(read(path)).toMatch(/^---\ntitle: .+\ngroup: Guides\n---\n/);
  });

  it("start with the root README's quick start", () => {
    expect(sectionBlocks(read("docs/guides/getting-started.md"), "## Quick start")).toEqual(
      sectionBlocks(read("README.md"), "## Quick start"),
    );
  });
});
