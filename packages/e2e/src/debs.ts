/**
 * Debian packages without installing them: `apt-get download` the
 * candidate version and unpack it with `dpkg-deb -x` into the cache, keyed
 * by name and version. The host stays as it was.
 */
import { existsSync, mkdirSync, readdirSync, readFileSync, renameSync, statSync, writeFileSync } from "node:fs";
import { mkdir, mkdtemp, readdir, rename, rm } from "node:fs/promises";
import { dirname, join } from "node:path";
import { run } from "./exec.js";
import { cacheDir } from "./paths.js";

export interface DebianPackage {
  name: string;
  version: string;
  /** The unpacked package: its files below this directory, as they would be below `/`. */
  root: string;
}

/** The Debian packages the suite uses: busybox for the test image, the libseccomp headers for runc. */
export const DEBIAN_PACKAGES = ["busybox-static", "libseccomp-dev"] as const;
export type DebianName = (typeof DEBIAN_PACKAGES)[number];

const LISTS = "/var/lib/apt/lists";

/** What the package lists are now: their newest modification time (`apt-get update` moves it). */
function listsStamp(): string {
  try {
    const lists = readdirSync(LISTS).filter((file) => /_(Packages|InRelease|Release)/.test(file));
    return String(Math.max(0, ...lists.map((file) => statSync(join(LISTS, file)).mtimeMs)));
  } catch {
    return "none";
  }
}

async function aptCacheShow(): Promise<string> {
  const show = () => run("apt-cache", ["show", "--no-all-versions", ...DEBIAN_PACKAGES]);
  try {
    return await show();
  } catch {
    // A fresh machine may have no package lists yet.
    await run("apt-get", ["update", "-qq"]);
    return show();
  }
}

let versions: Promise<Record<string, string>> | undefined;

/**
 * The candidate version of each package. `apt-cache` takes seconds here
 * (no pkgcache.bin: it parses every list each time), so the answer is kept
 * in the cache for as long as the package lists stay the same.
 */
function candidateVersions(): Promise<Record<string, string>> {
  versions ??= (async () => {
    const file = join(cacheDir, "debs", "versions.json");
    const stamp = listsStamp();
    try {
      const saved = JSON.parse(readFileSync(file, "utf8")) as { stamp: string; versions: Record<string, string> };
      if (saved.stamp === stamp && DEBIAN_PACKAGES.every((name) => saved.versions[name])) return saved.versions;
    } catch {
      // not saved yet
    }
    const found: Record<string, string> = {};
    for (const record of (await aptCacheShow()).split(/\n\n+/)) {
      const name = /^Package: (.+)$/m.exec(record)?.[1];
      const version = /^Version: (.+)$/m.exec(record)?.[1];
      if (name && version) found[name] = version;
    }
    const missing = DEBIAN_PACKAGES.filter((name) => !found[name]);
    if (missing.length > 0) throw new Error(`apt-cache show gave no version of ${missing.join(", ")}`);
    mkdirSync(dirname(file), { recursive: true });
    writeFileSync(`${file}.${process.pid}`, JSON.stringify({ stamp: listsStamp(), versions: found }));
    renameSync(`${file}.${process.pid}`, file);
    return found;
  })();
  return versions;
}

/** The package, unpacked in the cache (downloaded on the first use of its version). */
export async function debianPackage(name: DebianName): Promise<DebianPackage> {
  const version = (await candidateVersions())[name];
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
