/**
 * Packs every public package once (after `npm run build`), as `npm publish`
 * would, and extracts each tarball; the tests get the paths.
 */
import { execFileSync } from "node:child_process";
import { existsSync, mkdirSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { TestProject } from "vitest/node";
import { pack } from "../src/pack.js";
import { publicPackages } from "../src/workspace.js";

export interface Packed {
  /** Package name → tarball path. */
  tarballs: Record<string, string>;
  /** Package name → the extracted tarball's `package/` directory. */
  extracted: Record<string, string>;
  work: string;
}

declare module "vitest" {
  export interface ProvidedContext {
    packed: Packed;
  }
}

export default async function setup(project: TestProject): Promise<() => void> {
  const packages = publicPackages();
  const missing = packages.filter((pkg) => !existsSync(join(pkg.dir, "dist")));
  if (missing.length > 0)
    throw new Error(`not built: ${missing.map((pkg) => pkg.path).join(", ")}; run npm run build first`);
  const work = mkdtempSync(join(tmpdir(), "nri-tarballs-"));
  const names = packages.map((pkg) => pkg.manifest.name);
  const tarballs = await pack(names, work);
  const extracted = Object.fromEntries(
    names.map((name, i) => {
      const dir = join(work, "extracted", String(i));
      mkdirSync(dir, { recursive: true });
      execFileSync("tar", ["-xzf", tarballs[name]!, "-C", dir]);
      return [name, join(dir, "package")];
    }),
  );
  project.provide("packed", { tarballs, extracted, work });
  return () => rmSync(work, { recursive: true, force: true });
}
