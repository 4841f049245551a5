/**
 * `tsx tools/src/clean-dist.ts`, the first half of `npm run build:release`:
 * removes every workspace package's dist/ (its tsbuildinfo included), so
 * that the build after it writes only what today's sources make. `tsc -b`
 * never deletes an output whose source is gone (nor does `tsc -b --clean`,
 * which removes the outputs of the sources it still has), and npm packs
 * whatever dist/ holds; the build then skips nx's cache, whose entries keep
 * what dist/ held when they were made.
 */
import { existsSync, rmSync } from "node:fs";
import { join } from "node:path";
import { workspacePackages } from "./workspace.js";

const built = workspacePackages().filter((pkg) => existsSync(join(pkg.dir, "dist")));
for (const pkg of built) rmSync(join(pkg.dir, "dist"), { recursive: true, force: true });
console.log(`clean-dist: removed the dist/ of ${built.map((pkg) => pkg.path).join(", ") || "no package"}`);
