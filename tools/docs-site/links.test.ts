import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { brokenLinks } from "./links.js";

const root = mkdtempSync(join(tmpdir(), "site-links-"));
afterAll(() => rmSync(root, { recursive: true, force: true }));

function page(path: string, html: string): void {
  mkdirSync(join(root, path, ".."), { recursive: true });
  writeFileSync(join(root, path), html);
}

describe("brokenLinks", () => {
  it("passes links to pages, anchors and files that exist, and links that leave the site by URL", () => {
    page(
      "index.html",
      '<a href="docs/a.html#x">a</a><a href="https://example.com/">out</a><script src="assets/m.js"></script>',
    );
    page("docs/a.html", '<h2 id="x">x</h2><a href="../index.html">up</a><a href="#x">here</a>');
    page("assets/m.js", "");
    expect(brokenLinks(root)).toEqual([]);
  });

  it("names each link to a missing page, anchor or file, outside the site or by an absolute path", () => {
    page(
      "bad.html",
      '<a href="nope.html">1</a><a href="docs/a.html#y">2</a><img src="media/x.png"><a href="../up.html">3</a><a href="/docs/a.html">4</a>',
    );
    expect(brokenLinks(root)).toEqual([
      "bad.html: nope.html (no such page)",
      "bad.html: docs/a.html#y (no such anchor)",
      "bad.html: media/x.png (no such file)",
      "bad.html: ../up.html (outside the site)",
      "bad.html: /docs/a.html (absolute: breaks under a path prefix)",
    ]);
  });
});
