/**
 * The maintainer's side of a release (RELEASING.md), on a throwaway copy of
 * the tree: the first release's folded changesets, or `npm run version`
 * (changeset version, the lock file, the release overlays) for the ones
 * after it, a commit, then `changeset publish` to the test's registry. The copy has the working tree's files (tracked and untracked,
 * not ignored ones), each public package's dist/ as `npm run build` left it
 * (what `npm run release` would build from the same sources: nothing built
 * depends on the version, which the programs read from their package.json
 * at run time) and the checkout's node_modules by a symbolic link.
 */
import { execFileSync } from "node:child_process";
import { cpSync, existsSync, mkdirSync, readdirSync, readFileSync, rmSync, symlinkSync } from "node:fs";
import { dirname, join } from "node:path";
import { type Manifest, publicPackages, ROOT, workspacePackages } from "../src/workspace.js";
import { npmEnv, sh } from "./npm-env.js";
import type { Registry } from "./registry.js";

const GIT_IDENTITY = {
  GIT_AUTHOR_NAME: "release test",
  GIT_AUTHOR_EMAIL: "release-test@localhost",
  GIT_COMMITTER_NAME: "release test",
  GIT_COMMITTER_EMAIL: "release-test@localhost",
};

/** A copy of the working tree in `dir`, committed in a repository of its own. */
export function copyTree(dir: string): void {
  const files = execFileSync("git", ["ls-files", "-z", "--cached", "--others", "--exclude-standard"], {
    cwd: ROOT,
    encoding: "utf8",
    maxBuffer: 64 << 20,
  })
    .split("\0")
    .filter((file) => file !== "" && existsSync(join(ROOT, file)));
  for (const file of files) {
    mkdirSync(dirname(join(dir, file)), { recursive: true });
    cpSync(join(ROOT, file), join(dir, file), { verbatimSymlinks: true });
  }
  for (const pkg of publicPackages()) {
    if (!existsSync(join(pkg.dir, "dist"))) throw new Error(`${pkg.path} is not built: run npm run build first`);
    cpSync(join(pkg.dir, "dist"), join(dir, pkg.path, "dist"), { recursive: true, verbatimSymlinks: true });
  }
  for (const where of ["", ...workspacePackages().map((pkg) => pkg.path)]) {
    if (existsSync(join(ROOT, where, "node_modules")))
      symlinkSync(join(ROOT, where, "node_modules"), join(dir, where, "node_modules"));
  }
  git(dir, "init", "--quiet", "--initial-branch=main");
  git(dir, "add", "--all");
  git(dir, "commit", "--quiet", "--no-verify", "-m", "the tree under test");
}

export function git(dir: string, ...args: string[]): string {
  return execFileSync("git", args, { cwd: dir, encoding: "utf8", env: { ...process.env, ...GIT_IDENTITY } });
}

/** Each public package's version in the copy, by name. */
export function versions(dir: string): Record<string, string> {
  return Object.fromEntries(publicPackages(dir).map((pkg) => [pkg.manifest.name, pkg.manifest.version ?? ""]));
}

/** Each public package's manifest in the copy, by name. */
export function manifests(dir: string): Record<string, Manifest> {
  return Object.fromEntries(publicPackages(dir).map((pkg) => [pkg.manifest.name, pkg.manifest]));
}

export interface Versioned {
  before: Record<string, string>;
  after: Record<string, string>;
  /** The packages whose version moved. */
  bumped: string[];
}

/**
 * The first release's step before publishing (RELEASING.md, "The first
 * release"): the changesets that landed since are folded into the 0.1.0
 * changelogs and deleted; here deleted, then committed. Versions stay.
 */
export function foldChangesets(dir: string): Versioned {
  const pending = readdirSync(join(dir, ".changeset")).filter((file) => file.endsWith(".md") && file !== "README.md");
  for (const file of pending) rmSync(join(dir, ".changeset", file));
  git(dir, "add", "--all");
  git(dir, "commit", "--quiet", "--no-verify", "--allow-empty", "-m", "Release 0.1.0");
  const now = versions(dir);
  return { before: now, after: now, bumped: [] };
}

/** `npm run version` in the copy, then `git commit -am Release`, as RELEASING.md says. */
export async function version(dir: string, registry: Registry): Promise<Versioned> {
  const before = versions(dir);
  await sh(dir, npmEnv(registry.userconfig), "npm", ["run", "version"]);
  const after = versions(dir);
  git(dir, "add", "--all");
  git(dir, "commit", "--quiet", "--no-verify", "-m", "Release");
  return { before, after, bumped: Object.keys(after).filter((name) => after[name] !== before[name]) };
}

/**
 * `changeset publish` in the copy, with the publisher's token; resolves to
 * the `name@version`s it tagged (one per package it published). changesets
 * asks the registry in `npm_config_registry` (npmjs.org without it) which
 * versions exist.
 */
export async function publish(dir: string, registry: Registry): Promise<string[]> {
  const env = npmEnv(registry.publisherConfig, { npm_config_registry: registry.url });
  const { stdout, stderr } = await sh(dir, env, "npx", ["--no-install", "changeset", "publish"]);
  const tagged = [...`${stdout}\n${stderr}`.matchAll(/New tag:\s+(\S+)/g)].map(([, tag]) => tag!);
  const tags = git(dir, "tag", "--points-at", "HEAD").split("\n").filter(Boolean);
  if (tagged.sort().join() !== tags.sort().join())
    throw new Error(`changeset publish said it tagged ${tagged.join(", ")}; git has ${tags.join(", ")}`);
  return tags;
}

/** The changelog of `name` in the copy. */
export function changelog(dir: string, name: string): string {
  const pkg = publicPackages(dir).find((candidate) => candidate.manifest.name === name);
  if (!pkg) throw new Error(`${name} is not a public package`);
  return readFileSync(join(pkg.dir, "CHANGELOG.md"), "utf8");
}

/** Whether `^x.y.z` admits `version` as npm reads it: the same major (for 0.x, the same minor), not older. */
export function caretAllows(range: string, version: string): boolean {
  const [want, have] = [range.slice(1), version].map((text) => text.split(".").map(Number)) as [number[], number[]];
  const same = want[0]! > 0 ? have[0] === want[0] : have[0] === 0 && have[1] === want[1];
  return same && (have[1]! > want[1]! || (have[1] === want[1] && have[2]! >= want[2]!));
}
