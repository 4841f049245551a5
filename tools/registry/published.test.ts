/**
 * What the first release put on the registry: every public package at the
 * version `npm run version` gave it, nothing private, no test helper in a
 * tarball, dependency ranges on our packages that name published versions,
 * and not one request for our scope sent upstream.
 */
import { execFileSync } from "node:child_process";
import { dirname } from "node:path";
import { describe, expect, inject, it } from "vitest";
import { type Manifest, publicPackages, ROOT, workspacePackages } from "../src/workspace.js";
import { caretAllows, manifests } from "./release.js";
import { packument, upstreamRequests } from "./registry.js";

const { registry, tree, first } = inject("released");
const published = manifests(tree);

/** The directories the package's export targets are in (`src/testing`, `dist`, ...). */
function exportDirectories(manifest: Manifest): Set<string> {
  const targets = Object.values(manifest.exports ?? {}).flatMap((target) =>
    typeof target === "string" ? [target] : Object.values(target),
  );
  return new Set(targets.map((target) => dirname(target.replace(/^\.\//, ""))));
}

async function tarballFiles(name: string, version: string): Promise<string[]> {
  const meta = await packument(registry, name);
  const response = await fetch(meta!.versions[version]!.dist.tarball);
  const bytes = Buffer.from(await response.arrayBuffer());
  return execFileSync("tar", ["-tz"], { input: bytes, encoding: "utf8" })
    .split("\n")
    .filter(Boolean)
    .map((file) => file.replace(/^package\//, ""));
}

describe("the first release, on the registry", () => {
  it("published every public package, at its new version, tagged latest", async () => {
    const expected = publicPackages().map((pkg) => `${pkg.manifest.name}@${first.after[pkg.manifest.name]}`);
    expect(first.tags.sort()).toEqual(expected.sort());
    for (const [name, version] of Object.entries(first.after)) {
      const meta = await packument(registry, name);
      expect(Object.keys(meta?.versions ?? {}), name).toEqual([version]);
      expect(meta?.["dist-tags"].latest, name).toBe(version);
    }
  });

  it("published no private package", async () => {
    const privates = workspacePackages(ROOT).filter((pkg) => pkg.manifest.private);
    expect(privates.length).toBeGreaterThan(0);
    for (const pkg of privates) expect(await packument(registry, pkg.manifest.name), pkg.manifest.name).toBeUndefined();
  });

  it("has no tests, test helpers or fixtures in any tarball", async () => {
    for (const [name, version] of Object.entries(first.after)) {
      const files = await tarballFiles(name, version);
      expect(files, name).toContain("package.json");
      // A create package's template/ is the project it writes, its tests included; a testing/
      // directory ships only where the package exports an entry from it (the stub's harness).
      const exported = exportDirectories(published[name]!);
      const own = files.filter((file) => !file.startsWith("template/") && !exported.has(dirname(file)));
      expect(
        own.filter((file) => /\.test\.|\.tsbuildinfo$|\/fixtures\/|(^|\/)testing\//.test(file)),
        name,
      ).toEqual([]);
    }
  });

  it("depends on our packages by ranges that name published versions, never workspace or *", () => {
    for (const [name, manifest] of Object.entries(published)) {
      // The scaffolder's devDependencies are the ranges of the projects it writes.
      const kinds = [
        "dependencies",
        "peerDependencies",
        ...(name === "@nri-ts/create-plugin" ? ["devDependencies"] : []),
      ];
      for (const kind of kinds as ("dependencies" | "peerDependencies" | "devDependencies")[]) {
        for (const [dependency, range] of Object.entries(manifest[kind] ?? {})) {
          if (!dependency.startsWith("@nri-ts/")) continue;
          expect(range, `${name} ${kind} ${dependency}`).toMatch(/^\^\d+\.\d+\.\d+$/);
          expect(caretAllows(range, first.after[dependency]!), `${name}: ${dependency} ${range}`).toBe(true);
        }
      }
    }
  });

  it("asked upstream for nothing of our scope", () => {
    const ours = upstreamRequests(registry).filter((line) => /@nri-ts/.test(line));
    expect(ours).toEqual([]);
  });
});
