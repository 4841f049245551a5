/**
 * A plugin's container image, as its `deploy/Dockerfile` describes it, made
 * without Docker: the build context that `npm run image-context` makes (the
 * plugin's and its @nri-ts dependencies' packed tarballs) installed with
 * npm into the Dockerfile's WORKDIR, as its RUN does, on a root holding the
 * host's Node binary where the Dockerfile's base image has its own
 * (`/usr/local/bin/node`), the shared libraries it links (from `ldd`), and
 * busybox in place of the base image's Debian userland; ENTRYPOINT, ENV,
 * WORKDIR and USER from the Dockerfile.
 *
 * The archive is cached by the tarballs' content, the Dockerfile and the
 * Node binary, so a run that changed nothing reuses it.
 */
import { createHash } from "node:crypto";
import { existsSync, readFileSync, statSync } from "node:fs";
import { copyFile, mkdir, mkdtemp, readdir, readFile, rm } from "node:fs/promises";
import { dirname, join } from "node:path";
import { parseDockerfile } from "@nri-ts/tools/dockerfile";
import { IMAGE_NODE } from "@nri-ts/tools/deployment";
import { dependencyClosure, pack } from "@nri-ts/tools/pack";
import { run } from "./exec.js";
import { busyboxRoot, type ImageArchive } from "./images.js";
import { writeOciArchive } from "./oci.js";
import { cacheDir, repoDir } from "./paths.js";

/** The shared libraries a binary loads, as `ldd` lists them (absolute paths). */
async function sharedLibraries(binary: string): Promise<string[]> {
  return (await run("ldd", [binary]))
    .split("\n")
    .map((line) => /(?:=>\s*)?(\/\S+)\s+\(0x/.exec(line)?.[1])
    .filter((path): path is string => path !== undefined);
}

/** The image of the plugin in `packages/plugins/<plugin>` (e.g. `logger`), as `localhost/nri-plugin-<plugin>:e2e`. */
export async function pluginImage(plugin: string, workDir: string): Promise<ImageArchive> {
  const dockerfile = readFileSync(join(repoDir, "packages", "plugins", plugin, "deploy", "Dockerfile"), "utf8");
  const image = parseDockerfile(dockerfile);
  if (!image.workdir) throw new Error(`packages/plugins/${plugin}/deploy/Dockerfile has no WORKDIR`);
  const tarballDir = join(workDir, "context");
  await rm(tarballDir, { recursive: true, force: true });
  await mkdir(tarballDir, { recursive: true });
  const packed = await pack(dependencyClosure(`@nri-ts/plugin-${plugin}`), tarballDir);
  const tarballs = Object.keys(packed)
    .sort()
    .map((name) => packed[name]);

  const node = process.execPath;
  const key = createHash("sha256");
  key.update(`recipe 2\n${dockerfile}\n${node} ${statSync(node).size} ${statSync(node).mtimeMs}\n`);
  for (const tarball of tarballs) key.update(await readFile(tarball));
  const name = `localhost/nri-plugin-${plugin}:e2e`;
  const images = join(cacheDir, "images");
  const archive = join(images, `nri-plugin-${plugin}-${key.digest("hex").slice(0, 16)}.tar`);
  if (existsSync(archive)) return { name, archive };
  // one archive per plugin: the older ones are stale
  await mkdir(images, { recursive: true });
  for (const file of await readdir(images)) {
    if (file.startsWith(`nri-plugin-${plugin}-`)) await rm(join(images, file), { force: true });
  }

  const rootfs = await mkdtemp(join(workDir, "rootfs-"));
  try {
    await busyboxRoot(rootfs);
    await mkdir(join(rootfs, dirname(IMAGE_NODE)), { recursive: true });
    await copyFile(node, join(rootfs, IMAGE_NODE));
    for (const library of await sharedLibraries(node)) {
      await mkdir(join(rootfs, dirname(library)), { recursive: true });
      await copyFile(library, join(rootfs, library)); // follows the library's symlinks
    }
    const app = join(rootfs, image.workdir);
    await mkdir(app, { recursive: true });
    // the Dockerfile's RUN
    await run(
      "npm",
      [
        ...["install", "--omit=dev", "--omit=peer", "--ignore-scripts", "--no-audit", "--no-fund", "--no-package-lock"],
        ...["--prefer-offline", "--prefix", app, ...tarballs],
      ],
      { cwd: app },
    );
    await writeOciArchive(
      {
        name,
        rootfs,
        entrypoint: image.entrypoint,
        env: [
          `PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin`,
          ...Object.entries(image.env).map(([k, v]) => `${k}=${v}`),
        ],
        workingDir: image.workdir,
        ...(image.user && { user: image.user }),
      },
      archive,
    );
  } finally {
    await rm(rootfs, { recursive: true, force: true });
  }
  return { name, archive };
}
