/**
 * Single executable plugins (Node's single executable applications): a
 * built program bundled into one ES module by esbuild, then made into one
 * file with `node --build-sea` of the pinned Node.js 26 (a copy of its node
 * binary carrying the bundle and V8's code cache for it). It needs no
 * `node` and no `node_modules` where it runs: the shared libraries `ldd`
 * lists for it (libc, libstdc++, libm, libgcc_s) are all.
 *
 *   npm run sea                         # every plugin's programs, into sea/ at the root (after npm run build)
 *   npm run sea -- logger exit-reporter # those plugins' only
 *
 * `buildSea` makes one, for the benches and packages/e2e.
 */
import { execFileSync } from "node:child_process";
import { createHash } from "node:crypto";
import {
  chmodSync,
  copyFileSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readFileSync,
  rmSync,
  statSync,
  writeFileSync,
} from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { build } from "esbuild";
import { nodeLineBin } from "./node-line.js";
import { ROOT, workspacePackages } from "./workspace.js";

/** Gives the CommonJS dependencies inside an ES module bundle their `require` (of Node's built-in modules). */
const BUNDLE_BANNER = "import { createRequire } from 'node:module'; const require = createRequire(import.meta.url);";

/** How an executable is made (part of the key an executable is kept by): change it with the steps below. */
const RECIPE = "esbuild bundle, minified; node --build-sea with the code cache; node stripped";

/** Where `npm run sea` puts the executables: `sea/<bin name>` at the root. */
export const SEA_DIR = join(ROOT, "sea");

/**
 * A copy of the node binary without its symbol tables (binutils' `strip`),
 * for the executable: 117 MB instead of 150 for Node 26, and it runs alike;
 * the binary itself where there is no `strip`.
 */
function strippedCopy(node: string, work: string): string {
  const copy = join(work, "node");
  copyFileSync(node, copy);
  try {
    execFileSync("strip", [copy], { stdio: "ignore" });
    return copy;
  } catch {
    console.warn("sea: no strip (binutils) here: the executable keeps node's symbol tables, 33 MB more");
    return node;
  }
}

export interface SeaOptions {
  /** The built program, an ES module (e.g. a plugin's `dist/main.js`). */
  entry: string;
  /** The executable to write. */
  output: string;
  /** The `node` binary to build with and into; default the pinned Node.js 26 (`--build-sea` came in 25.5). */
  node?: string;
}

/** Bundles `entry` and builds it into the single executable `output`; resolves to `output`. */
export async function buildSea({ entry, output, node = join(nodeLineBin(), "node") }: SeaOptions): Promise<string> {
  const work = mkdtempSync(join(tmpdir(), "nri-sea-"));
  try {
    const bundle = join(work, "main.mjs");
    await build({
      entryPoints: [entry],
      bundle: true,
      platform: "node",
      format: "esm",
      banner: { js: BUNDLE_BANNER },
      // less source for V8 to keep in the heap (1.3 MiB less RSS for the ulimit-adjuster); the names stay for stack traces
      minify: true,
      keepNames: true,
      outfile: bundle,
      logLevel: "warning",
    });
    const config = join(work, "sea-config.json");
    const built = join(work, "sea");
    const settings = JSON.stringify({
      main: bundle,
      mainFormat: "module",
      executable: node,
      output: built,
      // V8's code cache for the bundle, made at build time: the start skips compiling it
      useCodeCache: true,
      disableExperimentalSEAWarning: true,
    });
    // the same bundle on the same node binary makes the same executable: kept, with this key beside it
    const { size, mtimeMs } = statSync(node);
    const key = createHash("sha256")
      .update(`${RECIPE}\n${settings.replace(work, "")}\n${node} ${size} ${mtimeMs}\n`)
      .update(readFileSync(bundle))
      .digest("hex");
    const keyFile = `${output}.key`;
    if (existsSync(output) && existsSync(keyFile) && readFileSync(keyFile, "utf8") === key) return output;
    writeFileSync(config, settings.replace(JSON.stringify(node), JSON.stringify(strippedCopy(node, work))));
    execFileSync(node, ["--build-sea", config], { stdio: ["ignore", "ignore", "inherit"] });
    // Copied into place rather than moved: a file written in one piece, as --build-sea writes it, sits in the
    // page cache in huge pages, and every process that runs it maps them whole (75 MiB of RSS for an idle
    // hello world, against 39 once copied, as an image layer or an install writes it).
    mkdirSync(resolve(output, ".."), { recursive: true });
    rmSync(output, { force: true });
    rmSync(keyFile, { force: true });
    copyFileSync(built, output);
    chmodSync(output, 0o755);
    writeFileSync(keyFile, key);
    return output;
  } finally {
    rmSync(work, { recursive: true, force: true });
  }
}

/**
 * The module a bin runs: a plugin's `dist/main.js` only turns Node's compile
 * cache on (of no use in a single executable) and imports `dist/program.js`;
 * bundled through that import, the program's modules would become functions
 * that V8 compiles at the first call, and the code cache made at build time
 * (the bundle's top level) would not hold them.
 */
function programOf(bin: string): string {
  const program = join(bin, "..", "program.js");
  return bin.endsWith("/main.js") && existsSync(program) ? program : bin;
}

/**
 * The programs (`bin` entries) of the plugins `names` (`packages/plugins/<name>`; all of them when
 * empty), built (after `npm run build`) into `<dir>/<bin name>`; resolves to bin name → executable.
 */
export async function buildPluginSeas(names: readonly string[], dir = SEA_DIR): Promise<Record<string, string>> {
  const plugins = workspacePackages().filter((pkg) => pkg.path.startsWith("packages/plugins/"));
  const unknown = names.filter((name) => !plugins.some((pkg) => pkg.path === `packages/plugins/${name}`));
  if (unknown.length > 0) throw new Error(`no plugin ${unknown.join(", ")} in packages/plugins/`);
  const node = join(nodeLineBin(), "node");
  const built: Record<string, string> = {};
  for (const pkg of plugins.filter((pkg) => names.length === 0 || names.includes(pkg.path.split("/")[2]!))) {
    const bins = typeof pkg.manifest.bin === "string" ? { [pkg.manifest.name]: pkg.manifest.bin } : pkg.manifest.bin;
    for (const [command, bin] of Object.entries(bins ?? {})) {
      const entry = join(pkg.dir, bin);
      if (!existsSync(entry)) throw new Error(`${pkg.path}/${bin} is not built: npm run build first`);
      const started = Date.now();
      built[command] = await buildSea({ entry: programOf(entry), output: join(dir, command), node });
      console.log(`${built[command]}: ${((Date.now() - started) / 1000).toFixed(1)} s`);
    }
  }
  return built;
}

if (import.meta.filename === process.argv[1]) await buildPluginSeas(process.argv.slice(2));
