/**
 * The images of every reference plugin that has a `deploy/` folder,
 * imported into each node under the name its local overlay gives it
 * (`localhost/nri-plugin-<name>:dev`, with `imagePullPolicy: Never`).
 */
import { createHash } from "node:crypto";
import { existsSync, readdirSync } from "node:fs";
import { rm } from "node:fs/promises";
import { basename, join } from "node:path";
import { imageFor } from "@nri-ts/tools/deployment";
import { combineOciArchives } from "../oci.js";
import { cacheDir, repoDir } from "../paths.js";
import { pluginImages as buildImages } from "../plugin-image.js";
import type { PluginImage } from "./context.js";

/** The plugins of packages/plugins with a `deploy/` folder, by directory name. */
export function deployedPlugins(): string[] {
  const plugins = join(repoDir, "packages", "plugins");
  return readdirSync(plugins)
    .filter((name) => existsSync(join(plugins, name, "deploy", "kustomize", "overlays", "local")))
    .sort();
}

/**
 * The plugins' images, by plugin, and one archive holding them all (cached
 * by the archives it combines), which a node imports at once.
 */
export async function pluginImages(
  plugins: readonly string[],
  workDir: string,
): Promise<{ images: Record<string, PluginImage>; bundle: string }> {
  const images = await buildImages(plugins, workDir);
  const archives = Object.values(images)
    .map((image) => image.archive)
    .sort();
  const key = createHash("sha256")
    .update(archives.map((archive) => basename(archive)).join("\n"))
    .digest("hex");
  const dir = join(cacheDir, "images");
  const bundle = join(dir, `nri-plugins-${key.slice(0, 16)}.tar`);
  if (!existsSync(bundle)) {
    // one bundle: the older ones are stale
    for (const file of readdirSync(dir)) {
      if (file.startsWith("nri-plugins-")) await rm(join(dir, file), { force: true });
    }
    await combineOciArchives(archives, bundle);
  }
  return {
    images: Object.fromEntries(
      Object.entries(images).map(([plugin, image]) => [plugin, { ...image, tag: imageFor(plugin, "local", "") }]),
    ),
    bundle,
  };
}
