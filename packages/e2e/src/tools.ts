/**
 * containerd, ctr, the runc shim, runc and crictl, built from the Go module
 * proxy into the cache, one directory per tool, version and recipe: the
 * module is downloaded (`go mod download`) and its commands installed from
 * inside it, as its main module. (`go install pkg@version` would be
 * shorter, but it refuses modules whose go.mod has `exclude` directives, as
 * containerd 2.1's has.) A stamp records what a directory is built from (Go
 * version, module, packages, tags, flags, the libseccomp headers for runc)
 * and names it; a run with the same stamp reuses the binaries, any change
 * builds anew. Go's own module and build caches (`go env GOMODCACHE
 * GOCACHE`) are used as they are, so they are shared with the conformance
 * suite and survive too.
 */
import { createHash } from "node:crypto";
import { existsSync } from "node:fs";
import {
  mkdir,
  mkdtemp,
  readdir,
  readFile,
  readlink,
  rename,
  rm,
  stat,
  symlink,
  utimes,
  writeFile,
} from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { type DebianPackage, debianPackage } from "./debs.js";
import { run } from "./exec.js";
import { cacheDir } from "./paths.js";
import { timed } from "./timings.js";
import { type ContainerdLine, CRICTL_VERSION, RUNC_VERSION } from "./versions.js";

export interface GoTool {
  /** The cache directory's name, e.g. `containerd-v2.4.2`. */
  key: string;
  module: string;
  version: string;
  /** The commands to install, relative to the module's root, e.g. `./cmd/ctr`. */
  packages: readonly string[];
  /** The binaries it leaves in its bin directory. */
  binaries: readonly string[];
  tags?: readonly string[];
  /** `-X` settings for the linker, as the project's release build makes them. */
  stamps?: readonly string[];
  /** Needs cgo and the libseccomp headers (runc). */
  seccomp?: boolean;
  /**
   * A module of this repository to build in, instead of `module@version`
   * from the proxy: its go.mod and go.sum (which pin what is built) are part
   * of the recipe.
   */
  localModule?: string;
  /** Binaries renamed after the build, e.g. `{server: "etcd"}` (go install names a `/v3` package after its parent). */
  renames?: Readonly<Record<string, string>>;
}

const LDFLAGS = "-s -w";

export function containerdTool(line: ContainerdLine): GoTool {
  const binaries = ["containerd", "ctr", "containerd-shim-runc-v2"];
  return {
    key: `containerd-${line.version}`,
    module: "github.com/containerd/containerd/v2",
    version: line.version,
    packages: binaries.map((name) => `./cmd/${name}`),
    binaries,
    // a release reports its version as `v2.4.2` (its Makefile stamps it); unstamped it says
    // `2.4.2+unknown`, from which plugins cannot infer the NRI version of a runtime before v0.12
    stamps: [`github.com/containerd/containerd/v2/version.Version=${line.version}`],
  };
}

export const runcTool: GoTool = {
  key: `runc-${RUNC_VERSION}`,
  module: "github.com/opencontainers/runc",
  version: RUNC_VERSION,
  packages: ["."],
  binaries: ["runc"],
  tags: ["seccomp"],
  seccomp: true,
};

export const crictlTool: GoTool = {
  key: `crictl-${CRICTL_VERSION}`,
  module: "sigs.k8s.io/cri-tools",
  version: CRICTL_VERSION,
  packages: ["./cmd/crictl"],
  binaries: ["crictl"],
};

let goVersion: Promise<string> | undefined;

/** `go env GOVERSION`, e.g. go1.26.8. */
export function goToolchain(): Promise<string> {
  goVersion ??= run("go", ["env", "GOVERSION"]).then((out) => out.trim());
  return goVersion;
}

/** The environment of every Go build: the local toolchain only, no workspace, no surprises. */
export function goEnv(extra: NodeJS.ProcessEnv = {}): NodeJS.ProcessEnv {
  return { ...process.env, GOTOOLCHAIN: "local", GOWORK: "off", GOFLAGS: "", ...extra };
}

/** Downloads the tool's module (a no-op when the module cache has it) and resolves to its directory there. */
async function moduleDir(tool: GoTool): Promise<string> {
  if (tool.localModule) return tool.localModule;
  const out = await run("go", ["mod", "download", "-json", `${tool.module}@${tool.version}`], {
    cwd: tmpdir(),
    env: goEnv({ GOFLAGS: "-mod=mod" }),
  });
  return (JSON.parse(out) as { Dir: string }).Dir;
}

function installArgs(tool: GoTool): string[] {
  const ldflags = [LDFLAGS, ...(tool.stamps ?? []).map((stamp) => `-X ${stamp}`)].join(" ");
  return [
    "install",
    `-ldflags=${ldflags}`,
    ...(tool.tags?.length ? ["-tags", tool.tags.join(",")] : []),
    ...tool.packages,
  ];
}

/**
 * The libseccomp headers and pkg-config file for runc's cgo, from Debian's
 * libseccomp-dev unpacked in the cache (its `prefix=` pointed there, its
 * `libseccomp.so` at the host's libseccomp2, which runc links at run time).
 */
