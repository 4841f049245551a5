/**
 * The docs site as a reader sees it (`npm run test:docs`, after `npm run
 * docs`): served under a path prefix as GitHub Pages serves it, opened in
 * headless Chromium (Debian's `chromium`, or $CHROMIUM). Every guide, the
 * start page and the stub's `Plugin` page render with their text and
 * without a console error or a failed request; every link of the site
 * resolves. NRI_DOCS_SCREENSHOT=<file.png> keeps a picture of the getting
 * started page.
 */
import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { type Browser, chromium } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { API_DOCS, apiPage } from "../src/api-reference.js";
import { ROOT } from "../src/workspace.js";
import { brokenLinks, htmlFiles } from "./links.js";
import { type Site, serveSite } from "./serve.js";

const SITE = join(ROOT, API_DOCS);
const CHROMIUM = process.env.CHROMIUM ?? "/usr/bin/chromium";

/** The guides typedoc.json lists, by their titles. */
const guides = (
  JSON.parse(readFileSync(join(ROOT, "typedoc.json"), "utf8")) as { projectDocuments: string[] }
).projectDocuments.map((path) => {
  const title = /^title: (.+)$/m.exec(readFileSync(join(ROOT, path), "utf8"))?.[1];
  if (!title) throw new Error(`${path}: no title in its front matter`);
  return { path, title };
});

let site: Site;
let browser: Browser;

beforeAll(async () => {
  if (!existsSync(join(SITE, "index.html"))) throw new Error(`no site in ${API_DOCS}/: run npm run docs first`);
  if (!existsSync(CHROMIUM)) throw new Error(`no Chromium at ${CHROMIUM}: apt-get install chromium (or set CHROMIUM)`);
  site = await serveSite(SITE);
  browser = await chromium.launch({ executablePath: CHROMIUM, headless: true, args: ["--no-sandbox"] });
}, 120_000);

afterAll(async () => {
  await browser?.close();
  await site?.close();
});

/** Opens `page` (a path in the site); resolves to its title, its main text and what went wrong while loading. */
async function open(path: string, screenshot?: string) {
  const page = await browser.newPage();
  const problems: string[] = [];
  page.on("console", (message) => {
    // Chromium asks the server's root for /favicon.ico, which is no page of the site
    if (message.type() === "error" && !message.location().url.endsWith("/favicon.ico"))
      problems.push(`console: ${message.text()} (${message.location().url})`);
  });
  page.on("pageerror", (error) => problems.push(`page error: ${error.message}`));
  page.on("requestfailed", (request) => problems.push(`failed: ${request.url()} ${request.failure()?.errorText}`));
  page.on("response", (response) => {
    if (response.status() >= 400) problems.push(`${response.status()}: ${response.url()}`);
  });
  try {
    const response = await page.goto(new URL(path, site.url).href, { waitUntil: "load", timeout: 60_000 });
    // TypeDoc's script fills the navigation in once loaded
    await page.waitForSelector(".tsd-navigation a", { timeout: 60_000 });
    const title = await page.title();
    const main = ((await page.locator(".col-content").textContent()) ?? "").trim();
    if (screenshot) await page.screenshot({ path: screenshot, fullPage: false });
    return { status: response?.status(), title, main, problems };
  } finally {
    await page.close();
  }
}

describe("the docs site, in Chromium", () => {
  it("lists every guide, each a page of its own", () => {
    const pages = htmlFiles(SITE).filter((file) => file.startsWith("documents/"));
    expect(pages).toHaveLength(guides.length);
  });

  it.each(guides.map((guide) => [guide.title, guide] as const))(
    "renders the guide %s",
    async (title) => {
      const file = htmlFiles(SITE).find(
        (path) => path.startsWith("documents/") && path.startsWith(`documents/${title.replace(/[^A-Za-z0-9-]/g, "_")}`),
      );
      expect(file, `the page of ${title}`).toBeDefined();
      const screenshot = title === "Getting started" ? process.env.NRI_DOCS_SCREENSHOT : undefined;
      const page = await open(file!, screenshot);
      expect(page.status).toBe(200);
      expect(page.problems).toEqual([]);
      expect(page.title).toContain(title);
      expect(page.main).toContain(title);
    },
    120_000,
  );

  it("renders the start page, the guides listed", async () => {
    const page = await open("index.html");
    expect(page.problems).toEqual([]);
    for (const { title } of guides) expect(page.main).toContain(title.split(" ")[0]);
  }, 120_000);

  it("renders the stub's Plugin page, its handlers documented, its source linked", async () => {
    const file = htmlFiles(SITE).find((path) => /^interfaces\/_nri-ts_stub\.(_nri-ts_stub\.)?Plugin\.html$/.test(path));
    expect(file, "the page of @nri-ts/stub's Plugin").toBeDefined();
    const page = await open(file!);
    expect(page.problems).toEqual([]);
    expect(page.title).toContain("Plugin");
    expect(page.main).toContain("createContainer");
    expect(readFileSync(join(SITE, file!), "utf8")).toMatch(
      /href="https:\/\/github\.com\/nri-ts\/nri-ts\/blob\/main\/packages\/stub\/src\/[^"]+\.ts#L\d+"/,
    );
  }, 120_000);

  it("renders each package's page with its README", async () => {
    const page = await open(apiPage("@nri-ts/stub").slice(API_DOCS.length + 1));
    expect(page.problems).toEqual([]);
    expect(page.main).toContain("A plugin in a few lines");
  }, 120_000);

  it("has no link that does not resolve, and none that leaves the site by an absolute path", () => {
    expect(brokenLinks(SITE)).toEqual([]);
  });
});
