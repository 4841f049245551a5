import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { nameProblem } from "./name.js";
import { ScaffoldError, scaffold } from "./scaffold.js";

const work = mkdtempSync(join(tmpdir(), "create-plugin-"));
afterAll(() => rmSync(work, { recursive: true, force: true }));

const workspaceVersion = (path: string) =>
  (JSON.parse(readFileSync(join(import.meta.dirname, "../..", path, "package.json"), "utf8")) as { version: string })
    .version;

describe("scaffold", () => {
  const project = scaffold("my-plugin", work);
  const read = (file: string) => readFileSync(join(project.directory, file), "utf8");

  it("writes the handlers, tests, scenario, README and deployment files, named after the directory", () => {
    expect(project).toMatchObject({ directory: join(work, "my-plugin"), name: "my-plugin" });
    expect(project.files).toEqual([
      ".dockerignore",
      ".gitignore",
      "README.md",
      "deploy/Dockerfile",
      "deploy/helm/Chart.yaml",
      "deploy/helm/templates/NOTES.txt",
      "deploy/helm/templates/_helpers.tpl",
      "deploy/helm/templates/daemonset.yaml",
      "deploy/helm/templates/serviceaccount.yaml",
      "deploy/helm/values.yaml",
      "deploy/kustomize/base/daemonset.yaml",
      "deploy/kustomize/base/kustomization.yaml",
      "deploy/kustomize/overlays/local/kustomization.yaml",
      "deploy/kustomize/overlays/release/kustomization.yaml",
      "package.json",
      "scenario.yaml",
      "src/main.test.ts",
      "src/main.ts",
      "src/plugin.test.ts",
      "src/plugin.ts",
      "tsconfig.build.json",
      "tsconfig.json",
      "vitest.config.ts",
    ]);
    // every placeholder filled; Helm's templates keep their own {{ }}
    for (const file of project.files) {
      expect(read(file), file).not.toContain(file.startsWith("deploy/helm/templates/") ? "{{name}}" : "{{");
    }
    expect(read("deploy/helm/Chart.yaml")).toContain("name: nri-plugin-my-plugin");
    expect(read("src/main.ts")).toContain('defaultName: "my-plugin"');
    expect(read("deploy/kustomize/base/kustomization.yaml")).toContain("app.kubernetes.io/name: nri-plugin-my-plugin");
    expect(read("README.md")).toMatch(/^# my-plugin\n/);
  });

  it("gives the project the published versions of our packages", () => {
    const manifest = JSON.parse(read("package.json")) as Record<string, Record<string, string>>;
    expect(manifest.name).toBe("my-plugin");
    expect(manifest.bin).toEqual({ "nri-my-plugin": "dist/main.js" });
    expect(manifest.dependencies).toEqual({ "@nri-ts/stub": `^${workspaceVersion("stub")}` });
    expect(manifest.devDependencies).toMatchObject({ "@nri-ts/sim": `^${workspaceVersion("sim")}` });
    expect(manifest.scripts!.sim).toBe("nri-sim run scenario.yaml --plugin 10-my-plugin=./src/plugin.ts");
  });

  it("decides on the install scripts of what the project installs as the repository does", () => {
    // The workspace's lock knows what the project's dependencies install, and which have install scripts.
    type Entry = { dependencies?: Record<string, string>; optionalDependencies?: Record<string, string> };
    type Lock = { packages: Record<string, Entry & { hasInstallScript?: boolean; link?: boolean; resolved?: string }> };
    const root = join(import.meta.dirname, "../../..");
    const lock = JSON.parse(readFileSync(join(root, "package-lock.json"), "utf8")) as Lock;
    const rootAllow = (JSON.parse(readFileSync(join(root, "package.json"), "utf8")) as Record<string, unknown>)
      .allowScripts as Record<string, boolean>;
    const where = (name: string) => {
      const entry = lock.packages[`node_modules/${name}`];
      // our packages are links to the workspace's directories
      return entry?.link ? lock.packages[entry.resolved ?? ""] : entry;
    };
    const seen = new Set<string>();
    const visit = (name: string): void => {
      const entry = where(name);
      if (seen.has(name) || !entry) return;
      seen.add(name);
      for (const dep of Object.keys({ ...entry.dependencies, ...entry.optionalDependencies })) visit(dep);
    };
    const manifest = JSON.parse(read("package.json")) as Record<string, Record<string, unknown>>;
    for (const name of Object.keys({ ...manifest.dependencies, ...manifest.devDependencies })) visit(name);
    const scripted = [...seen].filter((name) => where(name)?.hasInstallScript);
    expect(scripted).toEqual(["esbuild"]);
    expect(manifest.allowScripts).toEqual(Object.fromEntries(scripted.map((name) => [name, rootAllow[name]])));
  });

  it("refuses a non-empty directory and leaves it as it was", () => {
    const taken = join(work, "taken");
    mkdirSync(taken);
    writeFileSync(join(taken, "notes.txt"), "mine");
    expect(() => scaffold(taken)).toThrow(
      new ScaffoldError(
        `${taken} is not empty (1 entries); choose a new directory or empty it; nothing was written`,
        "directory",
      ),
    );
    expect(readdirSync(taken)).toEqual(["notes.txt"]);
  });

  it("refuses a file in the way", () => {
    writeFileSync(join(work, "afile"), "");
    expect(() => scaffold("afile", work)).toThrow(
      `${join(work, "afile")} exists and is not a directory; nothing was written`,
    );
  });

  it("fills an empty directory, and . is the current one", () => {
    mkdirSync(join(work, "empty"));
    expect(scaffold(".", join(work, "empty")).name).toBe("empty");
  });

  it("refuses a name that cannot name a plugin, before writing anything", () => {
    expect(() => scaffold("My_Plugin", work)).toThrow(/^invalid plugin name "My_Plugin": use lowercase letters/);
    expect(readdirSync(work)).not.toContain("My_Plugin");
  });
});

describe("nameProblem", () => {
  it.each(["a", "my-plugin", "gpu2", "0-x"])("takes %s", (name) => expect(nameProblem(name)).toBeUndefined());
  it.each(["", "-a", "a-", "A", "a_b", "a.b", "@scope/a", "a b"])("refuses %j", (name) =>
    expect(nameProblem(name)).toMatch(/^invalid plugin name .*: use lowercase letters, digits and "-"/),
  );
  it("keeps nri-plugin-<name> within Kubernetes' 63 characters", () => {
    expect(nameProblem("a".repeat(52))).toBeUndefined();
    expect(nameProblem("a".repeat(53))).toBe(
      `invalid plugin name "${"a".repeat(53)}": at most 52 characters (Kubernetes allows 63 for the label "nri-plugin-${"a".repeat(53)}")`,
    );
  });
});
