/**
 * Every ```ts block of every README in the workspace (the root's and each
 * package's, found automatically) and of the docs site's guides
 * (docs/guides/) type-checks and runs, and prints what the README says it
 * prints (CONTRIBUTING.md, "README.md").
 */
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { join, relative } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import {
  exampleKind,
  TIMEOUT_MS,
  runPluginModule,
  runPluginProgram,
  runScript,
  runTest,
  typeErrors,
} from "./example-runner.js";
import { type Example, printedMatches, readmeExamples } from "./readme-examples.js";
import { ROOT, workspacePackages } from "./workspace.js";

const work = mkdtempSync(join(ROOT, "tools", ".examples-"));
afterAll(() => rmSync(work, { recursive: true, force: true }));

interface Readme {
  /** `README.md`, `packages/stub/README.md`, ... */
  path: string;
  /** The directory examples run in (the package's). */
  dir: string;
  /** Where its examples are written: `<work>/<n>/test/`. */
  out: string;
  examples: Example[];
}

const guides = readdirSync(join(ROOT, "docs", "guides"))
  .filter((file) => file.endsWith(".md"))
  .sort()
  .map((file) => ({ path: `docs/guides/${file}`, dir: ROOT }));

const readmes: Readme[] = [
  { path: "README.md", dir: ROOT },
  ...workspacePackages().map((pkg) => ({ path: `${pkg.path}/README.md`, dir: pkg.dir })),
  ...guides,
]
  .filter(({ path }) => existsSync(join(ROOT, path)))
  .map(({ path, dir }, i) => {
    const out = join(work, String(i), "test");
    mkdirSync(out, { recursive: true });
    const examples = readmeExamples(readFileSync(join(ROOT, path), "utf8"));
    for (const example of examples) writeFileSync(join(out, example.file), example.code);
    return { path, dir, out, examples };
  });

// One program for all of them: the workspace's sources are parsed once.
const errors = typeErrors(
  new Map(
    readmes.flatMap((readme) =>
      readme.examples.map((example) => [join(readme.out, example.file), example.code] as const),
    ),
  ),
);

/** Named examples that another example imports run as part of it. */
function importedByAnother(readme: Readme, example: Example): boolean {
  const specifier = `"./${example.file.replace(/\.ts$/, ".js")}"`;
  return readme.examples.some((other) => other !== example && other.code.includes(specifier));
}

function lines(text: string): string[] {
  return text === "" ? [] : text.replace(/\n$/, "").split("\n");
}

describe.each(readmes.map((readme) => [readme.path, readme] as const))("%s", (_, readme) => {
  it("examples type-check", () => {
    const prefix = `${readme.out}/`;
    expect(
      errors
        .filter((error) => error.startsWith(prefix))
        .map((error) => `${readme.path} example ${relative(readme.out, error)}`),
    ).toEqual([]);
  });

  const runnable = readme.examples.filter((example) => !(example.named && importedByAnother(readme, example)));
  it.skipIf(runnable.length === 0).each(runnable.map((example) => [example.number, example.line, example] as const))(
    "example %i (line %i) runs and prints what it says",
    async (_number, _line, example) => {
      const file = join(readme.out, example.file);
      const kind = exampleKind(example.code);
      if (kind === "plugin-module") {
        const report = await runPluginModule(file);
        expect(report.failures).toEqual([]);
        expect(report.steps.flatMap((step) => step.events).filter((event) => event.error)).toEqual([]);
        expect(
          report.steps.some((step) => step.events.length > 0),
          "the plugin received no event",
        ).toBe(true);
        return;
      }
      if (kind === "plugin-program") {
        const { report, program } = await runPluginProgram(file, readme.dir);
        expect(report.failures, program.stderr).toEqual([]);
        expect(report.plugins.map((plugin) => plugin.source)).toEqual(["external"]);
        expect(
          report.steps.some((step) => step.events.length > 0),
          "the plugin received no event",
        ).toBe(true);
        // The runtime went away at the end: a plugin program exits 1 then, as Go plugins do.
        expect(program.exitCode, `exit code ${program.exitCode}, stderr:\n${program.stderr}`).toBe(1);
        if (example.prints) expect(printedMatches(lines(program.stdout), example.prints), program.stdout).toBe(true);
        return;
      }
      const result = kind === "test" ? await runTest(file, join(readme.out, "..")) : await runScript(file, readme.dir);
      expect(result.exitCode, `exit code ${result.exitCode}, stderr:\n${result.stderr}`).toBe(0);
      if (kind === "script" && example.prints) {
        const printed = lines(result.stdout);
        expect(
          printedMatches(printed, example.prints),
          `printed:\n${result.stdout}\nREADME says:\n${example.prints.join("\n")}`,
        ).toBe(true);
      }
    },
    TIMEOUT_MS * 2,
  );
});
