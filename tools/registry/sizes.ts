/**
 * What each package costs a user, measured from the registry: its tarball
 * (packed), and what `npm install <name>` puts in an empty project's
 * node_modules (installed, the package with everything it pulls in), with
 * the number of packages it pulls in.
 */
import { lstatSync, readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";

export interface Size {
  name: string;
  version: string;
  /** The tarball's bytes. */
  packed: number;
  /** The bytes of every file under node_modules after installing the package alone. */
  installed: number;
  /** The packages installed with it (its transitive dependencies), ours and others. */
  dependencies: number;
  /** Of those, ours. */
  ours: number;
}

/** The bytes of the files under `dir` (apparent sizes; links count as themselves). */
export function bytesUnder(dir: string): number {
  let total = 0;
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) total += bytesUnder(path);
    else total += lstatSync(path).size;
  }
  return total;
}

/** The packages a project's lock file installed besides `name`. */
export function installedWith(project: string, name: string): string[] {
  const lock = JSON.parse(readFileSync(join(project, "package-lock.json"), "utf8")) as {
    packages: Record<string, unknown>;
  };
  return Object.keys(lock.packages)
    .filter((path) => path !== "" && path !== `node_modules/${name}`)
    .map((path) => path.replace(/^.*node_modules\//, ""));
}

const kB = (bytes: number) => `${(bytes / 1024).toFixed(0)} kB`;
const MB = (bytes: number) => `${(bytes / 1024 / 1024).toFixed(1)} MB`;

/** The table, one package a row, as Markdown. */
export function sizeTable(sizes: Size[], node: string): string {
  const rows = sizes.map(
    (size) =>
      `| \`${size.name}\` | ${size.version} | ${kB(size.packed)} | ${MB(size.installed)} | ${size.dependencies} (${size.ours} ours) |`,
  );
  return [
    `| package | version | packed | installed | dependencies |`,
    `|---|---|---:|---:|---:|`,
    ...rows,
    "",
    `Installed: everything \`npm install <package>\` puts in an empty project's node_modules (Node.js ${node}); dependencies: the packages it installs besides the package, transitively.`,
    "",
  ].join("\n");
}
