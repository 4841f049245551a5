/**
 * vitest's global setup: decides whether this machine can run the suite
 * (skip with a reason, or fail under `NRI_E2E=required`), sweeps what
 * crashed runs left, builds (or finds cached) the tools, the images and the
 * Go logger, and hands them to the test files. At the end it sweeps again
 * and prints the timings of every phase.
 */
import { mkdtempSync, rmSync } from "node:fs";
import { mkdir } from "node:fs/promises";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import type { TestProject } from "vitest/node";
import type { E2EContext } from "./context.js";
import { run } from "./exec.js";
import { busyboxImage, pauseImage } from "./images.js";
import { cacheDir, repoDir } from "./paths.js";
import { sweepAbandoned } from "./sweep.js";
import { timed, timingsTable } from "./timings.js";
import { goEnv } from "./tools.js";
import { allSettled, buildToolset, goLimit } from "./toolset.js";
import { selectedLines } from "./versions.js";

/** Why the suite cannot run here, or undefined. */
async function skipReason(): Promise<string | undefined> {
  if (process.platform !== "linux") return `containerd needs Linux (this is ${process.platform})`;
  if (process.getuid?.() !== 0) return "containerd, runc, mounts and cgroups need root";
  for (const [tool, args, why] of [
    ["go", ["version"], "the tools are built with Go"],
    ["apt-get", ["--version"], "busybox-static and libseccomp-dev come from Debian's apt"],
    ["dpkg-deb", ["--version"], "Debian packages are unpacked with dpkg-deb"],
    ["gcc", ["--version"], "runc needs cgo"],
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
    const swept = sweepAbandoned();
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
    return () => rmSync(runDir, { recursive: true, force: true });
  }

  const swept = sweepAbandoned();
  if (swept.length > 0) console.warn(`e2e: swept runtimes of earlier runs: ${swept.join(", ")}`);

  const lines = [...selectedLines()];
  const [toolset, images, goLogger] = await timed("tools, images and the Go logger", () =>
    allSettled<unknown>([
      buildToolset(lines),
      timed("images (pause, busybox)", () => allSettled([goLimit(() => pauseImage(runDir)), busyboxImage(runDir)])),
      goLimit(() => timed("build the Go logger (conformance cmd/adaptation-plugin)", buildGoLogger)),
    ]),
  );
  const context: E2EContext = {
    lines,
    toolset: toolset as E2EContext["toolset"],
    images: images as E2EContext["images"],
    goLogger: goLogger as string,
  };
  project.provide("e2e", context);
  return finish;
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
