import { copyFileSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { NRI_VERSION } from "@nri-ts/api";
import { describe, expect, it } from "vitest";
import { packageProblems } from "./conventions.js";
import { publicPackages, readManifest, ROOT, workspacePackages } from "./workspace.js";

const expected = {
  license: readFileSync(join(ROOT, "LICENSE"), "utf8"),
  node: readManifest(ROOT).engines!.node!,
  nriVersion: NRI_VERSION,
};

describe("package conventions (CONTRIBUTING.md)", () => {
  it("finds the workspace's packages", () => {
    const paths = workspacePackages().map((pkg) => pkg.path);
    expect(paths).toEqual(
      expect.arrayContaining(["packages/api", "packages/stub", "packages/plugins/logger", "tools"]),
    );
    expect(publicPackages().map((pkg) => pkg.path)).not.toContain("tools");
  });

  it.each(publicPackages().map((pkg) => [pkg.path, pkg] as const))(
    "%s has what every published package has",
    (_, pkg) => {
      expect(packageProblems(pkg, expected)).toEqual([]);
    },
  );

  it("names what is wrong, with the fix", () => {
    const [api] = publicPackages().filter((pkg) => pkg.path === "packages/api");
    const broken = {
      ...api!,
      manifest: {
        ...api!.manifest,
        publishConfig: undefined,
        exports: { ".": "./dist/index.js" },
        bin: { x: "./bin/x" },
      },
    };
    expect(packageProblems(broken, { ...expected, nriVersion: "v9.9.9" })).toEqual([
      'packages/api/package.json: "publishConfig" must be {"access":"public"}, not absent',
      'packages/api/package.json: "exports" must have "./package.json": "./package.json" (tools read it)',
      'packages/api/package.json: exports["."] must be {"@nri-ts/source": "./src/….ts", "types": "./dist/….d.ts", "default": "./dist/….js"}',
      'packages/api/package.json: bin "x" must be "dist/….js" (npm publish rewrites "./dist/…" and warns)',
      "packages/api/README.md must say which upstream version it matches: mention github.com/containerd/nri v9.9.9",
    ]);
  });

  it("wants test helpers in src/testing/, left out of the build by pattern", () => {
    const [mux] = publicPackages().filter((pkg) => pkg.path === "packages/mux");
    const dir = mkdtempSync(join(tmpdir(), "conventions-"));
    try {
      mkdirSync(join(dir, "src", "testing"), { recursive: true });
      mkdirSync(join(dir, "src", "fixtures"));
      writeFileSync(join(dir, "src", "index.ts"), 'export { mux } from "./mux.js";\n');
      writeFileSync(join(dir, "src", "mux.ts"), 'export const mux = 1;\nexport const child = "child.js";\n');
      writeFileSync(join(dir, "src", "child.ts"), "process.exit(0);\n");
      writeFileSync(join(dir, "src", "trunk.ts"), "export const trunk = 1;\n");
      writeFileSync(join(dir, "src", "testing", "support.ts"), "export const support = 1;\n");
      writeFileSync(join(dir, "src", "fixtures", "plugin.ts"), "export default {};\n");
      writeFileSync(
        join(dir, "src", "mux.test.ts"),
        'import "./trunk.js";\nimport "./testing/support.js";\nimport "./fixtures/plugin.js";\n',
      );
      writeFileSync(
        join(dir, "tsconfig.json"),
        '{ "include": ["src"], "exclude": ["src/**/*.test.ts", "src/trunk.ts"] }\n',
      );
      const problems = packageProblems({ ...mux!, dir }, expected).filter((problem) => !problem.includes("README.md"));
      expect(problems.filter((problem) => !problem.includes("LICENSE"))).toEqual([
        'packages/mux/tsconfig.json: "exclude" must be ["src/**/*.test.ts","src/testing","src/**/fixtures"] (a test helper goes in src/testing/, not in a list), not ["src/**/*.test.ts","src/trunk.ts"]',
        "packages/mux/src/trunk.ts is used by tests only: move it to src/testing/ (left out of the build and the tarball)",
      ]);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it("wants the README to say how to build the API reference and where the package's page is", () => {
    const [stub] = publicPackages().filter((pkg) => pkg.path === "packages/stub");
    const dir = mkdtempSync(join(tmpdir(), "conventions-"));
    try {
      copyFileSync(join(ROOT, "LICENSE"), join(dir, "LICENSE"));
      writeFileSync(
        join(dir, "README.md"),
        `# @nri-ts/stub\n\nMatches ${NRI_VERSION}.\n\n\`\`\`sh\nnpm install @nri-ts/stub\n\`\`\`\n`,
      );
      // (the exports' sources are not in the copy: only the README's problems count here)
      expect(packageProblems({ ...stub!, dir }, expected).filter((problem) => problem.includes("README.md"))).toEqual([
        'packages/stub/README.md needs a section "## API reference" saying how to build it (npm run docs) and where its page is (docs/api/modules/_nri-ts_stub.html)',
      ]);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
