/**
 * Each package's size as a user gets it, from the registry: its tarball,
 * and `npm install <package>` alone in an empty project. Prints the table;
 * with NRI_SIZES_OUT=<file> it also writes it there (docs/guides/install-size.md
 * is this table: `NRI_SIZES_OUT=docs/guides/install-size.md npm run test:registry`).
 */
import { readFileSync, writeFileSync } from "node:fs";
import { isAbsolute, join } from "node:path";
import { beforeAll, describe, expect, inject, it } from "vitest";
import { dependencyClosure } from "../src/pack.js";
import { ROOT } from "../src/workspace.js";
import { manifests } from "./release.js";
import { packument } from "./registry.js";
import { bytesUnder, installedWith, type Size, sizeTable } from "./sizes.js";
import { user } from "./user.js";

const { registry, tree, first } = inject("released");
const sizes: Size[] = [];
/** Our packages each one brought along. */
const oursWith = new Map<string, string[]>();

async function measure(name: string, version: string): Promise<Size> {
  const me = user(`size-${name.replace(/[@/]/g, "_")}`);
  await me.type(`npm init -y >/dev/null && npm install ${name}@${version}`);
  const meta = await packument(registry, name);
  const tarball = await fetch(meta!.versions[version]!.dist.tarball);
  const others = installedWith(me.dir, name);
  oursWith.set(name, others.filter((dependency) => dependency.startsWith("@nri-ts/")).sort());
  return {
    name,
    version,
    packed: (await tarball.arrayBuffer()).byteLength,
    installed: bytesUnder(join(me.dir, "node_modules")),
    dependencies: others.length,
    ours: oursWith.get(name)!.length,
  };
}

beforeAll(async () => {
  const queue = Object.entries(first.after).sort(([a], [b]) => a.localeCompare(b));
  const measured = new Map<string, Size>();
  // two installs at a time: the registry and npm's cache serve both
  const worker = async () => {
    for (let next = queue.shift(); next; next = queue.shift()) measured.set(next[0], await measure(...next));
  };
  await Promise.all([worker(), worker()]);
  sizes.push(...[...measured.values()].sort((a, b) => a.name.localeCompare(b.name)));
  const table = sizeTable(sizes, process.versions.node);
  console.log(table);
  const out = process.env.NRI_SIZES_OUT;
  if (out) {
    const file = isAbsolute(out) ? out : join(ROOT, out);
    const text = readFileSync(file, "utf8");
    const marker = /(<!-- sizes -->\n)[\s\S]*?(<!-- \/sizes -->)/;
    if (!marker.test(text)) throw new Error(`${file}: no <!-- sizes --> … <!-- /sizes --> to put the table between`);
    writeFileSync(
      file,
      text.replace(marker, (_, open: string, close: string) => `${open}${table}${close}`),
    );
  }
}, 900_000);

describe("install size, from the registry", () => {
  it("installs every package alone into an empty project", () => {
    expect(sizes.map((size) => size.name)).toEqual(Object.keys(first.after).sort());
    for (const size of sizes) expect(size.installed, size.name).toBeGreaterThan(size.packed);
  });

  it("brings along exactly our packages that its dependencies lead to", () => {
    for (const size of sizes) {
      const peers = Object.keys(manifests(tree)[size.name]!.peerDependencies ?? {}).filter((peer) =>
        peer.startsWith("@nri-ts/"),
      );
      const expected = new Set([size.name, ...peers].flatMap(dependencyClosure));
      expected.delete(size.name);
      expect(oursWith.get(size.name), size.name).toEqual([...expected].sort());
    }
  });
});
