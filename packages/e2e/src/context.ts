/**
 * What the global setup hands the test files (through vitest's
 * provide/inject), and `describeE2E`, which skips a suite with the printed
 * reason where the suite cannot run (not Linux, not root, no Go).
 */
import { describe, inject } from "vitest";
import type { ImageArchive } from "./images.js";
import type { Toolset } from "./toolset.js";
import type { ContainerdLine } from "./versions.js";

export interface E2EContext {
  /** Why this machine cannot run the suite; unset when it can. */
  skip?: string;
  /** The containerd lines of this run (all, or those `NRI_E2E_CONTAINERD` names). */
  lines: ContainerdLine[];
  toolset: Toolset;
  /** Imported into every runtime: the pause and the busybox image. */
  images: ImageArchive[];
  /** The Go logger: `cmd/adaptation-plugin` of packages/conformance, on upstream's pkg/stub. */
  goLogger: string;
}

declare module "vitest" {
  export interface ProvidedContext {
    e2e: E2EContext;
  }
}

export function e2eContext(): E2EContext {
  return inject("e2e");
}

/** `describe`, or `describe.skip` with the reason printed when the machine cannot run the suite. */
export function describeE2E(name: string, body: () => void): void {
  const { skip } = e2eContext();
  if (skip) console.warn(`e2e: skipping ${name}: ${skip}`);
  (skip ? describe.skip : describe)(name, body);
}

/** One `describeE2E` per containerd line of the run, named after its version. */
export function describeEachLine(name: string, body: (line: ContainerdLine) => void): void {
  const { lines } = e2eContext();
  for (const line of lines) describeE2E(`${name} (containerd ${line.version})`, () => body(line));
}
