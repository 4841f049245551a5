/**
 * Everything the runs need from Go, built in one go: one containerd per
 * selected line, runc and crictl, at most two `go` commands at a time (on
 * two cores one compiles while the other downloads), the biggest first.
 */
import { join } from "node:path";
import { debianPackage } from "./debs.js";
import { buildTool, containerdTool, crictlTool, limiter, prefetchTool, runcTool } from "./tools.js";
import type { ContainerdLine } from "./versions.js";

export interface Toolset {
  /** Per containerd version, the directory holding containerd, ctr and containerd-shim-runc-v2. */
  containerd: Record<string, string>;
  runc: string;
  crictl: string;
}

export const goLimit = limiter(2);

/** Settles every promise before failing with the first error: no build is left running unattended. */
export async function allSettled<T>(promises: readonly Promise<T>[]): Promise<T[]> {
  const results = await Promise.allSettled(promises);
  const failed = results.find((result): result is PromiseRejectedResult => result.status === "rejected");
  if (failed) throw failed.reason;
  return results.map((result) => (result as PromiseFulfilledResult<T>).value);
}

export async function buildToolset(lines: readonly ContainerdLine[]): Promise<Toolset> {
  // the first line (the newest) is the longest build: it starts first
  const [first, ...rest] = lines.map(containerdTool);
  const [containerd, runc, crictl, ...older] = await allSettled(
    [first, runcTool, crictlTool, ...rest].map((tool) => buildTool(tool, goLimit)),
  );
  const bins = [containerd, ...older];
  return {
    containerd: Object.fromEntries(lines.map((line, i) => [line.version, bins[i]])),
    runc: join(runc, "runc"),
    crictl: join(crictl, "crictl"),
  };
}

/** Downloads every tool's modules and Debian packages, all at once (network-bound, so no limit). */
export async function prefetchToolset(lines: readonly ContainerdLine[]): Promise<void> {
  await allSettled<unknown>([
    ...[...lines.map(containerdTool), runcTool, crictlTool].map(prefetchTool),
    debianPackage("libseccomp-dev"),
    debianPackage("busybox-static"),
  ]);
}
