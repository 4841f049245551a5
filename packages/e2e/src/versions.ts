/**
 * Every upstream version the suite runs, pinned. containerd lines stand for
 * the two NRI protocol generations: from NRI v0.12 on (containerd 2.4, and
 * 2.3 with v0.12.0) each event has its own RPC and containers carry their
 * status; before it
 * (containerd 2.2 with NRI v0.11, 2.1 with v0.8) nine events arrive only
 * through StateChange and no status field is filled.
 */

export interface ContainerdLine {
  /** The module version built with `go install`. */
  version: string;
  /** The NRI module its go.mod requires. */
  nri: string;
  /** The config file format it reads: 4 from containerd 2.3 on, 3 before. */
  configVersion: 3 | 4;
  /** Fills Container fields 14-17 (created, started, finished, exit code): from containerd 2.3 on. */
  statusFields: boolean;
  /**
   * Knows UpdatePodSandbox, PostUpdatePodSandbox and
   * ValidateContainerAdjustment (NRI v0.10 on). A runtime without them
   * refuses a plugin that subscribes to them ("invalid plugin events"), Go
   * plugins included.
   */
  podUpdatesAndValidation: boolean;
}

export const CONTAINERD_LINES: readonly ContainerdLine[] = [
  { version: "v2.4.2", nri: "v0.12.3", configVersion: 4, statusFields: true, podUpdatesAndValidation: true },
  { version: "v2.3.7", nri: "v0.12.0", configVersion: 4, statusFields: true, podUpdatesAndValidation: true },
  { version: "v2.2.9", nri: "v0.11.0", configVersion: 3, statusFields: false, podUpdatesAndValidation: true },
  { version: "v2.1.9", nri: "v0.8.0", configVersion: 3, statusFields: false, podUpdatesAndValidation: false },
];

/** The newest line: the default for every check. */
export const NEWEST = CONTAINERD_LINES[0];

export const RUNC_VERSION = "v1.5.3";
export const CRICTL_VERSION = "v1.37.0";

/**
 * The Kubernetes tier: etcd, kube-apiserver, kube-controller-manager,
 * kube-scheduler, kubelet and kubectl of one release (`kubernetes/go.mod`
 * pins it, and etcd at the version it selects), helm, and the CNI plugins
 * that give pods their network. The node runs the newest containerd line.
 */
export const KUBERNETES_VERSION = "v1.37.2";
export const HELM_VERSION = "v4.3.2";
export const CNI_PLUGINS_VERSION = "v1.10.0";

/**
 * The lines this run covers: `NRI_E2E_CONTAINERD` (comma-separated versions,
 * e.g. `v2.4.2`) narrows them for a quick local run; default all.
 */
export function selectedLines(): readonly ContainerdLine[] {
  const wanted = (process.env.NRI_E2E_CONTAINERD ?? "")
    .split(",")
    .map((v) => v.trim())
    .filter(Boolean);
  if (wanted.length === 0) return CONTAINERD_LINES;
  const unknown = wanted.filter((v) => !CONTAINERD_LINES.some((line) => line.version === v));
  if (unknown.length > 0) {
    const known = CONTAINERD_LINES.map((line) => line.version).join(", ");
    throw new Error(`NRI_E2E_CONTAINERD names unknown versions ${unknown.join(", ")} (known: ${known})`);
  }
  return CONTAINERD_LINES.filter((line) => wanted.includes(line.version));
}

/** The events NRI v0.8 knows: what a logger on a line without the newer ones subscribes to. */
const V08_EVENTS = [
  "RunPodSandbox",
  "StopPodSandbox",
  "RemovePodSandbox",
  "CreateContainer",
  "PostCreateContainer",
  "StartContainer",
  "PostStartContainer",
  "UpdateContainer",
  "PostUpdateContainer",
  "StopContainer",
  "RemoveContainer",
];

/** A `-events` value for a plugin that wants every event the line sends, or undefined for "all". */
export function everyEventOf(line: ContainerdLine): string | undefined {
  return line.podUpdatesAndValidation ? undefined : V08_EVENTS.join(",");
}
