/**
 * `npm create @nri-ts/plugin my-plugin` as the root README says, by name
 * from the registry, then the project's own `npm install`, `npm test` and
 * `npm run sim`: the scaffolder resolves its template's dependencies on our
 * packages by name, at the versions just released.
 */
import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { beforeAll, describe, expect, inject, it } from "vitest";
import { ourResolved, user } from "./user.js";

const { registry, first } = inject("released");
const me = user("create");
const project = join(me.dir, "my-plugin");
let created = "";

beforeAll(async () => {
  created = (await me.type("npm create @nri-ts/plugin my-plugin")).stdout;
  await me.type("npm install", "my-plugin");
}, 600_000);

describe("npm create @nri-ts/plugin, by name from the registry", () => {
  it("wrote the project", () => {
    expect(created).toMatch(/Created the NRI plugin my-plugin in my-plugin: \d+ files\./);
    expect(existsSync(join(project, "src", "plugin.ts"))).toBe(true);
  });

  it("gave the project the released versions of our packages, installed from the registry", () => {
    const manifest = JSON.parse(readFileSync(join(project, "package.json"), "utf8")) as Record<
      string,
      Record<string, string>
    >;
    const ours = Object.entries({ ...manifest.dependencies, ...manifest.devDependencies }).filter(([name]) =>
      name.startsWith("@nri-ts/"),
    );
    expect(ours.length).toBeGreaterThan(0);
    for (const [name, range] of ours) expect(range, name).toBe(`^${first.after[name]}`);
    const resolved = ourResolved(project);
    for (const [name] of ours) expect(Object.keys(resolved), name).toContain(`${name}@${first.after[name]}`);
    for (const [name, url] of Object.entries(resolved)) expect(url, name).toMatch(new RegExp(`^${registry.url}`));
  });

  it("passes its own tests (npm test)", async () => {
    const { stdout } = await me.type("npm test", "my-plugin");
    expect(stdout).toMatch(/Test Files +\d+ passed/);
    expect(stdout).not.toMatch(/failed/);
  });

  it("runs in nri-sim (npm run sim), its scenario's expectations met", async () => {
    const { stdout } = await me.type("npm run sim", "my-plugin");
    expect(stdout).toContain("plugins: 10-my-plugin (module ./src/plugin.ts)");
    expect(stdout).toMatch(/annotation example\.com\/seen-by=my-plugin +10-my-plugin/);
  });
});
