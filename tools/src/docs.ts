/**
 * `npm run docs`: the docs site, built by TypeDoc into docs/api/ (after
 * `npm run build`: TypeDoc reads each package through its tsconfig, whose
 * references need the built declarations): the guides of docs/guides/ and
 * every public package's README with its API reference, generated from the
 * sources (typedoc.json; tools/src/typedoc-site.ts for the links). Every
 * TypeDoc warning is an error, broken `{@link}`s and relative links
 * included; then every package must have the page its README names.
 */
import { execFileSync } from "node:child_process";
import { existsSync } from "node:fs";
import { createRequire } from "node:module";
import { dirname, join } from "node:path";
import { API_DOCS, apiPage } from "./api-reference.js";
import { publicPackages, ROOT } from "./workspace.js";

const packages = publicPackages();
const unbuilt = packages.filter((pkg) => !existsSync(join(pkg.dir, "dist")));
if (unbuilt.length > 0) {
  console.error(`docs: not built: ${unbuilt.map((pkg) => pkg.path).join(", ")}; run npm run build first`);
  process.exit(1);
}

const typedoc = join(dirname(createRequire(import.meta.url).resolve("typedoc/package.json")), "bin", "typedoc");
try {
  execFileSync(
    process.execPath,
    // tsx: typedoc.json's plugin for the site's links is TypeScript (typedoc-site.ts)
    ["--import", "tsx", typedoc, "--options", join(ROOT, "typedoc.json"), ...packages.map((pkg) => pkg.path)],
    {
      cwd: ROOT,
      stdio: "inherit",
    },
  );
} catch {
  console.error("docs: TypeDoc failed (its warnings are errors here: see above)");
  process.exit(1);
}

const missing = packages.filter((pkg) => !existsSync(join(ROOT, apiPage(pkg.manifest.name))));
if (missing.length > 0) {
  console.error(
    `docs: no page for ${missing.map((pkg) => `${pkg.manifest.name} (${apiPage(pkg.manifest.name)})`).join(", ")}`,
  );
  process.exit(1);
}
console.log(
  `docs: the site (guides, and the READMEs and API reference of ${packages.length} packages) is in ${API_DOCS}/ (open ${API_DOCS}/index.html)`,
);
