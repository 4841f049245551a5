/**
 * A Kubernetes cluster of our own: the control plane on loopback and one
 * or more nodes, each a kubelet with the suite's containerd (node.ts), all
 * below one directory of /tmp/nri-k8s.
 *
 * ```ts
 * let cluster: Cluster;
 * beforeAll(async () => {
 *   cluster = await Cluster.start({ label: "my-test" });
 * });
 * afterAll(() => cluster?.teardown());
 * ```
 *
 * The teardown is synchronous and also runs from an exit handler; what a
 * killed process leaves is swept by the next run's global setup.
 */
import { mkdirSync, mkdtempSync } from "node:fs";
import { basename, join } from "node:path";
import type { NriSettings } from "../config.js";
import { startTime } from "../procs.js";
import { recordPhase } from "../timings.js";
import { allSettled } from "../toolset.js";
import { k8sContext } from "./context.js";
import { ControlPlane } from "./control-plane.js";
import type { Kubectl } from "./kubectl.js";
import { KubeNode } from "./node.js";
import { clusterRoot, type NodeRecord, sweepCluster, writeClusterRecord } from "./sweep.js";

export interface ClusterOptions {
  /** Names the cluster in timings and logs. */
  label: string;
  /** How many nodes; default 1. */
  nodes?: number;
  /** containerd's NRI timeouts. */
  nri?: NriSettings;
}

export class Cluster {
  readonly nodes: KubeNode[] = [];
  #torn = false;
  readonly #onExit = () => this.teardown();

  private constructor(
    readonly label: string,
    readonly dir: string,
    readonly plane: ControlPlane,
  ) {}

  get kubectl(): Kubectl {
    return this.plane.kubectl;
  }

  static async start(options: ClusterOptions): Promise<Cluster> {
    const tools = k8sContext();
    const label = `k8s ${options.label}`;
    mkdirSync(clusterRoot, { recursive: true });
    const dir = mkdtempSync(join(clusterRoot, "k-"));
    const names = Array.from({ length: options.nodes ?? 1 }, (_, i) => `node-${i + 1}`);
    const records: NodeRecord[] = names.map((name, i) => ({
      name,
      base: join(dir, `n${i + 1}`),
      cgroupRoot: `/nri-k8s-${basename(dir)}-n${i + 1}`,
      hostVeth: `nk${basename(dir).slice(2)}n${i + 1}`,
    }));
    writeClusterRecord(dir, { owner: { pid: process.pid, start: startTime(process.pid) ?? "" }, nodes: records });
    let cluster: Cluster | undefined;
    const onExit = () => sweepCluster(dir);
    process.on("exit", onExit);
    try {
      const plane = await ControlPlane.start(dir, tools.kubernetes, names, label);
      cluster = new Cluster(label, dir, plane);
      process.off("exit", onExit);
      process.on("exit", cluster.#onExit);
      const started = cluster;
      await allSettled(
        records.map(async (record, i) => {
          started.nodes[i] = await KubeNode.start(
            plane,
            tools,
            { record, podSubnet: `10.88.${i + 1}`, nri: options.nri },
            label,
          );
        }),
      );
    } catch (error) {
      if (cluster) cluster.teardown();
      else {
        process.off("exit", onExit);
        sweepCluster(dir);
      }
      throw error;
    }
    return cluster;
  }

  /** The node named `name`. */
  node(name: string): KubeNode {
    const node = this.nodes.find((candidate) => candidate.name === name);
    if (!node) throw new Error(`no node ${name} in ${this.label}`);
    return node;
  }

  /** Nodes first (their kubelets need the API server to go cleanly), then the control plane; the directory goes. */
  teardown(): void {
    if (this.#torn) return;
    this.#torn = true;
    process.off("exit", this.#onExit);
    let start = performance.now();
    for (const node of this.nodes) node?.teardown();
    recordPhase(`${this.label}: teardown of the nodes`, performance.now() - start);
    start = performance.now();
    this.plane.stop();
    sweepCluster(this.dir);
    recordPhase(`${this.label}: teardown of the control plane`, performance.now() - start);
  }
}
