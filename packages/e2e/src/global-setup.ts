/**
 * vitest's global setup: decides whether this machine can run the suite
 * (skip with a reason, or fail under `NRI_E2E=required`), sweeps what
 * crashed runs left, builds (or finds cached) the tools, the images and the
 * Go logger, and hands them to the test files; for the Kubernetes tier
 * also Kubernetes, helm, the CNI plugins and our plugins' images. At the
 * end it sweeps again and prints the timings of every phase.
 */
import { mkdtempSync, rmSync } from "node:fs";
import { mkdir } from "node:fs/promises";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import type { TestProject } from "vitest/node";
import type { E2EContext } from "./context.js";
import { run } from "./exec.js";
import { busyboxImage, type ImageArchive, pauseImage } from "./images.js";
import type { K8sTools } from "./k8s/context.js";
import { deployedPlugins, pluginImages } from "./k8s/plugin-images.js";
import { buildK8sTools } from "./k8s/setup.js";
import { sweepAbandonedClusters } from "./k8s/sweep.js";
import { cacheDir, repoDir } from "./paths.js";
import { sweepAbandoned } from "./sweep.js";
import { selectedTiers } from "./tiers.js";
import { timed, timingsTable } from "./timings.js";
import { goEnv } from "./tools.js";
import { allSettled, buildToolset, goLimit, type Toolset } from "./toolset.js";
import { NEWEST, selectedLines } from "./versions.js";

/** Why the suite cannot run here, or undefined. */
async function skipReason(): Promise<string | undefined> {
  if (process.platform !== "linux") return `containerd needs Linux (this is ${process.platform})`;
  if (process.getuid?.() !== 0) return "containerd, runc, mounts and cgroups need root";
  for (const [tool, args, why] of [
    ["go", ["version"], "the tools are built with Go"],
    ["apt-get", ["--version"], "busybox-static and libseccomp-dev come from Debian's apt"],
    ["dpkg-deb", ["--version"], "Debian packages are unpacked with dpkg-deb"],
    ["gcc", ["--version"], "runc needs cgo"],
    // the Kubernetes tier's nodes: their namespaces, veth pairs and certificates
    ...(selectedTiers().includes("k8s")
      ? ([
          ["unshare", ["--version"], "a Kubernetes node gets mount and network namespaces of its own"],
          ["nsenter", ["--version"], "the kubelet and containerd enter the node's namespaces"],
          ["ip", ["-V"], "a veth pair joins a node's network namespace to the host"],
          ["openssl", ["version"], "the cluster's certificates are made with openssl"],
        ] as const)
      : []),
  ] as const) {
    try {
      await run(tool, args);
    } catch (error) {
      return `${tool} is missing (${why}): ${(error as Error).message.split("\n")[0]}`;
    }
  }
  return undefined;
}

export default async function setup(project: TestProject): Promise<() => void> {
  const runDir = mkdtempSync(join(tmpdir(), "nri-e2e-run-"));
  const timings = join(runDir, "timings.jsonl");
  process.env.NRI_E2E_TIMINGS = timings;
  const started = performance.now();
  const finish = () => {
    const swept = [...sweepAbandoned(), ...sweepAbandonedClusters()];
    if (swept.length > 0) console.warn(`e2e: swept runtimes left by crashed test files: ${swept.join(", ")}`);
    const total = ((performance.now() - started) / 1000).toFixed(1);
    console.log(`\ne2e timings (whole run ${total} s):\n${timingsTable(timings)}\n`);
    rmSync(runDir, { recursive: true, force: true });
  };

  const reason = await skipReason();
  if (reason) {
    if (process.env.NRI_E2E === "required") throw new Error(`e2e: cannot run: ${reason}, but NRI_E2E=required`);
    console.warn(`e2e: skipping every check: ${reason}`);
    project.provide("e2e", {
      skip: reason,
      lines: [],
      toolset: { containerd: {}, runc: "", crictl: "" },
      images: [],
      goLogger: "",
    });
    project.provide("e2eK8s", noK8s(reason));
    return () => rmSync(runDir, { recursive: true, force: true });
  }

  const swept = [...sweepAbandoned(), ...sweepAbandonedClusters()];
  if (swept.length > 0) console.warn(`e2e: swept runtimes of earlier runs: ${swept.join(", ")}`);

  const tiers = selectedTiers();
  const containerdTier = tiers.includes("containerd");
  const k8sTier = tiers.includes("k8s");
  const lines = containerdTier ? [...selectedLines()] : [];
  // the Kubernetes tier's node and the tests of one line only run the newest, whichever lines NRI_E2E_CONTAINERD names
  const built = (k8sTier || containerdTier) && !lines.includes(NEWEST) ? [NEWEST, ...lines] : lines;
  const [toolset, images, goLogger, k8sTools, plugins] = await timed("tools, images and the Go logger", () =>
    allSettled<unknown>([
      buildToolset(built),
      timed("images (pause, busybox)", () => allSettled([goLimit(() => pauseImage(runDir)), busyboxImage(runDir)])),
      containerdTier
        ? goLimit(() => timed("build the Go logger (conformance cmd/adaptation-plugin)", buildGoLogger))
        : Promise.resolve(""),
      k8sTier ? buildK8sTools() : Promise.resolve(undefined),
      k8sTier
        ? timed("images of the deployed plugins", () => pluginImages(deployedPlugins(), runDir))
        : Promise.resolve({ images: {}, bundle: "" }),
    ]),
  );
  const context: E2EContext = {
    lines,
    toolset: toolset as E2EContext["toolset"],
    images: images as E2EContext["images"],
    goLogger: goLogger as string,
  };
  project.provide("e2e", context);
  project.provide(
    "e2eK8s",
    k8sTier
      ? {
          ...(k8sTools as Pick<K8sTools, "kubernetes" | "helm" | "cni">),
          containerd: (toolset as Toolset).containerd[NEWEST.version] as string,
          runc: (toolset as Toolset).runc,
          crictl: (toolset as Toolset).crictl,
          images: images as ImageArchive[],
          pluginImages: (plugins as { images: K8sTools["pluginImages"] }).images,
          pluginBundle: (plugins as { bundle: string }).bundle,
        }
      : noK8s(`NRI_E2E_TIER=${tiers.join(",")} leaves it out`),
  );
  return finish;
}

function noK8s(skip: string): K8sTools {
  return {
    skip,
    kubernetes: "",
    helm: "",
    cni: "",
    containerd: "",
    runc: "",
    crictl: "",
    images: [],
    pluginImages: {},
    pluginBundle: "",
  };
}

/** Into the cache, so that an up-to-date binary is not linked again. */
async function buildGoLogger(): Promise<string> {
  const binary = join(cacheDir, "bin", "go-logger");
  await mkdir(dirname(binary), { recursive: true });
  await run("go", ["build", "-o", binary, "./cmd/adaptation-plugin"], {
    cwd: join(repoDir, "packages", "conformance"),
    env: goEnv(),
  });
  return binary;
}
