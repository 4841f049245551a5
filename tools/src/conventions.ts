/**
 * What every published package must have (CONTRIBUTING.md lists the same):
 * each rule gives the exact fix in its message, so that a new package can
 * be made right from the test's output alone.
 */
import { existsSync, readdirSync, readFileSync } from "node:fs";
import { dirname, join, relative, resolve } from "node:path";
import { isDeepStrictEqual } from "node:util";
import { apiPage } from "./api-reference.js";
import type { Manifest, WorkspacePackage } from "./workspace.js";

export const REPOSITORY_URL = "git+https://github.com/nri-ts/nri-ts.git";
export const ISSUES_URL = "https://github.com/nri-ts/nri-ts/issues";
export const SOURCE_CONDITION = "@nri-ts/source";

/** The `files` entries every package starts with: built code, the sources its maps point at, no tests nor test helpers. */
export const FILES = ["dist", "src", "!**/*.test.ts", "!**/*.tsbuildinfo", "!src/**/fixtures", "!src/testing"];

/** What the build's tsconfig.json leaves out, by pattern: tests, test helpers (`src/testing/`) and fixtures. */
export const TSCONFIG_EXCLUDE = ["src/**/*.test.ts", "src/testing", "src/**/fixtures"];

export interface Expectations {
  /** The root LICENSE text. */
  license: string;
  /** The root's `engines.node`. */
  node: string;
  /** The upstream NRI version we track (`NRI_VERSION`). */
  nriVersion: string;
}

const json = (value: unknown) => JSON.stringify(value);

function expectField(problems: string[], manifest: Manifest, field: keyof Manifest, wanted: unknown): void {
  if (!isDeepStrictEqual(manifest[field], wanted)) {
    problems.push(`package.json: "${field}" must be ${json(wanted)}, not ${json(manifest[field]) ?? "absent"}`);
  }
}

/** `./src/a/b.ts` → `./dist/a/b` (what the `types` and `default` targets must start with). */
function distStem(source: string): string | undefined {
  const match = /^\.\/src\/(.+)\.ts$/.exec(source);
  return match ? `./dist/${match[1]}` : undefined;
}

function exportProblems(pkg: WorkspacePackage): string[] {
  const exports = pkg.manifest.exports;
  if (!exports) return ['package.json: "exports" is missing'];
  const problems: string[] = [];
  if (exports["./package.json"] !== "./package.json") {
    problems.push('package.json: "exports" must have "./package.json": "./package.json" (tools read it)');
  }
  for (const [subpath, target] of Object.entries(exports)) {
    if (subpath === "./package.json") continue;
    const where = `package.json: exports["${subpath}"]`;
    if (typeof target !== "object") {
      problems.push(
        `${where} must be {"${SOURCE_CONDITION}": "./src/….ts", "types": "./dist/….d.ts", "default": "./dist/….js"}`,
      );
      continue;
    }
    const conditions = Object.keys(target);
    const source = target[SOURCE_CONDITION];
    const stem = source === undefined ? undefined : distStem(source);
    if (conditions[0] !== SOURCE_CONDITION || stem === undefined) {
      problems.push(`${where}: the first condition must be "${SOURCE_CONDITION}" pointing at a ./src/….ts file`);
      continue;
    }
    if (!existsSync(join(pkg.dir, source!))) problems.push(`${where}: ${source} does not exist`);
    if (source!.endsWith(".test.ts") || source!.includes("/fixtures/")) {
      problems.push(`${where}: ${source} is left out of the tarball by "files"`);
    }
    const wanted = { [SOURCE_CONDITION]: source, types: `${stem}.d.ts`, default: `${stem}.js` };
    if (!isDeepStrictEqual(target, wanted)) problems.push(`${where} must be ${json(wanted)}`);
  }
  return problems;
}

function binProblems(pkg: WorkspacePackage): string[] {
  const bin = pkg.manifest.bin;
  const entries = typeof bin === "string" ? { [pkg.manifest.name]: bin } : (bin ?? {});
  return Object.entries(entries).flatMap(([command, target]) => {
    const source = /^dist\/(.+)\.js$/.exec(target);
    if (!source)
      return [`package.json: bin "${command}" must be "dist/….js" (npm publish rewrites "./dist/…" and warns)`];
    const file = join(pkg.dir, "src", `${source[1]}.ts`);
    if (!existsSync(file)) return [`package.json: bin "${command}": src/${source[1]}.ts does not exist`];
    return readFileSync(file, "utf8").startsWith("#!/usr/bin/env node\n")
      ? []
      : [`src/${source[1]}.ts must start with "#!/usr/bin/env node" (it is the bin "${command}")`];
  });
}

/** The build's tsconfig.json: its `exclude` is the shared pattern list, so that no file is left out (or in) by name. */
function tsconfigProblems(pkg: WorkspacePackage): string[] {
  const path = join(pkg.dir, "tsconfig.json");
  if (!existsSync(path)) return ["tsconfig.json is missing"];
  const match = /"exclude"\s*:\s*(\[[^\]]*\])/.exec(readFileSync(path, "utf8"));
  const exclude: unknown = match ? JSON.parse(match[1]!) : undefined;
  return isDeepStrictEqual(exclude, TSCONFIG_EXCLUDE)
    ? []
    : [
        `tsconfig.json: "exclude" must be ${json(TSCONFIG_EXCLUDE)} (a test helper goes in src/testing/, not in a list), not ${json(exclude) ?? "absent"}`,
      ];
}

