/**
 * OCI image archives without a registry or a builder: uncompressed layers
 * made reproducibly with `tar` from root directories (the same directory
 * gives the same layer, so images that share a bottom layer share it in
 * the runtime's store), their config, manifest and an index naming the
 * image, all in one tar that `ctr images import` takes.
 */
import { createHash } from "node:crypto";
import { createReadStream, existsSync } from "node:fs";
import { mkdir, mkdtemp, readFile, rename, rm, stat, writeFile } from "node:fs/promises";
import { dirname, join } from "node:path";
import { run } from "./exec.js";

export interface ImageSpec {
  /** The fully qualified name it is imported as, e.g. `localhost/busybox:e2e`. */
  name: string;
  /** The directory that becomes the image's root file system, or its layers' directories, the bottom one first. */
  rootfs: string | readonly string[];
  entrypoint?: readonly string[];
  cmd?: readonly string[];
  env?: readonly string[];
  workingDir?: string;
  user?: string;
}

const TAR_FLAGS = ["--sort=name", "--mtime=@0", "--numeric-owner", "--owner=0", "--group=0"];
const MANIFEST = "application/vnd.oci.image.manifest.v1+json";
const DEFAULT_PATH = "PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin";

async function sha256File(file: string): Promise<string> {
  const hash = createHash("sha256");
  for await (const chunk of createReadStream(file)) hash.update(chunk as Buffer);
  return hash.digest("hex");
}

/** Writes the image as an OCI layout archive to `outFile` (replaced atomically). */
export async function writeOciArchive(spec: ImageSpec, outFile: string): Promise<void> {
  await mkdir(dirname(outFile), { recursive: true });
  const layout = await mkdtemp(`${outFile}.tmp-`);
  try {
    const blobs = join(layout, "blobs", "sha256");
    await mkdir(blobs, { recursive: true });
    const layers: { digest: string; size: number }[] = [];
    for (const dir of typeof spec.rootfs === "string" ? [spec.rootfs] : spec.rootfs) {
      const layerTar = join(layout, "layer.tar");
      await run("tar", [...TAR_FLAGS, "-C", dir, "-cf", layerTar, "."]);
      const layer = { digest: `sha256:${await sha256File(layerTar)}`, size: (await stat(layerTar)).size };
      await rename(layerTar, join(blobs, layer.digest.slice(7)));
      layers.push(layer);
    }

    const blob = async (value: unknown) => {
      const bytes = Buffer.from(JSON.stringify(value));
      const hex = createHash("sha256").update(bytes).digest("hex");
      await writeFile(join(blobs, hex), bytes);
      return { digest: `sha256:${hex}`, size: bytes.length };
    };
    const config = await blob({
      architecture: "amd64",
      os: "linux",
      config: {
        Env: spec.env ?? [DEFAULT_PATH],
        Entrypoint: spec.entrypoint ?? null,
        Cmd: spec.cmd ?? null,
        WorkingDir: spec.workingDir ?? "/",
        ...(spec.user && { User: spec.user }),
      },
      rootfs: { type: "layers", diff_ids: layers.map((layer) => layer.digest) },
    });
    const manifest = await blob({
      schemaVersion: 2,
      mediaType: MANIFEST,
      config: { mediaType: "application/vnd.oci.image.config.v1+json", ...config },
      layers: layers.map((layer) => ({ mediaType: "application/vnd.oci.image.layer.v1.tar", ...layer })),
    });
    await writeFile(join(layout, "oci-layout"), JSON.stringify({ imageLayoutVersion: "1.0.0" }));
    await writeFile(
      join(layout, "index.json"),
      JSON.stringify({
        schemaVersion: 2,
        mediaType: "application/vnd.oci.image.index.v1+json",
        manifests: [
          {
            mediaType: MANIFEST,
            ...manifest,
            platform: { architecture: "amd64", os: "linux" },
            annotations: {
              "io.containerd.image.name": spec.name,
              "org.opencontainers.image.ref.name": spec.name.slice(spec.name.lastIndexOf(":") + 1),
            },
          },
        ],
      }),
    );
    await run("tar", [...TAR_FLAGS, "-C", layout, "-cf", `${outFile}.part`, "oci-layout", "index.json", "blobs"]);
    await rename(`${outFile}.part`, outFile);
  } finally {
    await rm(layout, { recursive: true, force: true });
  }
}

/**
 * One archive holding the images of several (each blob once: images that
 * share a layer store it once), for one `ctr images import` that unpacks a
 * shared layer once, where importing them one by one would read, and
 * concurrently unpack, it again for each.
 */
export async function combineOciArchives(archives: readonly string[], outFile: string): Promise<void> {
  await mkdir(dirname(outFile), { recursive: true });
  const layout = await mkdtemp(`${outFile}.tmp-`);
  try {
    const blobs = join(layout, "blobs", "sha256");
    await mkdir(blobs, { recursive: true });
    const manifests: unknown[] = [];
    for (const archive of archives) {
      const members = (await run("tar", ["-tf", archive])).split("\n").filter(Boolean);
      const wanted = members.filter(
        (member) =>
          member === "index.json" ||
          (member.startsWith("blobs/sha256/") && member.length > 13 && !existsSync(join(layout, member))),
      );
      const part = await mkdtemp(join(layout, "part-"));
      await run("tar", ["-C", part, "-xf", archive, ...wanted]);
      const index = JSON.parse(await readFile(join(part, "index.json"), "utf8")) as { manifests: unknown[] };
      manifests.push(...index.manifests);
      for (const member of wanted.filter((m) => m !== "index.json"))
        await rename(join(part, member), join(layout, member));
      await rm(part, { recursive: true, force: true });
    }
    await writeFile(join(layout, "oci-layout"), JSON.stringify({ imageLayoutVersion: "1.0.0" }));
    await writeFile(
      join(layout, "index.json"),
      JSON.stringify({ schemaVersion: 2, mediaType: "application/vnd.oci.image.index.v1+json", manifests }),
    );
    await run("tar", [...TAR_FLAGS, "-C", layout, "-cf", `${outFile}.part`, "oci-layout", "index.json", "blobs"]);
    await rename(`${outFile}.part`, outFile);
  } finally {
    await rm(layout, { recursive: true, force: true });
  }
}
