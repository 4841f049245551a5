/**
 * A plugin's container image as its users build one, without Docker: the
 * plugin and the @nri-ts packages it needs packed with `npm pack`,
 * installed with `npm install` into `/app` (their third-party dependencies
 * from the registry, or npm's cache), on a root with the host's Node
 * binary, the shared libraries it links (from `ldd`) and busybox.
 * Entrypoint: `node /app/node_modules/<plugin>/<bin>`.
 *
 * The archive is cached by the tarballs' content and the Node binary, so a
 * run that changed nothing reuses it.
 */
import { createHash } from "node:crypto";
import { existsSync, readFileSync, statSync } from "node:fs";
import { copyFile, mkdir, mkdtemp, readdir, readFile, rm } from "node:fs/promises";
import { dirname, join } from "node:path";
import { run } from "./exec.js";
import { busyboxRoot, type ImageArchive } from "./images.js";
import { writeOciArchive } from "./oci.js";
import { cacheDir, repoDir } from "./paths.js";

interface WorkspaceEntry {
  name: string;
  location: string;
  dependencies?: Record<string, string>;
}

/** The package and every workspace package it depends on, as npm sees the workspace. */
async function workspaceClosure(name: string): Promise<WorkspaceEntry[]> {
  const entries = JSON.parse(await run("npm", ["query", ".workspace"], { cwd: repoDir })) as WorkspaceEntry[];
  const byName = new Map(entries.map((entry) => [entry.name, entry]));
  const closure = new Map<string, WorkspaceEntry>();
  const visit = (packageName: string) => {
    const entry = byName.get(packageName);
    if (!entry || closure.has(packageName)) return;
    closure.set(packageName, entry);
    for (const dependency of Object.keys(entry.dependencies ?? {})) visit(dependency);
  };
  visit(name);
  if (!closure.has(name)) throw new Error(`${name} is not a workspace package`);
  return [...closure.values()];
}

/** The shared libraries a binary loads, as `ldd` lists them (absolute paths). */
async function sharedLibraries(binary: string): Promise<string[]> {
  return (await run("ldd", [binary]))
    .split("\n")
    .map((line) => /(?:=>\s*)?(\/\S+)\s+\(0x/.exec(line)?.[1])
    .filter((path): path is string => path !== undefined);
}

/** Packs, installs and writes the image of workspace package `name` (e.g. `@nri-ts/plugin-logger`). */
export async function pluginImage(name: string, workDir: string): Promise<ImageArchive> {
  const packages = await workspaceClosure(name);
  const plugin = packages[0];
  const manifest = JSON.parse(readFileSync(join(repoDir, plugin.location, "package.json"), "utf8")) as {
    bin?: string | Record<string, string>;
  };
  const bin = typeof manifest.bin === "string" ? manifest.bin : Object.values(manifest.bin ?? {})[0];
  if (!bin) throw new Error(`${name} has no bin`);

  const tarballDir = join(workDir, "tarballs");
  await rm(tarballDir, { recursive: true, force: true });
  await mkdir(tarballDir, { recursive: true });
  const packed = JSON.parse(
    await run("npm", ["pack", "--json", "--pack-destination", tarballDir, ...packages.flatMap((p) => ["-w", p.name])], {
      cwd: repoDir,
    }),
  ) as { filename: string }[];
  const tarballs = packed.map((entry) => join(tarballDir, entry.filename));

  const node = process.execPath;
  const key = createHash("sha256");
  key.update(`recipe 1\n${node} ${statSync(node).size} ${statSync(node).mtimeMs}\n`);
  for (const tarball of tarballs) key.update(await readFile(tarball));
  const short = name.replace(/^@nri-ts\/(plugin-)?/, "");
  const imageName = `localhost/nri-plugin-${short}:e2e`;
  const images = join(cacheDir, "images");
  const archive = join(images, `nri-plugin-${short}-${key.digest("hex").slice(0, 16)}.tar`);
  if (existsSync(archive)) return { name: imageName, archive };
  // one archive per plugin: the older ones are stale
  await mkdir(images, { recursive: true });
  for (const file of await readdir(images)) {
    if (file.startsWith(`nri-plugin-${short}-`)) await rm(join(images, file), { force: true });
  }

  const rootfs = await mkdtemp(join(workDir, "plugin-rootfs-"));
  try {
    await busyboxRoot(rootfs);
    await mkdir(join(rootfs, "usr", "local", "bin"), { recursive: true });
    await copyFile(node, join(rootfs, "usr", "local", "bin", "node"));
    for (const library of await sharedLibraries(node)) {
      await mkdir(join(rootfs, dirname(library)), { recursive: true });
      await copyFile(library, join(rootfs, library)); // follows the library's symlinks
    }
    const app = join(rootfs, "app");
    await mkdir(app);
    await run(
      "npm",
      ["install", "--prefix", app, "--omit=dev", "--ignore-scripts", "--prefer-offline", "--no-audit", "--no-fund", ...tarballs],
      { cwd: app },
    );
    await writeOciArchive(
      {
        name: imageName,
        rootfs,
        entrypoint: ["/usr/local/bin/node", join("/app/node_modules", name, bin)],
        workingDir: "/app",
      },
      archive,
    );
  } finally {
    await rm(rootfs, { recursive: true, force: true });
  }
  return { name: imageName, archive };
}
