/**
 * A second release, as a maintainer makes one after a fix in one package: a
 * patch changeset to `@nri-ts/api` alone, `npm run version`, then `changeset
 * publish` again. changesets moves a dependent only when the new version
 * leaves its range (`updateInternalDependencies: "patch"` in
 * .changeset/config.json rewrites the ranges of packages released anyway),
 * so a patch releases the api alone; no other package gets a new version,
 * and a user who installs the old `@nri-ts/stub` by its exact version gets
 * the new api within the stub's range.
 * Runs last (vitest.registry.ts): it changes what the registry holds.
 */
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { beforeAll, describe, expect, inject, it } from "vitest";
import { caretAllows, git, manifests, publish, type Versioned, version } from "./release.js";
import { packument } from "./registry.js";
import { ourResolved, user } from "./user.js";

const { registry, tree, first } = inject("released");
const API = "@nri-ts/api";
let second: Versioned;
let tags: string[] = [];

/** `0.1.2` → `0.1.3` */
const nextPatch = (v: string) => v.replace(/\d+$/, (patch) => String(Number(patch) + 1));

/** The public packages that depend on `name` (dependencies or peers), directly or through others. */
function dependents(name: string): Set<string> {
  const all = manifests(tree);
  const found = new Set<string>();
  const visit = (target: string) => {
    for (const [pkg, manifest] of Object.entries(all)) {
      const on = { ...manifest.dependencies, ...manifest.peerDependencies };
      if (target in on && !found.has(pkg)) {
        found.add(pkg);
        visit(pkg);
      }
    }
  };
  visit(name);
  return found;
}

beforeAll(async () => {
  writeFileSync(join(tree, ".changeset", "api-fix.md"), `---\n"${API}": patch\n---\n\nA fix in the api.\n`);
  git(tree, "add", "--all");
  git(tree, "commit", "--quiet", "--no-verify", "-m", "api: a fix");
  second = await version(tree, { ...registry, stop: async () => {} });
  tags = await publish(tree, { ...registry, stop: async () => {} });
}, 900_000);

describe("a second release: a patch to @nri-ts/api", () => {
  it("bumps the api's patch version alone: its dependents' ranges already admit it", () => {
    expect(second.after[API]).toBe(nextPatch(first.after[API]!));
    expect(second.bumped).toEqual([API]);
    const before = manifests(tree);
    const users = [...dependents(API)];
    expect(users.length).toBeGreaterThan(0);
    for (const name of users) {
      const range = { ...before[name]!.dependencies, ...before[name]!.peerDependencies }[API];
      if (range) expect(caretAllows(range, second.after[API]!), `${name}: ${API} ${range}`).toBe(true);
    }
  });

  it("publishes exactly the bumped packages, and nothing else gets a version", async () => {
    expect(tags.sort()).toEqual(second.bumped.map((name) => `${name}@${second.after[name]}`).sort());
    for (const name of Object.keys(first.after)) {
      const meta = await packument(registry, name);
      const expected = second.bumped.includes(name) ? [first.after[name], second.after[name]] : [first.after[name]];
      expect(Object.keys(meta?.versions ?? {}).sort(), name).toEqual(expected.sort());
      expect(meta?.["dist-tags"].latest, name).toBe(second.after[name]);
    }
  });

  it("gives a user of the old @nri-ts/stub the new api, within the stub's range", async () => {
    const me = user("old-stub");
    await me.type(`npm init -y && npm install @nri-ts/stub@${first.after["@nri-ts/stub"]}`);
    const resolved = Object.keys(ourResolved(me.dir));
    expect(resolved).toContain(`@nri-ts/stub@${first.after["@nri-ts/stub"]}`);
    expect(resolved).toContain(`${API}@${second.after[API]}`);
  });
});
