/**
 * Renders kustomizations with `k8s-manifests` (tools/k8s-manifests: kustomize's
 * own library, then a strict decode into Kubernetes' API types), built once
 * with Go's build cache. Without Go the checks that need it are skipped with
 * a printed reason, unless NRI_CONFORMANCE=required (CI) makes that a failure.
 */
import { execFile } from "node:child_process";
import { join } from "node:path";
import { promisify } from "node:util";
import { ROOT } from "./workspace.js";

const run = promisify(execFile);
const moduleDir = join(ROOT, "tools", "k8s-manifests");

async function probeGo(): Promise<boolean> {
  try {
    await run("go", ["version"]);
    return true;
  } catch (error) {
    const reason = `Go not found (${(error as Error).message.split("\n")[0]})`;
    if (process.env.NRI_CONFORMANCE === "required") throw new Error(`${reason}, but NRI_CONFORMANCE=required`);
    console.warn(`deployment files: not rendering the kustomizations: ${reason}`);
    return false;
  }
}

export const haveGo = await probeGo();

let built: Promise<string> | undefined;

function binary(): Promise<string> {
  built ??= (async () => {
    const bin = join(moduleDir, "bin", "k8s-manifests");
    await run("go", ["build", "-o", bin, "."], { cwd: moduleDir });
    return bin;
  })();
  return built;
}

/** Each kustomization directory's resources, or the error kustomize or the decoder gave. */
export type Rendered = Record<string, { kind?: string }[] | { error: string }>;

export async function render(dirs: string[]): Promise<Rendered> {
  const bin = await binary();
  try {
    const { stdout } = await run(bin, dirs, { maxBuffer: 64 << 20 });
    return JSON.parse(stdout) as Rendered;
  } catch (error) {
    const stdout = (error as { stdout?: string }).stdout;
    if (stdout) return JSON.parse(stdout) as Rendered;
    throw error;
  }
}
