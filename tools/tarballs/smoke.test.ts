/**
 * A new user's first steps, from the packed tarballs into an empty project
 * and the READMEs word for word: the root README's plugin and its two-line
 * main, sim's README test; type-checked with `tsc --init`'s settings under
 * TypeScript 5.9 and the newest TypeScript, run in nri-sim (as a module and
 * as a launched program), tested with vitest and `simulate()`, and loaded
 * with `require()` from CommonJS.
 */
import { execFile } from "node:child_process";
import { chmodSync, mkdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { promisify } from "node:util";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { inject } from "vitest";
import { LIFECYCLE } from "../src/example-runner.js";
import { dependencyClosure } from "../src/pack.js";
import { readmeExamples } from "../src/readme-examples.js";
import { ROOT } from "../src/workspace.js";

const runFile = promisify(execFile);
const { tarballs, work } = inject("packed");
const project = join(work, "first-plugin");
/** The versions a user gets from the registry (npm's cache when offline). */
const TYPESCRIPT_5_9 = "typescript@5.9.3";
const VITEST = `vitest@${(JSON.parse(readFileSync(join(ROOT, "package.json"), "utf8")) as { devDependencies: Record<string, string> }).devDependencies.vitest}`;

const { FORCE_COLOR: _, ...inherited } = process.env;
const env = { ...inherited, NO_COLOR: "1" };

function sh(command: string, args: string[]) {
  return runFile(command, args, { cwd: project, env, maxBuffer: 64 << 20 }).catch(
    (error: { code: number; stdout: string; stderr: string }) => {
      throw new Error(`${command} ${args.join(" ")} exited ${error.code}:\n${error.stdout}\n${error.stderr}`);
    },
  );
}

const npm = (...args: string[]) => sh("npm", [...args, "--no-audit", "--no-fund", "--prefer-offline"]);
const npx = (...args: string[]) => sh("npx", ["--no-install", ...args]);

function readmeBlock(path: string, predicate: (code: string, file: string) => boolean): string {
  const found = readmeExamples(readFileSync(join(ROOT, path), "utf8")).find((example) =>
    predicate(example.code, example.file),
  );
  if (!found) throw new Error(`${path}: the example this test follows is gone`);
  return found.code;
}

/** `tsc --init` of the installed TypeScript, then a type-check of the project with those settings. */
async function typeCheckWithInitDefaults(): Promise<string> {
  rmSync(join(project, "tsconfig.json"), { force: true });
  await npx("tsc", "--init");
  await npx("tsc", "--noEmit", "-p", ".");
  return (await npx("tsc", "--version")).stdout.trim();
}

beforeAll(async () => {
  mkdirSync(project, { recursive: true });
  writeFileSync(
    join(project, "package.json"),
    JSON.stringify({ name: "first-plugin", private: true, type: "module" }, null, 2),
  );
  // What a plugin author installs: the stub and the api, nri-sim and tsx, TypeScript and vitest.
  const ours = new Set(["@nri-ts/stub", "@nri-ts/api", "@nri-ts/sim"].flatMap(dependencyClosure));
  await npm("install", ...[...ours].map((name) => tarballs[name]!), "tsx", TYPESCRIPT_5_9, VITEST);
  // The root README's plugin, its main, and sim's README test of a plugin.
  writeFileSync(
    join(project, "annotate.ts"),
    readmeBlock("README.md", (_, file) => file === "annotate.ts"),
  );
  writeFileSync(
    join(project, "main.ts"),
    readmeBlock("README.md", (_, file) => file === "10-annotate.ts"),
  );
  writeFileSync(
    join(project, "my-plugin.ts"),
    readmeBlock("packages/sim/README.md", (_, file) => file === "my-plugin.ts"),
  );
  writeFileSync(
    join(project, "my-plugin.test.ts"),
    readmeBlock("packages/sim/README.md", (_, file) => file === "my-plugin.test.ts"),
  );
  writeFileSync(join(project, "scenario.yaml"), LIFECYCLE);
}, 600_000);
afterAll(() => rmSync(project, { recursive: true, force: true }));

describe("a plugin in an empty project, from the tarballs", () => {
  it("type-checks with tsc --init's settings of TypeScript 5.9", async () => {
    expect(await typeCheckWithInitDefaults()).toBe("Version 5.9.3");
  });

  it("runs in nri-sim as a module, with the adjustments the README promises", async () => {
    const { stdout } = await npx(
      "nri-sim",
      "run",
      "scenario.yaml",
      "--plugin",
      "10-annotate=./annotate.ts",
      "--clock",
      "virtual",
    );
    expect(stdout).toContain("plugins: 10-annotate (module ./annotate.ts)");
    expect(stdout).toMatch(/annotation example\.com\/seen-by=annotate +10-annotate/);
    expect(stdout).toMatch(/env POD_NAME=web +10-annotate/);
    expect(stdout).toContain("10-annotate: stopping");
  });

  it("runs as a program the runtime launches (the README's two-line main)", async () => {
    const plugins = join(project, "plugins");
    mkdirSync(plugins, { recursive: true });
    // `node --import tsx`, not the tsx command: that one runs the program in a child process, which loses fd 3.
    writeFileSync(
      join(plugins, "10-annotate"),
      `#!/bin/sh\ncd ${project} && exec ${process.execPath} --import tsx main.ts\n`,
    );
    chmodSync(join(plugins, "10-annotate"), 0o755);
    const { stdout } = await npx("nri-sim", "run", "scenario.yaml", "--plugin-dir", plugins);
    expect(stdout).toMatch(/plugins: 10-annotate \(executable/);
    expect(stdout).toMatch(/annotation example\.com\/seen-by=annotate +10-annotate/);
  });

  it("passes sim's README test with vitest and simulate()", async () => {
    const { stdout } = await npx("vitest", "run");
    expect(stdout).toMatch(/Tests +1 passed/);
  });

  it("loads with require() from CommonJS on this Node", async () => {
    const { stdout } = await sh(process.execPath, [
      "-e",
      'console.log(typeof require("@nri-ts/stub").runPlugin, require("@nri-ts/api").NRI_VERSION)',
    ]);
    expect(stdout).toMatch(/^function v\d+\.\d+\.\d+\n$/);
  });

  it("type-checks with tsc --init's settings of the newest TypeScript", async () => {
    await npm("install", "typescript@latest");
    expect(await typeCheckWithInitDefaults()).toMatch(/^Version (\d+)\./);
  });
});
