/**
 * The site's own links, read from its HTML files: every `href` and `src`
 * that stays inside the site must name a file that exists, and an anchor in
 * it must be an `id` of that file.
 */
import { readdirSync, readFileSync } from "node:fs";
import { dirname, join, relative } from "node:path";

/** The HTML files under `root`, relative to it. */
export function htmlFiles(root: string, dir = root): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) return htmlFiles(root, path);
    return entry.name.endsWith(".html") ? [relative(root, path)] : [];
  });
}

const decode = (text: string) =>
  text
    .replace(/&amp;/g, "&")
    .replace(/&quot;/g, '"')
    .replace(/&#39;/g, "'");

/** The ids of an HTML text. */
export function ids(html: string): Set<string> {
  return new Set([...html.matchAll(/\sid="([^"]*)"/g)].map(([, id]) => decode(id!)));
}

/** `page: link (why)` for each link of the site that does not resolve. */
export function brokenLinks(root: string): string[] {
  const files = htmlFiles(root);
  const known = new Set(files);
  const idsOf = new Map<string, Set<string>>();
  const broken: string[] = [];
  for (const file of files) {
    const html = readFileSync(join(root, file), "utf8");
    for (const [, attribute] of html.matchAll(/\s(?:href|src)="([^"]*)"/g)) {
      const link = decode(attribute!);
      if (link === "" || /^[a-z][a-z0-9+.-]*:/i.test(link) || link.startsWith("//")) continue;
      if (link.startsWith("/")) {
        broken.push(`${file}: ${link} (absolute: breaks under a path prefix)`);
        continue;
      }
      const [path, anchor] = link.split("#", 2) as [string, string | undefined];
      const target = path === "" ? file : relative(".", join(dirname(file), path.split("?")[0]!));
      if (target.startsWith("..")) {
        broken.push(`${file}: ${link} (outside the site)`);
        continue;
      }
      if (!target.endsWith(".html")) {
        try {
          readFileSync(join(root, target));
        } catch {
          broken.push(`${file}: ${link} (no such file)`);
        }
        continue;
      }
      if (!known.has(target)) {
        broken.push(`${file}: ${link} (no such page)`);
        continue;
      }
      if (anchor) {
        if (!idsOf.has(target)) idsOf.set(target, ids(readFileSync(join(root, target), "utf8")));
        if (!idsOf.get(target)!.has(decodeURIComponent(anchor))) broken.push(`${file}: ${link} (no such anchor)`);
      }
    }
  }
  return broken;
}
