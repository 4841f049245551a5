/** The workspace's packages, found as npm finds them: from the root's `workspaces` globs. */
import { existsSync, readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";

/** The repository's root directory. */
export const ROOT = fileURLToPath(new URL("../../", import.meta.url));

/** The fields of a package.json that the checks read. */
export interface Manifest {
  name: string;
  version?: string;
  description?: string;
  private?: boolean;
  license?: string;
  repository?: unknown;
  homepage?: string;
  bugs?: unknown;
  type?: string;
  engines?: Record<string, string>;
  publishConfig?: Record<string, unknown>;
  bin?: string | Record<string, string>;
  exports?: Record<string, string | Record<string, string>>;
  files?: string[];
  scripts?: Record<string, string>;
  dependencies?: Record<string, string>;
  devDependencies?: Record<string, string>;
  peerDependencies?: Record<string, string>;
  peerDependenciesMeta?: Record<string, { optional?: boolean }>;
  workspaces?: string[];
}

export interface WorkspacePackage {
  /** Absolute directory. */
  dir: string;
  /** Directory relative to the root, with `/` separators (`packages/plugins/logger`). */
  path: string;
  manifest: Manifest;
}

export function readManifest(dir: string): Manifest {
  return JSON.parse(readFileSync(join(dir, "package.json"), "utf8")) as Manifest;
}

/** Every workspace package, in the order of the root's globs, then by directory name. */
export function workspacePackages(root = ROOT): WorkspacePackage[] {
  return (readManifest(root).workspaces ?? []).flatMap((pattern) => {
    const paths = pattern.endsWith("/*")
      ? readdirSync(join(root, pattern.slice(0, -2)), { withFileTypes: true })
          .filter((entry) => entry.isDirectory())
          .map((entry) => `${pattern.slice(0, -2)}/${entry.name}`)
          .sort()
      : [pattern];
    return paths
      .filter((path) => existsSync(join(root, path, "package.json")))
      .map((path) => ({ dir: join(root, path), path, manifest: readManifest(join(root, path)) }));
  });
}

/** The packages that go to npm. */
export function publicPackages(root = ROOT): WorkspacePackage[] {
  return workspacePackages(root).filter((pkg) => !pkg.manifest.private);
}
