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
 * Two layers, as the Dockerfile's base image and its RUN make two: the
 * base (busybox, Node and its libraries) is the same bytes in every
 * plugin's image, so a runtime that imports several stores it once.
 *
 * An archive is cached by the tarballs' content, the Dockerfile and the
 * Node binary, so a run that changed nothing reuses it.
 */
import { createHash } from "node:crypto";
import { existsSync, readFileSync, statSync } from "node:fs";
import { chmod, copyFile, mkdir, mkdtemp, readdir, readFile, rm } from "node:fs/promises";
import { dirname, join } from "node:path";
import { parseDockerfile } from "@nri-ts/tools/dockerfile";
import { IMAGE_NODE } from "@nri-ts/tools/deployment";
import { dependencyClosure, pack } from "@nri-ts/tools/pack";
import { run } from "./exec.js";
import { busyboxRoot, type ImageArchive } from "./images.js";
import { writeOciArchive } from "./oci.js";
import { cacheDir, repoDir } from "./paths.js";
import { limiter } from "./tools.js";

/** The shared libraries a binary loads, as `ldd` lists them (absolute paths). */
async function sharedLibraries(binary: string): Promise<string[]> {
  return (await run("ldd", [binary]))
    .split("\n")
    .map((line) => /(?:=>\s*)?(\/\S+)\s+\(0x/.exec(line)?.[1])
    .filter((path): path is string => path !== undefined);
}

/** The base layer's root: busybox, the host's Node where the base image has its own, and the libraries it loads. */
async function baseRoot(workDir: string): Promise<string> {
  const rootfs = await mkdtemp(join(workDir, "base-"));
  await chmod(rootfs, 0o755);
  await busyboxRoot(rootfs);
  await mkdir(join(rootfs, dirname(IMAGE_NODE)), { recursive: true });
  await copyFile(process.execPath, join(rootfs, IMAGE_NODE));
  for (const library of await sharedLibraries(process.execPath)) {
    await mkdir(join(rootfs, dirname(library)), { recursive: true });
    await copyFile(library, join(rootfs, library)); // follows the library's symlinks
  }
  return rootfs;
}

const npmLimit = limiter(2);

/**
 * The images of the plugins in `packages/plugins/<plugin>` (e.g. `logger`),
 * each as `localhost/nri-plugin-<plugin>:e2e`, by plugin.
 */
export async function pluginImages(plugins: readonly string[], workDir: string): Promise<Record<string, ImageArchive>> {
  const tarballDir = join(workDir, "context");
  await rm(tarballDir, { recursive: true, force: true });
  await mkdir(tarballDir, { recursive: true });
  const closures = Object.fromEntries(plugins.map((plugin) => [plugin, dependencyClosure(`@nri-ts/plugin-${plugin}`)]));
  // one `npm pack` for every package any of them needs
  const packed = await pack([...new Set(Object.values(closures).flat())], tarballDir);

  const node = process.execPath;
  const images = join(cacheDir, "images");
  await mkdir(images, { recursive: true });
  let base: Promise<string> | undefined;
  try {
    const built = await Promise.all(
      plugins.map(async (plugin): Promise<[string, ImageArchive]> => {
        const dockerfile = readFileSync(join(repoDir, "packages", "plugins", plugin, "deploy", "Dockerfile"), "utf8");
        const image = parseDockerfile(dockerfile);
        if (!image.workdir) throw new Error(`packages/plugins/${plugin}/deploy/Dockerfile has no WORKDIR`);
        const tarballs = (closures[plugin] as string[]).sort().map((name) => packed[name] as string);
        const key = createHash("sha256");
        key.update(`recipe 3\n${dockerfile}\n${node} ${statSync(node).size} ${statSync(node).mtimeMs}\n`);
        for (const tarball of tarballs) key.update(await readFile(tarball));
        const name = `localhost/nri-plugin-${plugin}:e2e`;
        const archive = join(images, `nri-plugin-${plugin}-${key.digest("hex").slice(0, 16)}.tar`);
        if (existsSync(archive)) return [plugin, { name, archive }];
        // one archive per plugin: the older ones are stale
        for (const file of await readdir(images)) {
          if (file.startsWith(`nri-plugin-${plugin}-`)) await rm(join(images, file), { force: true });
        }

        base ??= baseRoot(workDir);
        const appRoot = await mkdtemp(join(workDir, `app-${plugin}-`));
        try {
          await chmod(appRoot, 0o755);
          const app = join(appRoot, image.workdir);
          await mkdir(app, { recursive: true });
          // the Dockerfile's RUN
          await npmLimit(() =>
            run(
              "npm",
              [
                ...["install", "--omit=dev", "--omit=peer", "--ignore-scripts", "--no-audit", "--no-fund"],
                ...["--no-package-lock", "--prefer-offline", "--prefix", app, ...tarballs],
              ],
              { cwd: app },
            ),
          );
          await writeOciArchive(
            {
              name,
              rootfs: [await base, appRoot],
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
          await rm(appRoot, { recursive: true, force: true });
        }
        return [plugin, { name, archive }];
      }),
    );
    return Object.fromEntries(built);
  } finally {
    const dir = await base?.catch(() => undefined);
    if (dir) await rm(dir, { recursive: true, force: true });
  }
}

/** The image of one plugin (see {@link pluginImages}). */
export async function pluginImage(plugin: string, workDir: string): Promise<ImageArchive> {
  return (await pluginImages([plugin], workDir))[plugin] as ImageArchive;
}
