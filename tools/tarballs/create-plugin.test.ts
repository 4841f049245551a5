/**
 * `npm create @nri-ts/plugin` as a user runs it, from the packed tarballs:
 * the scaffolder in an empty directory, then the project it wrote installed
 * against our packed packages (they are not on the registry), built,
 * type-checked and tested with its own scripts, run in nri-sim, and its
 * deployment files checked against its program: the Dockerfile's sources
 * and entrypoint, the overlays rendered into Kubernetes' types.
 */
import { execFile } from "node:child_process";
import { existsSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { promisify } from "node:util";
import type { DaemonSet } from "kubernetes-types/apps/v1.js";
import { beforeAll, describe, expect, inject, it } from "vitest";
import { parseDockerfile } from "../src/dockerfile.js";
import { localChartValues, pluginDaemonSetProblems } from "../src/deployment.js";
import { helm, renderChart } from "../src/helm.js";
import { haveGo, render } from "../src/kustomize.js";
import { dependencyClosure } from "../src/pack.js";

const runFile = promisify(execFile);
const { tarballs, extracted, work } = inject("packed");
const NAME = "my-plugin";
const start = join(work, "create-here");
const project = join(start, NAME);

const { FORCE_COLOR: _, ...inherited } = process.env;
const env = { ...inherited, NO_COLOR: "1" };

function sh(cwd: string, command: string, ...args: string[]) {
  return runFile(command, args, { cwd, env, maxBuffer: 64 << 20 }).catch(
    (error: { code: number; stdout: string; stderr: string }) => {
      throw new Error(`${command} ${args.join(" ")} exited ${error.code}:\n${error.stdout}\n${error.stderr}`);
    },
  );
}
// npm's own flags first: what follows a command's arguments goes to the program npm exec and npm create run.
const npm = (cwd: string, ...args: string[]) => sh(cwd, "npm", "--no-audit", "--no-fund", "--prefer-offline", ...args);

const manifest = () =>
  JSON.parse(readFileSync(join(project, "package.json"), "utf8")) as Record<string, Record<string, string>>;
const packedVersion = (name: string) =>
  (JSON.parse(readFileSync(join(extracted[name]!, "package.json"), "utf8")) as { version: string }).version;

/** What the project depends on among our packages, as the scaffolder wrote it. */
let ours: Record<string, string> = {};
/** What npm said while installing the project. */
let installed = { stdout: "", stderr: "" };

beforeAll(async () => {
  mkdirSync(start, { recursive: true });
  // What `npm create @nri-ts/plugin my-plugin` does: npm exec of @nri-ts/create-plugin's bin.
  await npm(start, "exec", "--yes", `--package=${tarballs["@nri-ts/create-plugin"]!}`, "--", "create-plugin", NAME);
  const { dependencies, devDependencies } = manifest();
  ours = Object.fromEntries(
    Object.entries({ ...dependencies, ...devDependencies }).filter(([name]) => name.startsWith("@nri-ts/")),
  );
  // Our packages from their tarballs (with every one of ours they need), the rest from the registry.
  const packed = new Set(Object.keys(ours).flatMap(dependencyClosure));
  installed = await npm(project, "install", ...[...packed].map((name) => tarballs[name]!));
}, 600_000);

describe("npm create @nri-ts/plugin, from the tarballs", () => {
  it("is what npm create runs", async () => {
    const runner = join(work, "create-runner");
    mkdirSync(runner, { recursive: true });
    writeFileSync(join(runner, "package.json"), '{"name": "runner", "private": true}\n');
    // Installed here, so that npm finds @nri-ts/create-plugin without the registry.
    await npm(runner, "install", tarballs["@nri-ts/create-plugin"]!);
    const { stdout } = await npm(runner, "create", "@nri-ts/plugin", "other-plugin");
    expect(stdout).toContain("Created the NRI plugin other-plugin in other-plugin: 23 files.");
    expect(existsSync(join(runner, "other-plugin", "src", "plugin.ts"))).toBe(true);
  });

  it("wrote a project on the published versions of our packages", () => {
    expect(Object.keys(ours).sort()).toEqual(["@nri-ts/sim", "@nri-ts/stub"]);
    for (const [name, range] of Object.entries(ours)) expect(range, name).toBe(`^${packedVersion(name)}`);
  });

  it("installs without a warning about install scripts: the project decides on them as the repository does", () => {
    expect(installed.stderr).not.toContain("allowScripts");
  });

  it("keeps its program test green when the plugin's adjustment grows", async () => {
    const plugin = join(project, "src", "plugin.ts");
    const original = readFileSync(plugin, "utf8");
    const grown = original.replace(
      '{ key: "POD_NAME", value: pod.name }',
      '{ key: "POD_NAME", value: pod.name }, { key: "POD_NAMESPACE", value: pod.namespace }',
    );
    expect(grown).not.toBe(original);
    writeFileSync(plugin, grown);
    try {
      const { stdout } = await npm(project, "exec", "--", "vitest", "run", "src/main.test.ts");
      expect(stdout).toMatch(/Tests +2 passed/);
    } finally {
      writeFileSync(plugin, original);
    }
  });

  it("builds, type-checks and passes its own tests", async () => {
    await npm(project, "run", "build");
    expect(existsSync(join(project, "dist", "main.js"))).toBe(true);
    await npm(project, "run", "typecheck");
    const { stdout } = await npm(project, "test");
    expect(stdout).toMatch(/Test Files +2 passed/);
    expect(stdout).toMatch(/Tests +3 passed/);
  });

  it("runs in nri-sim with npm run sim, its scenario's expectations met", async () => {
    const { stdout } = await npm(project, "run", "sim");
    expect(stdout).toContain(`plugins: 10-${NAME} (module ./src/plugin.ts)`);
    expect(stdout).toMatch(new RegExp(`annotation example\\.com/seen-by=${NAME} +10-${NAME}`));
    expect(stdout).toMatch(/env POD_NAME=web +10-my-plugin/);
  });

  it("has a Dockerfile that copies files the project has and runs its program", () => {
    const text = readFileSync(join(project, "deploy", "Dockerfile"), "utf8");
    const image = parseDockerfile(text);
    expect(image).toMatchObject({
      from: "node:26-bookworm-slim",
      workdir: "/app",
      entrypoint: ["/usr/local/bin/node", "/app/dist/main.js"],
    });
    const sources = [...text.matchAll(/^COPY (?!--from)(.+)$/gm)].flatMap(([, args]) =>
      args!.trim().split(/\s+/).slice(0, -1),
    );
    expect(sources).toEqual(["package.json", "package-lock.json", "tsconfig.json", "tsconfig.build.json", "src"]);
    expect(sources.filter((source) => !existsSync(join(project, source)))).toEqual([]);
  });

  it.skipIf(!haveGo)(
    "has overlays that render a DaemonSet running its image with flags its program accepts",
    async () => {
      const overlays = {
        local: `localhost/nri-plugin-${NAME}:dev`,
        release: `registry.example.com/nri-plugin-${NAME}:0.1.0`,
      };
      const dirs = Object.keys(overlays).map((overlay) => join(project, "deploy/kustomize/overlays", overlay));
      const rendered = await render(dirs);
      for (const [overlay, image] of Object.entries(overlays)) {
        const resources = rendered[join(project, "deploy/kustomize/overlays", overlay)];
        if (!Array.isArray(resources)) throw new Error(`overlay ${overlay}: ${resources?.error ?? "not rendered"}`);
        expect(
          pluginDaemonSetProblems({ name: NAME, where: overlay, image, local: overlay === "local" }, resources),
        ).toEqual([]);
        const args = (resources[0] as DaemonSet).spec?.template.spec?.containers[0]?.args ?? [];
        const help = await sh(project, process.execPath, "dist/main.js", ...args, "-h");
        expect(help.stderr).toContain(`Usage of nri-${NAME}:`);
      }
    },
  );

  it.skipIf(!haveGo)(
    "has a Helm chart that lints and renders the same DaemonSet, for the local image and for the release's",
    async () => {
      const chart = join(project, "deploy/helm");
      const images = {
        local: [`localhost/nri-plugin-${NAME}:dev`, localChartValues(NAME)],
        release: [`registry.example.com/nri-plugin-${NAME}:0.1.0`, []],
      } as const;
      for (const [overlay, [image, values]] of Object.entries(images)) {
        await helm(["lint", "--strict", chart, ...values]);
        const resources = await renderChart(chart, `nri-plugin-${NAME}`, "kube-system", values);
        expect(
          pluginDaemonSetProblems(
            { name: NAME, where: `chart, ${overlay}`, image, local: overlay === "local" },
            resources,
          ),
        ).toEqual([]);
        const args = (resources.find((r) => r.kind === "DaemonSet") as DaemonSet).spec?.template.spec?.containers[0]
          ?.args;
        const help = await sh(project, process.execPath, "dist/main.js", ...(args ?? []), "-h");
        expect(help.stderr).toContain(`Usage of nri-${NAME}:`);
      }
    },
    600_000,
  );
});