async function seccompBuildEnv(dev: DebianPackage): Promise<NodeJS.ProcessEnv> {
  const multiarch = (await run("gcc", ["-print-multiarch"])).trim();
  const libDir = join(dev.root, "usr", "lib", multiarch);
  const pcFile = join(libDir, "pkgconfig", "libseccomp.pc");
  const pc = await readFile(pcFile, "utf8");
  const fixed = pc.replace(/^prefix=.*$/m, `prefix=${join(dev.root, "usr")}`);
  if (fixed !== pc) await writeFile(pcFile, fixed);
  const hostLib = join("/usr/lib", multiarch, "libseccomp.so.2");
  if (!existsSync(hostLib)) throw new Error(`${hostLib} is missing: runc needs the libseccomp2 package`);
  const link = join(libDir, "libseccomp.so");
  if ((await readlink(link).catch(() => "")) !== hostLib) {
    await rm(link, { force: true });
    await symlink(hostLib, link);
  }
  return { CGO_ENABLED: "1", PKG_CONFIG_PATH: join(libDir, "pkgconfig") };
}

async function stampOf(tool: GoTool, extra: string): Promise<string> {
  const { module, version, packages, tags = [], stamps = [], renames = {} } = tool;
  const local = tool.localModule
    ? createHash("sha256")
        .update(await readFile(join(tool.localModule, "go.mod")))
        .update(await readFile(join(tool.localModule, "go.sum")))
        .digest("hex")
    : undefined;
  return JSON.stringify({
    go: await goToolchain(),
    module,
    version,
    packages,
    tags,
    ldflags: LDFLAGS,
    stamps,
    extra,
    ...(local && { local }),
    ...(Object.keys(renames).length > 0 && { renames }),
  });
}

const DAY_MS = 24 * 3600 * 1000;

/**
 * Removes the tool's other builds that no run has used for two weeks, and
 * build directories a killed build left more than a day ago.
 */
async function pruneOtherBuilds(tool: GoTool, keep: string): Promise<void> {
  const tools = join(cacheDir, "tools");
  for (const entry of await readdir(tools)) {
    if (entry === keep || !(entry === tool.key || entry.startsWith(`${tool.key}-`))) continue;
    const building = entry.includes(".tmp-");
    const since = await stat(join(tools, entry, building ? "" : "stamp.json")).then(
      (info) => Date.now() - info.mtimeMs,
      () => Infinity,
    );
    if (since > (building ? 1 : 14) * DAY_MS) await rm(join(tools, entry), { recursive: true, force: true });
  }
}

/**
 * Makes sure the tool is built: each recipe (its stamp) has a directory of
 * its own, `<key>-<hash of the stamp>`, so checkouts with different recipes
 * share the cache without replacing binaries another run is executing. A
 * build goes into a fresh directory that is renamed into place when
 * complete, so an interrupted build never looks finished. Resolves to the
 * bin directory and whether it was built now.
 */
export async function ensureTool(tool: GoTool): Promise<{ bin: string; built: boolean }> {
  const seccomp = tool.seccomp ? await debianPackage("libseccomp-dev") : undefined;
  const stamp = await stampOf(tool, seccomp ? `libseccomp-dev ${seccomp.version}` : "");
  const name = `${tool.key}-${createHash("sha256").update(stamp).digest("hex").slice(0, 12)}`;
  const dir = join(cacheDir, "tools", name);
  const bin = join(dir, "bin");
  if (existsSync(join(dir, "stamp.json")) && tool.binaries.every((binary) => existsSync(join(bin, binary)))) {
    const now = new Date();
    await utimes(join(dir, "stamp.json"), now, now); // in use: not to be pruned
    return { bin, built: false };
  }

  await mkdir(join(cacheDir, "tools"), { recursive: true });
  const work = await mkdtemp(`${dir}.tmp-`);
  try {
    await run("go", installArgs(tool), {
      cwd: await moduleDir(tool),
      env: goEnv({
        GOFLAGS: "-mod=mod",
        GOBIN: join(work, "bin"),
        CGO_ENABLED: "0",
        ...(seccomp && (await seccompBuildEnv(seccomp))),
      }),
    });
    for (const [from, to] of Object.entries(tool.renames ?? {}))
      await rename(join(work, "bin", from), join(work, "bin", to));
    await writeFile(join(work, "stamp.json"), stamp);
    // another run may have built the same recipe meanwhile: keep theirs
    await rename(work, dir).catch((error: NodeJS.ErrnoException) => {
      if (!existsSync(join(dir, "stamp.json"))) throw error;
    });
  } finally {
    await rm(work, { recursive: true, force: true });
  }
  await pruneOtherBuilds(tool, name);
  return { bin, built: true };
}

/**
 * Downloads the modules a tool needs without building it (`go install -n`
 * loads every package, so it fetches exactly their modules): CI runs this
 * in the background while it installs and builds the rest.
 */
export async function prefetchTool(tool: GoTool): Promise<void> {
  await run("go", ["install", "-n", ...installArgs(tool).slice(1)], {
    cwd: await moduleDir(tool),
    env: goEnv({ GOFLAGS: "-mod=mod", GOBIN: join(tmpdir(), "unused") }),
  });
}

/** Builds with at most `limit` `go` commands at once (2 cores: one compiles while another downloads). */
export function limiter(limit: number): <T>(job: () => Promise<T>) => Promise<T> {
  let active = 0;
  const queue: (() => void)[] = [];
  return async (job) => {
    if (active >= limit) await new Promise<void>((resolve) => queue.push(resolve));
    active++;
    try {
      return await job();
    } finally {
      active--;
      queue.shift()?.();
    }
  };
}

/** Builds a tool through `limit`, timing it as one phase. */
export function buildTool(tool: GoTool, limit: ReturnType<typeof limiter>): Promise<string> {
  return limit(() =>
    timed(`build ${tool.key}`, async (phase) => {
      const { bin, built } = await ensureTool(tool);
      if (!built) phase.note("cached");
      return bin;
    }),
  );
}
