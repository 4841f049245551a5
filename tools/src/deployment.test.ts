import { execFile } from "node:child_process";
import { cpSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { promisify } from "node:util";
import type { DaemonSet } from "kubernetes-types/apps/v1.js";
import type { ConfigMap } from "kubernetes-types/core/v1.js";
import type { ClusterRole } from "kubernetes-types/rbac/v1.js";
import { apiAccessProblems } from "./api-access.js";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  CHART_DIR,
  chartProblems,
  daemonSetProblems,
  dockerfileProblems,
  flagValue,
  hasChart,
  imageFor,
  isPlugin,
  localChartValues,
  missingDeployFiles,
  OVERLAYS,
  pluginDaemonSetProblems,
  pluginName,
  programFile,
  readmeDeployProblems,
} from "./deployment.js";
import { helm, renderChart } from "./helm.js";
import { haveGo, render, type Rendered } from "./kustomize.js";
import { publicPackages, type WorkspacePackage } from "./workspace.js";

const run = promisify(execFile);
const plugins = publicPackages().filter(isPlugin);
const overlayDir = (pkg: WorkspacePackage, overlay: string) => join(pkg.dir, "deploy/kustomize/overlays", overlay);

let rendered: Rendered = {};
beforeAll(async () => {
  if (!haveGo) return;
  const dirs = plugins
    .filter((pkg) => missingDeployFiles(pkg).length === 0)
    .flatMap((pkg) => OVERLAYS.map((o) => overlayDir(pkg, o)));
  rendered = await render(dirs);
}, 600_000);

