/**
 * A Kubernetes node: a kubelet and the suite's containerd, both in
 * namespaces of their own, so that two nodes can share this machine and
 * nothing of theirs lands in a system path:
 *
 * - a mount namespace (private propagation) in which /etc, /usr, /var and
 *   /run are overlays whose writes go to the node's directory: what a
 *   DaemonSet's hostPath volumes create (`DirectoryOrCreate`), what the
 *   kubelet keeps at fixed paths (/var/lib/kubelet/device-plugins,
 *   /var/log/containers) stay there. The node's NRI directory is mounted at
 *   /var/run/nri, where our DaemonSets mount the socket from. Every mount
 *   the kubelet and containerd make (volumes, root file systems) lives in
 *   this namespace only, and goes with it;
 * - a network namespace joined to the host by a veth pair (the API server
 *   reaches the kubelet on the node's address), with the `kubernetes`
 *   Service's address on its loopback, where a forwarder passes
 *   connections to the API server (forward.ts): the kubelet and in-cluster
 *   clients use it as they would in a cluster with kube-proxy;
 * - a cgroup root of its own (`cgroupRoot`), made in every hierarchy.
 *
 * containerd's root (images, snapshots) is a tmpfs of the mount namespace.
 *
 * Both namespaces are held by one `sleep` (the holder); the kubelet,
 * containerd and the forwarder enter them with nsenter. containerd is the
 * containerd tier's configuration (config.ts) with a CNI bridge network of
 * the node's own, for pods that do not use the host's network.
 */