/** Every `.ts` file under `dir`, as paths relative to it; generated code and fixtures aside. */
function sources(dir: string): string[] {
  if (!existsSync(dir)) return [];
  return readdirSync(dir, { recursive: true, withFileTypes: true })
    .filter((entry) => entry.isFile() && entry.name.endsWith(".ts"))
    .map((entry) => relative(dir, join(entry.parentPath, entry.name)))
    .filter((file) => !/(^|\/)(gen|fixtures)\//.test(file));
}

/**
 * Sources that only tests use: neither an entry point (exports, bin) nor
 * imported, or named (a file a child process runs), by a source that ships.
 * They are test helpers and belong in src/testing/, which never ships.
 */
function testOnlySources(pkg: WorkspacePackage): string[] {
  const src = join(pkg.dir, "src");
  const shipped = sources(src).filter((file) => !file.endsWith(".test.ts") && !file.startsWith("testing/"));
  const { exports, bin } = pkg.manifest;
  const entries = new Set<string>();
  for (const target of Object.values(exports ?? {})) {
    const source = typeof target === "object" ? target[SOURCE_CONDITION] : undefined;
    if (source) entries.add(resolve(pkg.dir, source));
  }
  for (const target of typeof bin === "string" ? [bin] : Object.values(bin ?? {})) {
    entries.add(resolve(pkg.dir, target.replace(/^dist\//, "src/").replace(/\.js$/, ".ts")));
  }
  const used = new Set(entries);
  const named = new Set<string>();
  for (const file of shipped) {
    const text = readFileSync(join(src, file), "utf8");
    for (const [, specifier] of text.matchAll(/(?:from\s+|import\s*\(\s*)"(\.{1,2}\/[^"]+)\.js"/g)) {
      used.add(resolve(src, dirname(file), `${specifier}.ts`));
    }
    for (const [name] of text.matchAll(/[\w.-]+\.(?:ts|js)\b/g)) named.add(name.replace(/\.js$/, ".ts"));
  }
  return shipped
    .filter((file) => !used.has(join(src, file)) && !named.has(file.slice(file.lastIndexOf("/") + 1)))
    .map(
      (file) => `src/${file} is used by tests only: move it to src/testing/ (left out of the build and the tarball)`,
    );
}

/** The problems of one public package, each a sentence that says what to change; empty when it is right. */
export function packageProblems(pkg: WorkspacePackage, expected: Expectations): string[] {
  const { manifest } = pkg;
  const problems: string[] = [];
  if (!manifest.name.startsWith("@nri-ts/")) problems.push(`package.json: "name" must start with "@nri-ts/"`);
  if (!manifest.description) problems.push('package.json: "description" is missing (npm search shows it)');
  expectField(problems, manifest, "license", "Apache-2.0");
  expectField(problems, manifest, "repository", { type: "git", url: REPOSITORY_URL, directory: pkg.path });
  expectField(problems, manifest, "homepage", `https://github.com/nri-ts/nri-ts/tree/main/${pkg.path}#readme`);
  expectField(problems, manifest, "bugs", { url: ISSUES_URL });
  expectField(problems, manifest, "type", "module");
  expectField(problems, manifest, "engines", { node: expected.node });
  expectField(problems, manifest, "publishConfig", { access: "public" });
  const files = manifest.files ?? [];
  if (!isDeepStrictEqual(files.slice(0, FILES.length), FILES)) {
    problems.push(`package.json: "files" must start with ${json(FILES)} (then anything else the package ships)`);
  }
  const entryProblems = [...exportProblems(pkg), ...binProblems(pkg)];
  problems.push(...entryProblems, ...tsconfigProblems(pkg));
  // (which sources ship follows from the entry points: only once they are right)
  if (entryProblems.length === 0) problems.push(...testOnlySources(pkg));
  for (const [name, range] of Object.entries(manifest.dependencies ?? {})) {
    if (name.startsWith("@nri-ts/") && !/^\^\d+\.\d+\.\d+$/.test(range)) {
      problems.push(
        `package.json: dependency ${name} must be a caret range of its version (e.g. "^0.1.0"), not ${json(range)}`,
      );
    }
  }
  const license = join(pkg.dir, "LICENSE");
  if (!existsSync(license))
    problems.push("LICENSE is missing: copy the root LICENSE (npm ships only the package's own)");
  else if (readFileSync(license, "utf8") !== expected.license)
    problems.push("LICENSE differs from the root LICENSE: copy it again");
  const readmePath = join(pkg.dir, "README.md");
  if (!existsSync(readmePath)) {
    problems.push("README.md is missing");
  } else {
    const readme = readFileSync(readmePath, "utf8");
    if (!readme.includes(expected.nriVersion)) {
      problems.push(
        `README.md must say which upstream version it matches: mention github.com/containerd/nri ${expected.nriVersion}`,
      );
    }
    if (!/```(ts|sh)\n/.test(readme)) problems.push("README.md needs a runnable example (a ```ts or ```sh block)");
    if (
      !readme.includes("## API reference") ||
      !readme.includes("npm run docs") ||
      !readme.includes(apiPage(manifest.name))
    ) {
      problems.push(
        `README.md needs a section "## API reference" saying how to build it (npm run docs) and where its page is (${apiPage(manifest.name)})`,
      );
    }
  }
  return problems.map((problem) => `${pkg.path}/${problem}`);
}