/** Runs the plugin's program from its sources with the DaemonSet's arguments and -h: Go's flag parsing reaches -h only if every flag before it is known. */
async function acceptsFlags(pkg: WorkspacePackage, args: string[]): Promise<string | undefined> {
  const source = join(
    pkg.dir,
    programFile(pkg)!
      .replace(/^dist\//, "src/")
      .replace(/\.js$/, ".ts"),
  );
  try {
    await run(process.execPath, ["--conditions=@nri-ts/source", "--import", "tsx", source, ...args, "-h"], {
      cwd: pkg.dir,
    });
    return undefined;
  } catch (error) {
    return `${pkg.path}: the DaemonSet's args ${JSON.stringify(args)} are refused by ${programFile(pkg)}: ${(error as { stderr?: string }).stderr?.split("\n")[0]}`;
  }
}

describe("deployment files of every plugin (CONTRIBUTING.md)", () => {
  it("finds the plugins", () => {
    expect(plugins.map((pkg) => pkg.path)).toEqual(
      expect.arrayContaining(["packages/plugins/logger", "packages/plugins/template"]),
    );
  });

  describe.each(plugins.map((pkg) => [pkg.path, pkg] as const))("%s", (_, pkg) => {
    it("has its deployment files and the README says how to use them", () => {
      const missing = missingDeployFiles(pkg);
      expect(missing).toEqual([]);
      expect([...dockerfileProblems(pkg), ...readmeDeployProblems(pkg)]).toEqual([]);
    });

    it.skipIf(!haveGo).each(OVERLAYS)(
      "overlay %s renders a DaemonSet that runs the image with flags it accepts",
      async (overlay) => {
        const resources = rendered[overlayDir(pkg, overlay)];
        expect(resources, "not rendered: deployment files missing").toBeDefined();
        if (!Array.isArray(resources)) throw new Error(`${pkg.path} overlay ${overlay}: ${resources!.error}`);
        expect(daemonSetProblems(pkg, overlay, resources)).toEqual([]);
        const set = resources.find((resource) => resource.kind === "DaemonSet") as DaemonSet;
        const args = set.spec?.template.spec?.containers[0]?.args ?? [];
        expect(await acceptsFlags(pkg, args)).toBeUndefined();
      },
      60_000,
    );

    it.runIf(haveGo && hasChart(pkg))(
      "its Helm chart lints, and renders the DaemonSet of each overlay with flags the program accepts",
      async () => {
        expect(chartProblems(pkg)).toEqual([]);
        const chart = join(pkg.dir, CHART_DIR);
        const name = pluginName(pkg);
        for (const overlay of OVERLAYS) {
          const values = overlay === "local" ? localChartValues(name) : [];
          await helm(["lint", "--strict", chart, ...values]);
          const resources = await renderChart(chart, `nri-plugin-${name}`, "kube-system", values);
          const image = imageFor(name, overlay, pkg.manifest.version ?? "");
          const where = `${pkg.path}/${CHART_DIR} (${overlay === "local" ? "the local image's values" : "its values"})`;
          expect(pluginDaemonSetProblems({ name, where, image, local: overlay === "local" }, resources)).toEqual([]);
          const set = resources.find((resource) => resource.kind === "DaemonSet") as DaemonSet;
          expect(await acceptsFlags(pkg, set.spec?.template.spec?.containers[0]?.args ?? [])).toBeUndefined();
        }
      },
      600_000,
    );
  });
});

describe("Helm charts", () => {
  it("the exit-reporter and the template have one", () => {
    expect(plugins.filter(hasChart).map((pkg) => pkg.path)).toEqual(
      expect.arrayContaining(["packages/plugins/exit-reporter", "packages/plugins/template"]),
    );
  });
});

describe("the exit reporter's access to the API server (its Kubernetes output)", () => {
  const reporter = plugins.find((pkg) => pkg.path === "packages/plugins/exit-reporter")!;
  const wanted = (where: string, resources: { kind?: string }[]) => {
    const config =
      (resources.find((r) => r.kind === "ConfigMap") as ConfigMap | undefined)?.data?.["config.yaml"] ?? "";
    const annotations = /podAnnotations:\s*true/.test(config);
    const podStatus = !/oomFromPodStatus:\s*false/.test(config);
    return {
      where,
      config,
      grants: [
        "create events.k8s.io/events",
        "patch events.k8s.io/events",
        ...(podStatus ? ["get /pods"] : []),
        ...(annotations ? ["patch /pods"] : []),
      ],
      nodeNameEnv: "NODE_NAME",
    };
  };

  it.skipIf(!haveGo).each(OVERLAYS)(
    "overlay %s: its own ServiceAccount, bound to a ClusterRole that may create and patch Events, read pods and no more, the node's name from the downward API, the output on",
    (overlay) => {
      const resources = rendered[overlayDir(reporter, overlay)];
      if (!Array.isArray(resources)) throw new Error(`not rendered: ${JSON.stringify(resources)}`);
      const access = wanted(overlayDir(reporter, overlay), resources);
      expect(access.config).toMatch(/^kubernetes:/m);
      expect(apiAccessProblems(access, resources)).toEqual([]);
    },
  );

  it.skipIf(!haveGo)("name a role that grants more, a missing binding and a node name typed in", () => {
    const resources = structuredClone(rendered[overlayDir(reporter, "local")]) as { kind?: string }[];
    const role = resources.find((r) => r.kind === "ClusterRole") as ClusterRole;
    role.rules = [...(role.rules ?? []), { apiGroups: [""], resources: ["secrets"], verbs: ["get"] }];
    const set = resources.find((r) => r.kind === "DaemonSet") as DaemonSet;
    set.spec!.template.spec!.containers[0]!.env = [{ name: "NODE_NAME", value: "node-1" }];
    const where = "overlay";
    expect(apiAccessProblems({ ...wanted(where, resources), where }, resources)).toEqual([
      "overlay: the ClusterRole grants more than the plugin needs: get /secrets",
      "overlay: NODE_NAME must come from the downward API (valueFrom.fieldRef.fieldPath: spec.nodeName)",
    ]);
    const unbound = resources.filter((r) => r.kind !== "ClusterRoleBinding");
    expect(apiAccessProblems({ ...wanted(where, unbound), where }, unbound)).toContain(
      "overlay: no ClusterRoleBinding binds the ServiceAccount kube-system/nri-plugin-exit-reporter",
    );
  });
});

describe("the checks themselves", () => {
  const logger = plugins.find((pkg) => pkg.path === "packages/plugins/logger")!;
  const work = mkdtempSync(join(tmpdir(), "nri-deploy-"));
  afterAll(() => rmSync(work, { recursive: true, force: true }));

  it("name a plugin without deployment files, with the fix", () => {
    const bare = {
      ...logger,
      dir: work,
      path: "packages/plugins/new",
      manifest: { ...logger.manifest, name: "@nri-ts/plugin-new" },
    };
    expect(missingDeployFiles(bare)[0]).toBe(
      'packages/plugins/new/deploy/Dockerfile is missing: every plugin ships deployment files (CONTRIBUTING.md, "Reference plugins"); copy packages/plugins/logger/deploy and replace "logger" with "new"',
    );
  });

  it.skipIf(!haveGo)(
    "refuse an unknown field, as Kubernetes' types decode strictly",
    async () => {
      const copy = join(work, "deploy");
      cpSync(join(logger.dir, "deploy"), copy, { recursive: true });
      const daemonSet = join(copy, "kustomize/base/daemonset.yaml");
      writeFileSync(daemonSet, readFileSync(daemonSet, "utf8").replace("volumeMounts:", "volumeMount:"));
      const result = await render([join(copy, "kustomize/overlays/local")]);
      expect(Object.values(result)[0]).toEqual({
        error:
          'DaemonSet nri-plugin-logger: error unmarshaling JSON: while decoding JSON: json: unknown field "volumeMount"',
      });
    },
    600_000,
  );

  it("see a socket mounted where the plugin does not connect", () => {
    const resources = rendered[overlayDir(logger, "local")];
    if (!Array.isArray(resources)) return;
    const set = structuredClone(resources[0]) as DaemonSet;
    set.spec!.template.spec!.containers[0]!.args = ["-idx", "10", "-socket-path", "/run/nri.sock"];
    expect(daemonSetProblems(logger, "local", [set])).toEqual([
      "packages/plugins/logger/deploy/kustomize/overlays/local: the plugin connects to /run/nri.sock: mount the host's /var/run/nri/nri.sock (hostPath, type Socket) there",
    ]);
  });

  it("read Go-style flags", () => {
    expect(flagValue(["-idx", "10", "--socket=/s"], ["socket"])).toBe("/s");
    expect(flagValue(["-socket-path", "/p"], ["socket", "socket-path"])).toBe("/p");
    expect(flagValue(["-idx", "10"], ["socket"])).toBeUndefined();
  });
});
