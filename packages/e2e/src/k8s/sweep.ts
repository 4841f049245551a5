/**
 * Teardown of a cluster's directory, live or left by a crashed run; one
 * synchronous procedure, so that it also runs from an exit handler.
 *
 * Everything a node mounts lives in its own mount namespace (node.ts), so
 * nothing is to be unmounted on the host: once no process is left in the
 * namespaces, the kernel drops them with their mounts and the veth pair.
 * So the sweep ends processes: the recorded daemons (kubelet first, so
 * that it starts nothing again, then containerd, the forwarders, the
 * namespace holder), the shims (their command line names the node's
 * directory), and every process left in the node's cgroups (pause and the
 * containers); then it removes the cgroups, deepest first, a veth that
 * survived, and the directory. The control plane's daemons go the same way.
 *
 * `<cluster>/cluster.json` names the process that owns the directory, so
 * that a sweep never touches a live run's.
 */
import { existsSync, readdirSync, readFileSync, rmdirSync, rmSync, statSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { runSync } from "../exec.js";
import { alive, commandLine, processesMentioning, signal, startTime, waitGone } from "../procs.js";

/** Where the clusters' directories are: short, for the unix socket paths below them. */
export const clusterRoot = "/tmp/nri-k8s";

export interface NodeRecord {
  name: string;
  base: string;
  /** The kubelet's `cgroupRoot`, e.g. `/nri-k8s-k-abc123-n1`. */
  cgroupRoot: string;
  /** The host's end of the node's veth pair. */
  hostVeth: string;
  /** The pid of the process that holds the node's namespaces. */
  holder?: number;
}

export interface ClusterRecord {
  owner: { pid: number; start: string };
  nodes: NodeRecord[];
}

export function writeClusterRecord(dir: string, record: ClusterRecord): void {
  writeFileSync(join(dir, "cluster.json"), JSON.stringify(record, null, 2));
}

function readJson<T>(file: string): T | undefined {
  try {
    return JSON.parse(readFileSync(file, "utf8")) as T;
  } catch {
    return undefined;
  }
}

/** The live processes recorded in `<dir>/pids` (pid and start time), in the order they were started. */
function recordedPids(dir: string): number[] {
  const pids = join(dir, "pids");
  if (!existsSync(pids)) return [];
  return readdirSync(pids)
    .map((entry) => ({
      pid: Number(entry),
      start: readFileSync(join(pids, entry), "utf8"),
      at: statSync(join(pids, entry)).mtimeMs,
    }))
    .filter(({ pid, start }) => alive(pid) && (start === "" || startTime(pid) === start))
    .sort((a, b) => a.at - b.at)
    .map(({ pid }) => pid);
}

function kill(pids: readonly number[]): void {
  for (const pid of pids) signal(pid, "SIGKILL");
  for (const pid of pids) waitGone(pid, 5_000);
}

/** Every process in the cgroup tree below `root`, in any hierarchy. */
function cgroupProcesses(root: string): number[] {
  const found = new Set<number>();
  const visit = (dir: string) => {
    if (!existsSync(dir)) return;
    try {
      for (const line of readFileSync(join(dir, "cgroup.procs"), "utf8").split("\n")) if (line) found.add(Number(line));
    } catch {
      // a cgroup being removed
    }
    for (const entry of readdirSync(dir, { withFileTypes: true }))
      if (entry.isDirectory()) visit(join(dir, entry.name));
  };
  for (const hierarchy of readdirSync("/sys/fs/cgroup")) visit(join("/sys/fs/cgroup", hierarchy, root));
  return [...found].filter(alive);
}

function removeCgroupTree(root: string): void {
  const remove = (dir: string) => {
    if (!existsSync(dir)) return;
    for (const entry of readdirSync(dir, { withFileTypes: true }))
      if (entry.isDirectory()) remove(join(dir, entry.name));
    try {
      rmdirSync(dir);
    } catch (error) {
      console.warn(`e2e: could not remove cgroup ${dir}: ${(error as Error).message}`);
    }
  };
  for (const hierarchy of readdirSync("/sys/fs/cgroup")) remove(join("/sys/fs/cgroup", hierarchy, root));
}

/** Ends whatever of the node still runs and removes its cgroups, veth and directory. */
export function sweepNode(record: NodeRecord): void {
  const { base } = record;
  // the kubelet first: it would start pods again
  const kubelets = recordedPids(base).filter((pid) => commandLine(pid).some((arg) => arg.endsWith("/kubelet")));
  kill(kubelets);
  kill(recordedPids(base));
  if (record.holder !== undefined && alive(record.holder) && commandLine(record.holder)[0] === "sleep") {
    kill([record.holder]);
  }
  for (let round = 0; round < 3; round++) {
    const left = [...processesMentioning(base), ...cgroupProcesses(record.cgroupRoot)];
    if (left.length === 0) break;
    kill(left);
  }
  removeCgroupTree(record.cgroupRoot);
  try {
    runSync("ip", ["link", "del", record.hostVeth]);
  } catch {
    // gone with the node's network namespace, as it should be
  }
  rmSync(base, { recursive: true, force: true });
}

/** Ends the cluster's control plane and nodes and removes its directory. */
export function sweepCluster(dir: string): void {
  const record = readJson<ClusterRecord>(join(dir, "cluster.json"));
  for (const node of record?.nodes ?? []) {
    sweepNode({ ...node, holder: readJson<NodeRecord>(join(node.base, "node.json"))?.holder ?? node.holder });
  }
  kill(recordedPids(dir).reverse());
  kill(processesMentioning(dir));
  rmSync(dir, { recursive: true, force: true });
}

/** Sweeps every cluster whose owning process is gone (a crashed or killed run). */
export function sweepAbandonedClusters(): string[] {
  if (!existsSync(clusterRoot)) return [];
  const swept: string[] = [];
  for (const entry of readdirSync(clusterRoot)) {
    const dir = join(clusterRoot, entry);
    const record = readJson<ClusterRecord>(join(dir, "cluster.json"));
    if (record && alive(record.owner.pid) && startTime(record.owner.pid) === record.owner.start) continue;
    if (!record && Date.now() - statSync(dir).mtimeMs < 60_000) continue; // being created right now
    sweepCluster(dir);
    swept.push(dir);
  }
  return swept;
}
