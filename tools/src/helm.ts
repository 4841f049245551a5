/**
 * Helm charts, checked as `helm lint --strict` and `helm template` see
 * them: helm is a `tool` of tools/k8s-manifests' go.mod (`go tool helm`,
 * built once with Go's cache), and what it renders is decoded strictly
 * into Kubernetes' types by `k8s-manifests`, as the kustomizations are.
 * Without Go these checks are skipped (kustomize.ts says why).
 */
import { execFile } from "node:child_process";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { promisify } from "node:util";
import { render } from "./kustomize.js";
import { ROOT } from "./workspace.js";

const run = promisify(execFile);
const moduleDir = join(ROOT, "tools", "k8s-manifests");

/** Runs helm with its configuration and cache in a directory of its own; resolves to its stdout, or fails with its output. */
export async function helm(args: readonly string[]): Promise<string> {
  const home = mkdtempSync(join(tmpdir(), "nri-helm-"));
  try {
    const { stdout } = await run("go", ["tool", "helm", ...args], {
      cwd: moduleDir,
      maxBuffer: 64 << 20,
      env: {
        ...process.env,
        HELM_CONFIG_HOME: join(home, "config"),
        HELM_CACHE_HOME: join(home, "cache"),
        HELM_DATA_HOME: join(home, "data"),
      },
    });
    return stdout;
  } catch (error) {
    const { stdout = "", stderr = "" } = error as { stdout?: string; stderr?: string };
    throw new Error(`helm ${args.join(" ")} failed: ${`${stdout}\n${stderr}`.trim()}`);
  } finally {
    rmSync(home, { recursive: true, force: true });
  }
}

/**
 * `helm template <release> <chart> -n <namespace> <flags>`, decoded strictly:
 * the resources, or the error helm, kustomize or the decoder gave.
 */
export async function renderChart(
  chart: string,
  release: string,
  namespace: string,
  flags: readonly string[] = [],
): Promise<{ kind?: string }[]> {
  const manifest = await helm(["template", release, chart, "-n", namespace, ...flags]);
  const dir = mkdtempSync(join(tmpdir(), "nri-chart-"));
  try {
    writeFileSync(join(dir, "rendered.yaml"), manifest);
    writeFileSync(join(dir, "kustomization.yaml"), "resources:\n  - rendered.yaml\n");
    const resources = (await render([dir]))[dir];
    if (!Array.isArray(resources)) throw new Error(`${chart}: ${resources?.error ?? "not rendered"}`);
    return resources;
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}
