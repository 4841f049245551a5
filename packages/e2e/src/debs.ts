/**
 * Debian packages without installing them: `apt-get download` the
 * candidate version and unpack it with `dpkg-deb -x` into the cache, keyed
 * by name and version. The host stays as it was.
 */
import { existsSync } from "node:fs";
import { mkdir, mkdtemp, readdir, rename, rm } from "node:fs/promises";
import { join } from "node:path";
import { run } from "./exec.js";
import { cacheDir } from "./paths.js";

export interface DebianPackage {
  name: string;
  version: string;
  /** The unpacked package: its files below this directory, as they would be below `/`. */
  root: string;
}

let listsUpdated: Promise<unknown> | undefined;

async function candidateVersion(name: string): Promise<string> {
  const show = () => run("apt-cache", ["show", "--no-all-versions", name]);
  let text: string;
  try {
    text = await show();
  } catch {
    // A fresh machine may have no package lists yet.
    listsUpdated ??= run("apt-get", ["update", "-qq"]);
    await listsUpdated;
    text = await show();
  }
  const version = /^Version: (.+)$/m.exec(text)?.[1];
  if (!version) throw new Error(`apt-cache show ${name} gave no version`);
  return version;
}

/** The package, unpacked in the cache (downloaded on the first use of its version). */
export async function debianPackage(name: string): Promise<DebianPackage> {
  const version = await candidateVersion(name);
  const root = join(cacheDir, "debs", `${name}_${version.replace(/[^\w.+-]/g, "_")}`);
  if (existsSync(root)) return { name, version, root };

  await mkdir(join(cacheDir, "debs"), { recursive: true });
  const work = await mkdtemp(`${root}.tmp-`);
  try {
    await run("apt-get", ["download", "-qq", `${name}=${version}`], { cwd: work });
    const deb = (await readdir(work)).find((file) => file.endsWith(".deb"));
    if (!deb) throw new Error(`apt-get download ${name}=${version} left no .deb`);
    await run("dpkg-deb", ["-x", join(work, deb), join(work, "root")]);
    // Another run may have unpacked the same version meanwhile: keep theirs.
    await rename(join(work, "root"), root).catch((error: NodeJS.ErrnoException) => {
      if (!existsSync(root)) throw error;
    });
  } finally {
    await rm(work, { recursive: true, force: true });
  }
  return { name, version, root };
}
