/** Packed tarballs of workspace packages, as `npm pack` makes them for the registry. */
import { execFile } from "node:child_process";
import { join } from "node:path";
import { promisify } from "node:util";
import { ROOT, workspacePackages } from "./workspace.js";

const run = promisify(execFile);

/** The package and every workspace package it depends on at run time (`dependencies`), transitively. */
export function dependencyClosure(name: string): string[] {
  const byName = new Map(workspacePackages().map((pkg) => [pkg.manifest.name, pkg.manifest]));
  const found = new Set<string>();
  const visit = (current: string) => {
    const manifest = byName.get(current);
    if (!manifest) throw new Error(`${current} is not a workspace package`);
    if (found.has(current)) return;
    found.add(current);
    for (const dependency of Object.keys(manifest.dependencies ?? {})) if (byName.has(dependency)) visit(dependency);
  };
  visit(name);
  return [...found];
}

/** Packs the packages (built first: `npm run build`) into `dir`; resolves to each package's tarball path, by name. */
export async function pack(names: string[], dir: string): Promise<Record<string, string>> {
  const { stdout } = await run(
    "npm",
    ["pack", "--json", "--pack-destination", dir, ...names.flatMap((name) => ["-w", name])],
    { cwd: ROOT, maxBuffer: 64 << 20 },
  );
  return Object.fromEntries(
    (JSON.parse(stdout) as { name: string; filename: string }[]).map((entry) => [
      entry.name,
      join(dir, entry.filename),
    ]),
  );
}
