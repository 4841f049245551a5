/**
 * `npm run release` builds what it publishes from a clean dist/: a file an
 * older build left there (its source since deleted or renamed) is not
 * packed, whether it is still in dist/ or in the nx cache entry of a build
 * that ran over it. Run on a copy of the workspace with one package
 * (@nri-ts/common) and the checkout's node_modules, with the steps of the
 * root's `release` script before its tarball checks.
 */
import { execFileSync } from "node:child_process";
import {
  appendFileSync,
  cpSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  rmSync,
  symlinkSync,
  writeFileSync,
} from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { npmEnv, sh } from "../registry/npm-env.js";
import { readManifest, ROOT } from "./workspace.js";

const PACKAGE = "packages/common";
const STALE = "dist/deleted-source.js";

/** The copy: the root's files the build reads, tools/src (the scripts it runs) and one package's files (not ignored ones). */
function copyWorkspace(dir: string): void {
  const files = execFileSync(
    "git",
    ["ls-files", "-z", "--cached", "--others", "--exclude-standard", "--", PACKAGE, "tools/src"],
    { cwd: ROOT, encoding: "utf8" },
  )
    .split("\0")
    .filter((file) => file !== "" && existsSync(join(ROOT, file)));
  for (const file of ["package.json", "package-lock.json", "nx.json", "tsconfig.base.json", ".gitignore", ...files]) {
    mkdirSync(dirname(join(dir, file)), { recursive: true });
    cpSync(join(ROOT, file), join(dir, file));
  }
  mkdirSync(join(dir, "packages", "plugins"));
  symlinkSync(join(ROOT, "node_modules"), join(dir, "node_modules"));
}

describe("the release's build", () => {
  let dir: string;
  let env: NodeJS.ProcessEnv;
  const run = (script: string) => sh(dir, env, "sh", ["-c", script]);

  beforeAll(() => {
    dir = mkdtempSync(join(tmpdir(), "nri-release-build-"));
    copyWorkspace(dir);
    env = npmEnv(join(dir, ".npmrc"), { CI: "true", NX_DAEMON: "false", NX_TUI: "false", NX_NO_CLOUD: "true" });
  });

  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it("packs no file that an older build left in dist/", { timeout: 300_000 }, async () => {
    const release = readManifest(ROOT).scripts?.release ?? "";
    const checks = release.indexOf(" && npm run test:tarballs");
    expect(checks, `the release script, ${release}, runs npm run test:tarballs after its build`).toBeGreaterThan(0);

    // a build, then a file of a source since deleted, then a build after a change: nx caches what dist/ then holds
    await run("npm run build");
    writeFileSync(join(dir, PACKAGE, STALE), "export const gone = true;\n");
    appendFileSync(join(dir, PACKAGE, "src", "index.ts"), "// changed since\n");
    await run("npm run build");

    await run(release.slice(0, checks));
    const { stdout } = await sh(join(dir, PACKAGE), env, "npm", ["pack", "--dry-run", "--json"]);
    const packed = (JSON.parse(stdout) as { files: { path: string }[] }[])[0]!.files.map((file) => file.path);
    expect(packed).toContain("dist/index.js");
    expect(packed).not.toContain(STALE);
  });
});