import { existsSync, mkdirSync, readdirSync, readFileSync, symlinkSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { containerdConfig, crictlConfig, type NriSettings, type RuntimeLayout, runtimeLayout } from "../config.js";
import { run, runSync } from "../exec.js";
import { packageDir } from "../paths.js";
import { timed } from "../timings.js";
import { NEWEST } from "../versions.js";
import type { ControlPlane } from "./control-plane.js";
import { KUBERNETES_SERVICE_IP, KUBERNETES_SERVICE_PORT } from "./control-plane.js";
import { Daemon } from "./daemon.js";
import type { K8sTools } from "./context.js";
import { type NodeRecord, sweepNode } from "./sweep.js";

/** The directories the node sees as overlays of the host's. */
const OVERLAID = ["/etc", "/usr", "/var", "/run"];

/** Picks a /30 of 10.213.0.0/16 for the veth pair that no address of this machine is in. */
async function vethSubnet(): Promise<{ host: string; node: string }> {
  const used = await run("ip", ["-o", "-4", "addr", "show"]);
  for (;;) {
    const third = Math.floor(Math.random() * 256);
    const fourth = Math.floor(Math.random() * 64) * 4;
    const prefix = `10.213.${third}.`;
    if (!used.includes(prefix)) return { host: `${prefix}${fourth + 1}`, node: `${prefix}${fourth + 2}` };
  }
}

export interface NodeOptions {
  /** Its name, directory (short: unix socket paths below it must stay under 108 bytes), cgroup root and veth. */
  record: NodeRecord;
  /** The `/24` of its pods' bridge network, e.g. `10.88.1`. */
  podSubnet: string;
  nri?: NriSettings;
}

export class KubeNode {
  readonly layout: RuntimeLayout;
  readonly crictlArgs: string[];
  holder!: Daemon;
  containerd!: Daemon;
  kubelet!: Daemon;
  forwarder!: Daemon;
  address = "";
  #torn = false;

  private constructor(
    readonly name: string,
    readonly record: NodeRecord,
    readonly tools: K8sTools,
    readonly plane: ControlPlane,
    readonly options: NodeOptions,
  ) {
    this.layout = runtimeLayout(record.base);
    this.crictlArgs = ["-c", this.layout.crictlConfig];
  }

  get base(): string {
    return this.record.base;
  }

  /** `nsenter` into the node's namespaces: a prefix for commands. */
  get enter(): string[] {
    return ["nsenter", "-t", String(this.holder.pid), "-n", "-m", "--"];
  }

  static async start(plane: ControlPlane, tools: K8sTools, options: NodeOptions, label: string): Promise<KubeNode> {
    const { record } = options;
    const { base, name } = record;
    mkdirSync(base, { recursive: true });
    const veth = await vethSubnet();
    writeFileSync(join(base, "node.json"), JSON.stringify(record, null, 2));
    const node = new KubeNode(name, record, tools, plane, options);
    try {
      await timed(`${label}: ${name} namespaces and network`, () => node.namespaces(veth));
      node.writeConfigs();
      await timed(`${label}: ${name} containerd up`, () => node.startContainerd());
      await timed(`${label}: ${name} images imported`, () => node.importImages());
      await timed(`${label}: ${name} Ready`, async () => {
        node.startKubelet();
        await node.waitReady();
      });
    } catch (error) {
      node.teardown();
      throw error;
    }
    return node;
  }

  /** The holder, the overlays, the veth pair, the Service address and its forwarder. */
  private async namespaces(veth: { host: string; node: string }): Promise<void> {
    const { base } = this;
    mkdirSync(join(base, "nri"), { recursive: true });
    const script = [
      "set -e",
      // mounts below the overlaid directories (the host's /run/netns) would stay in the namespace's table,
      // hidden: their private propagation confuses a runtime that checks a path's mount (HostToContainer)
      `for m in $(awk '{print $5}' /proc/self/mountinfo | grep -E '^(${OVERLAID.join("|")})/' | sort -r); do umount -l "$m"; done`,
      ...OVERLAID.map((dir) => {
        const upper = join(base, "overlay", dir.slice(1));
        return `mkdir -p ${upper}/upper ${upper}/work && mount -t overlay nri-e2e -o lowerdir=${dir},upperdir=${upper}/upper,workdir=${upper}/work ${dir}`;
      }),
      `mkdir -p /run/nri && mount --bind ${join(base, "nri")} /run/nri`,
      // containerd's images and snapshots in memory: unpacked fast, and gone with the namespace (deleting
      // their files from the disk took 20-27 s on a busy machine)
      `mkdir -p ${this.layout.root} && mount -t tmpfs -o mode=0711 nri-e2e-containerd ${this.layout.root}`,
      // as on a node's host: mounts propagate to containers that ask for it (HostToContainer), within the namespace
      "mount --make-rshared /",
      "ip link set lo up",
      `ip addr add ${KUBERNETES_SERVICE_IP}/32 dev lo`,
      "echo ready",
      "exec sleep infinity",
    ].join("\n");
    this.holder = Daemon.start(
      "holder",
      "unshare",
      ["--mount", "--net", "--propagation", "private", "sh", "-c", script],
      {
        dir: base,
      },
    );
    await this.plane.kubectl.until(`the namespaces of ${this.name}`, async () => {
      if (!this.holder.running) throw new Error(`the namespace holder exited: ${this.holder.tail()}`);
      return this.holder.log.text().includes("ready");
    });
    writeFileSync(join(base, "node.json"), JSON.stringify({ ...this.record, holder: this.holder.pid }, null, 2));

    const { hostVeth } = this.record;
    await run("ip", [
      "link",
      "add",
      hostVeth,
      "type",
      "veth",
      "peer",
      "name",
      "eth0",
      "netns",
      String(this.holder.pid),
    ]);
    await run("ip", ["addr", "add", `${veth.host}/30`, "dev", hostVeth]);
    await run("ip", ["link", "set", hostVeth, "up"]);
    await run("nsenter", ["-t", String(this.holder.pid), "-n", "ip", "addr", "add", `${veth.node}/30`, "dev", "eth0"]);
    await run("nsenter", ["-t", String(this.holder.pid), "-n", "ip", "link", "set", "eth0", "up"]);
    this.address = veth.node;

    this.forwarder = Daemon.start(
      "forwarder",
      process.execPath,
      [
        ...["--import", "tsx", join(packageDir, "src", "k8s", "forward.ts")],
        `${KUBERNETES_SERVICE_IP}:${KUBERNETES_SERVICE_PORT}`,
        this.plane.socket,
      ],
      // from this package's directory, where node finds tsx (nsenter would start it in /)
      { dir: base, prefix: [...this.enter.slice(0, -1), `-w${packageDir}`, "--"] },
    );
    await this.plane.kubectl.until(`the API forwarder of ${this.name}`, async () => {
      if (!this.forwarder.running) throw new Error(`the forwarder exited: ${this.forwarder.tail()}`);
      return this.forwarder.log.text().includes("listening");
    });
  }

  private writeConfigs(): void {
    const { base, layout, tools } = this;
    mkdirSync(join(base, "etc"), { recursive: true });
    writeFileSync(
      layout.config,
      // pods' network namespaces where a node has them, /var/run/netns: the node's own here
      containerdConfig(NEWEST, layout, tools.runc, this.options.nri).replace(
        "netns_mounts_under_state_dir = true",
        "netns_mounts_under_state_dir = false",
      ),
    );
    writeFileSync(layout.crictlConfig, crictlConfig(layout));
    // the pod network: a bridge in the node's namespace, addresses from host-local
    mkdirSync(join(base, "cni", "bin"), { recursive: true });
    for (const plugin of ["bridge", "host-local", "loopback"]) {
      symlinkSync(join(tools.cni, plugin), join(base, "cni", "bin", plugin));
    }
    mkdirSync(join(base, "cni", "net.d"), { recursive: true });
    writeFileSync(
      join(base, "cni", "net.d", "10-nri-e2e.conflist"),
      JSON.stringify({
        cniVersion: "1.0.0",
        name: "nri-e2e",
        plugins: [
          {
            type: "bridge",
            bridge: "nri-e2e0",
            // the pods' default route: the Service address is the node's
            isDefaultGateway: true,
            ipMasq: false,
            ipam: {
              type: "host-local",
              ranges: [[{ subnet: `${this.options.podSubnet}.0/24` }]],
              dataDir: join(base, "cni", "ipam"),
            },
          },
        ],
      }),
    );

    // the kubelet
    const kubelet = join(base, "kubelet");
    mkdirSync(kubelet, { recursive: true });
    writeFileSync(join(base, "resolv.conf"), "nameserver 127.0.0.1\n");
    this.plane.nodeKubeconfig(
      this.name,
      join(base, "kubelet.kubeconfig"),
      `https://${KUBERNETES_SERVICE_IP}:${KUBERNETES_SERVICE_PORT}`,
    );
    writeFileSync(
      join(base, "kubelet.json"),
      JSON.stringify(
        {
          apiVersion: "kubelet.config.k8s.io/v1beta1",
          kind: "KubeletConfiguration",
          containerRuntimeEndpoint: `unix://${layout.socket}`,
          // containerd's runc runs with SystemdCgroup = false; our hosts mount cgroup v1
          cgroupDriver: "cgroupfs",
          cgroupRoot: this.record.cgroupRoot,
          failCgroupV1: false,
          failSwapOn: false,
          resolvConf: join(base, "resolv.conf"),
          address: this.address,
          port: 10250,
          readOnlyPort: 0,
          healthzBindAddress: "127.0.0.1",
          authentication: {
            anonymous: { enabled: false },
            webhook: { enabled: false },
            x509: { clientCAFile: this.plane.pki.caCert },
          },
          authorization: { mode: "AlwaysAllow" },
          podLogsDir: join(base, "pod-logs"),
          // the machine's disk and memory are shared with other runs: no evictions, no image GC
          evictionHard: { "memory.available": "1Mi", "nodefs.available": "1%", "imagefs.available": "1%" },
          imageGCHighThresholdPercent: 100,
          imageGCLowThresholdPercent: 99,
          makeIPTablesUtilChains: false,
          shutdownGracePeriod: "0s",
          // lowering its own oom_score_adj needs CAP_SYS_RESOURCE, which our machines do not grant
          oomScoreAdj: 0,
        },
        null,
        2,
      ),
    );
    // the cgroup root must exist; cpuset's needs the cpus and memory nodes of its parent
    for (const hierarchy of readdirSync("/sys/fs/cgroup")) {
      const dir = join("/sys/fs/cgroup", hierarchy, this.record.cgroupRoot);
      mkdirSync(dir, { recursive: true });
      if (hierarchy === "cpuset") {
        for (const file of ["cpuset.cpus", "cpuset.mems"]) {
          writeFileSync(join(dir, file), readFileSync(join("/sys/fs/cgroup/cpuset", file)));
        }
      }
    }
  }

  private async startContainerd(): Promise<void> {
    const { tools, layout } = this;
    this.containerd = Daemon.start("containerd", join(tools.containerd, "containerd"), ["-c", layout.config], {
      dir: this.base,
      prefix: this.enter,
      env: { ...process.env, PATH: `${tools.containerd}:${process.env.PATH ?? "/usr/bin:/bin"}` },
    });
    writeFileSync(join(this.base, "containerd.pid"), String(this.containerd.pid));
    await this.plane.kubectl.until(`containerd of ${this.name} to answer CRI`, async () => {
      if (!this.containerd.running) throw new Error(`containerd exited: ${this.containerd.tail()}`);
      await run(tools.crictl, [...this.crictlArgs, "version"], { timeoutMs: 5_000 });
      return true;
    });
  }

  /** `ctr` against the node's containerd, in CRI's namespace. */
  ctr(...args: string[]): Promise<string> {
    return run(join(this.tools.containerd, "ctr"), ["-a", this.layout.socket, "-n", "k8s.io", ...args]);
  }

  /** `ctr images import` into CRI's namespace. */
  async importImage(archive: string): Promise<void> {
    await this.ctr("images", "import", archive);
  }

  /** Gives an image another name, as `docker tag` would. */
  async tag(image: string, name: string): Promise<void> {
    await this.ctr("images", "tag", "--force", image, name);
  }

  private async importImages(): Promise<void> {
    for (const archive of [...this.tools.images.map((image) => image.archive), this.tools.pluginBundle]) {
      if (archive) await this.importImage(archive);
    }
    // as the plugins' local overlays name them
    for (const image of Object.values(this.tools.pluginImages)) await this.tag(image.name, image.tag);
  }

  private startKubelet(): void {
    const { base } = this;
    this.kubelet = Daemon.start(
      "kubelet",
      join(this.tools.kubernetes, "kubelet"),
      [
        `--config=${join(base, "kubelet.json")}`,
        `--kubeconfig=${join(base, "kubelet.kubeconfig")}`,
        `--root-dir=${join(base, "kubelet")}`,
        `--cert-dir=${join(base, "kubelet", "pki")}`,
        `--hostname-override=${this.name}`,
        `--node-ip=${this.address}`,
        "--v=1",
      ],
      { dir: base, prefix: this.enter },
    );
  }

  /** Waits until the Node reports Ready. */
  async waitReady(timeoutMs = 180_000): Promise<void> {
    await this.plane.kubectl.until(
      `node ${this.name} to be Ready`,
      async () => {
        if (!this.kubelet.running) throw new Error(`the kubelet exited: ${this.kubelet.tail()}`);
        const node = await this.plane.kubectl.json<{ status?: { conditions?: { type: string; status: string }[] } }>([
          "get",
          "node",
          this.name,
        ]);
        return node.status?.conditions?.some((c) => c.type === "Ready" && c.status === "True");
      },
      timeoutMs,
    );
  }

  /** Stops the kubelet and starts it again on the same state; resolves once the Node is Ready again. */
  async restartKubelet(): Promise<void> {
    this.kubelet.stop();
    this.startKubelet();
    await this.waitReady();
  }

  /** Stops containerd and starts it again on the same state, under the running kubelet. */
  async restartContainerd(): Promise<void> {
    this.containerd.stop();
    await this.startContainerd();
  }

  /** crictl against the node's containerd. */
  crictl(...args: string[]): Promise<string> {
    return run(this.tools.crictl, [...this.crictlArgs, ...args]);
  }

  /** A shell command run inside the node's namespaces (as the node's host sees things). */
  shell(script: string): Promise<string> {
    return run(this.enter[0] as string, [...this.enter.slice(1), "sh", "-c", script]);
  }

  /** The kubelet first (or it starts the pods again), then the pods, containerd and everything else. */
  teardown(): void {
    if (this.#torn) return;
    this.#torn = true;
    const steps: [string, number][] = [];
    let last = performance.now();
    const step = (what: string) => {
      const now = performance.now();
      steps.push([what, now - last]);
      last = now;
    };
    this.kubelet?.stop();
    step("kubelet");
    if (this.containerd?.running) {
      try {
        const crictl = (...args: string[]) =>
          runSync(this.tools.crictl, [...this.crictlArgs, ...args], { timeoutMs: 60_000 }).trim();
        for (const id of crictl("pods", "-q").split("\n").filter(Boolean)) {
          crictl("stopp", id);
          crictl("rmp", "-f", id);
        }
      } catch (error) {
        console.warn(`e2e: ${this.name}: could not remove its pods: ${(error as Error).message}`);
      }
    }
    step("pods");
    this.containerd?.stop();
    step("containerd");
    this.forwarder?.stop();
    sweepNode(this.record);
    step("sweep");
    console.log(
      `e2e: ${this.name} teardown: ${steps.map(([what, ms]) => `${what} ${(ms / 1000).toFixed(2)} s`).join(", ")}`,
    );
    if (existsSync(this.base)) console.warn(`e2e: ${this.name}: ${this.base} is still there`);
  }
}
