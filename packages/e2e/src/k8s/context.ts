/**
 * What the global setup hands the Kubernetes tier's test files, and
 * `describeK8s`, which skips a suite with the printed reason where the
 * tier cannot run (not Linux, not root, no Go, or another tier chosen).
 */
import { describe, inject } from "vitest";
import type { ImageArchive } from "../images.js";

/** A plugin's image, imported under its own name and tagged as the plugin's local overlay names it. */
export interface PluginImage extends ImageArchive {
  /** `localhost/nri-plugin-<name>:dev`, the image of `deploy/kustomize/overlays/local`. */
  tag: string;
}

export interface K8sTools {
  /** Why this run has no Kubernetes tier; unset when it has. */
  skip?: string;
  /** The directory of etcd, kube-apiserver, kube-controller-manager, kube-scheduler, kubelet and kubectl. */
  kubernetes: string;
  helm: string;
  /** The directory of the CNI plugins bridge, host-local and loopback. */
  cni: string;
  /** The directory of containerd, ctr and the shim (the newest line). */
  containerd: string;
  runc: string;
  crictl: string;
  /** Imported into every node: the pause and the busybox image. */
  images: ImageArchive[];
  /** Per plugin (`logger`, ...), its image. */
  pluginImages: Record<string, PluginImage>;
  /** One archive with every plugin's image, imported into each node at once. */
  pluginBundle: string;
}

declare module "vitest" {
  export interface ProvidedContext {
    e2eK8s: K8sTools;
  }
}

export function k8sContext(): K8sTools {
  return inject("e2eK8s");
}

/** `describe`, or `describe.skip` with the reason printed when this run has no Kubernetes tier. */
export function describeK8s(name: string, body: () => void): void {
  const { skip } = k8sContext();
  if (skip) console.warn(`e2e: skipping ${name}: ${skip}`);
  (skip ? describe.skip : describe)(name, body);
}
