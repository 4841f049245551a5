/**
 * Where the suite keeps things. Two places, on purpose:
 *
 * - the cache (`NRI_E2E_CACHE`, default `$XDG_CACHE_HOME/nri-ts-e2e`, i.e.
 *   `~/.cache/nri-ts-e2e`): built tools and extracted Debian packages, keyed
 *   by version, kept between runs and between clones;
 * - the scratch root (`/tmp/nri-e2e`): one short directory per running
 *   containerd, removed by its teardown, or by the sweep of the next run if
 *   the process that owned it died. Short because unix socket paths are
 *   limited to 107 bytes and containerd puts 64-character names below it.
 */
import { homedir } from "node:os";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";

export const packageDir = join(dirname(fileURLToPath(import.meta.url)), "..");
export const repoDir = join(packageDir, "..", "..");

export const cacheDir =
  process.env.NRI_E2E_CACHE || join(process.env.XDG_CACHE_HOME || join(homedir(), ".cache"), "nri-ts-e2e");

export const scratchRoot = "/tmp/nri-e2e";
