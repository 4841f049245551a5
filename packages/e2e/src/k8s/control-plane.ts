/**
 * A private control plane on loopback: etcd, kube-apiserver,
 * kube-controller-manager (the DaemonSet, ReplicaSet, service-account and
 * root-CA controllers) and kube-scheduler (it binds DaemonSet pods too),
 * every one on a free port of 127.0.0.1 with its state and log in the
 * cluster's directory, and every identity a bearer token of the API
 * server's token file: the admin (system:masters), the controller manager
 * and the scheduler as kubeadm sets them up, each kubelet as
 * `system:node:<name>` in `system:nodes` (what the Node authorizer and
 * NodeRestriction expect). Authorization is Node,RBAC, so a plugin's RBAC
 * is tested for real.
 */
import { mkdirSync } from "node:fs";
import { createServer } from "node:net";
import { join } from "node:path";
import { packageDir } from "../paths.js";
import { timed } from "../timings.js";
import { Daemon } from "./daemon.js";
import { Kubectl } from "./kubectl.js";
import { type Identity, kubeconfig, makePki, newToken, type Pki, tokenFile } from "./pki.js";

/** The Service network; its first address is the `kubernetes` Service's cluster IP. */
export const SERVICE_CIDR = "10.0.0.0/24";
export const KUBERNETES_SERVICE_IP = "10.0.0.1";
export const KUBERNETES_SERVICE_PORT = 443;
const SERVICE_NAMES = [
  "kubernetes",
  "kubernetes.default",
  "kubernetes.default.svc",
  "kubernetes.default.svc.cluster.local",
];

/** A port nobody listens on right now (the kernel's pick). */
export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once("error", reject);
    server.listen(0, "127.0.0.1", () => {
      const address = server.address();
      server.close(() =>
        typeof address === "object" && address ? resolve(address.port) : reject(new Error("no port")),
      );
    });
  });
}

export class ControlPlane {
  readonly daemons: Daemon[] = [];
  readonly kubectl: Kubectl;
  /** Per node name, the kubelet's token. */
  readonly nodeTokens = new Map<string, string>();

  private constructor(
    readonly dir: string,
    readonly bin: string,
    readonly pki: Pki,
    /** `https://127.0.0.1:<port>` */
    readonly server: string,
    readonly adminKubeconfig: string,
    /** A unix socket that leads to the API server: the way in for the nodes' network namespaces. */
    readonly socket: string,
  ) {
    this.kubectl = new Kubectl(join(bin, "kubectl"), adminKubeconfig, join(dir, "home"));
  }

  /**
   * Makes the credentials (for the nodes named, too: the token file is read
   * once) and starts etcd, the API server, the controller manager and the
   * scheduler; resolves once the API server is ready and the default
   * service account exists (pods need it).
   */
  static async start(dir: string, bin: string, nodes: readonly string[], label: string): Promise<ControlPlane> {
    mkdirSync(join(dir, "home"), { recursive: true });
    const [etcdClient, etcdPeer, apiPort] = [await freePort(), await freePort(), await freePort()];
    const pki = await makePki(join(dir, "pki"), ["127.0.0.1", KUBERNETES_SERVICE_IP], ["localhost", ...SERVICE_NAMES]);
    const tokens = new Map<string, Identity>();
    const tokenFor = (identity: Identity) => {
      const token = newToken();
      tokens.set(token, identity);
      return token;
    };
    const server = `https://127.0.0.1:${apiPort}`;
    const config = (name: string, identity: Identity) => {
      const file = join(dir, `${name}.kubeconfig`);
      kubeconfig(file, server, pki.caCert, tokenFor(identity));
      return file;
    };
    const admin = config("admin", { user: "nri-e2e-admin", groups: ["system:masters"] });
    const controllerManager = config("controller-manager", { user: "system:kube-controller-manager" });
    const scheduler = config("scheduler", { user: "system:kube-scheduler" });
    const plane = new ControlPlane(dir, bin, pki, server, admin, join(dir, "api.sock"));
    for (const node of nodes)
      plane.nodeTokens.set(node, tokenFor({ user: `system:node:${node}`, groups: ["system:nodes"] }));
    tokenFile(join(pki.dir, "tokens.csv"), tokens);

    const start = (name: string, args: readonly string[], command = join(bin, name)) => {
      const daemon = Daemon.start(name, command, args, { dir });
      plane.daemons.push(daemon);
      return daemon;
    };
    try {
      await timed(`${label}: etcd up`, async () => {
        const etcd = start("etcd", [
          ...["--name", "e2e", "--data-dir", join(dir, "etcd")],
          ...["--listen-client-urls", `http://127.0.0.1:${etcdClient}`],
          ...["--advertise-client-urls", `http://127.0.0.1:${etcdClient}`],
          ...["--listen-peer-urls", `http://127.0.0.1:${etcdPeer}`],
          ...["--initial-advertise-peer-urls", `http://127.0.0.1:${etcdPeer}`],
          ...["--initial-cluster", `e2e=http://127.0.0.1:${etcdPeer}`],
          // a test's data: not worth a disk flush per write on a busy machine
          "--unsafe-no-fsync",
          ...["--log-level", "warn"],
        ]);
        await plane.kubectl.until("etcd to be healthy", async () => {
          if (!etcd.running) throw new Error(`etcd exited: ${etcd.tail()}`);
          const response = await fetch(`http://127.0.0.1:${etcdClient}/health`).catch(() => undefined);
          return response?.ok && ((await response.json()) as { health?: string }).health === "true";
        });
      });
      await timed(`${label}: API server ready`, async () => {
        const apiserver = start("kube-apiserver", [
          `--etcd-servers=http://127.0.0.1:${etcdClient}`,
          "--bind-address=127.0.0.1",
          `--secure-port=${apiPort}`,
          `--tls-cert-file=${pki.serverCert}`,
          `--tls-private-key-file=${pki.serverKey}`,
          `--client-ca-file=${pki.caCert}`,
          `--token-auth-file=${join(pki.dir, "tokens.csv")}`,
          "--authorization-mode=Node,RBAC",
          "--enable-admission-plugins=NodeRestriction",
          "--service-account-issuer=https://kubernetes.default.svc.cluster.local",
          `--service-account-key-file=${pki.serviceAccountPub}`,
          `--service-account-signing-key-file=${pki.serviceAccountKey}`,
          `--service-cluster-ip-range=${SERVICE_CIDR}`,
          `--kubelet-client-certificate=${pki.kubeletClientCert}`,
          `--kubelet-client-key=${pki.kubeletClientKey}`,
          // a node's name is no host name here: its address is
          "--kubelet-preferred-address-types=InternalIP",
          // the nodes reach it through their own forwarders (node.ts), not through Endpoints
          "--endpoint-reconciler-type=none",
          "--allow-privileged=true",
          "--profiling=false",
        ]);
        await plane.kubectl.until("the API server to be ready", async () => {
          if (!apiserver.running) throw new Error(`kube-apiserver exited: ${apiserver.tail()}`);
          return (await plane.kubectl.run(["get", "--raw", "/readyz"], { timeoutMs: 10_000 })).trim() === "ok";
        });
      });
      const forwarder = start(
        "api-forwarder",
        ["--import", "tsx", join(packageDir, "src", "k8s", "forward.ts"), plane.socket, `127.0.0.1:${apiPort}`],
        process.execPath,
      );
      await plane.kubectl.until("the API server's socket forwarder", async () => {
        if (!forwarder.running) throw new Error(`the forwarder exited: ${forwarder.tail()}`);
        return forwarder.log.text().includes("listening");
      });
      await timed(`${label}: controllers and scheduler up`, async () => {
        const kcm = start("kube-controller-manager", [
          `--kubeconfig=${controllerManager}`,
          "--leader-elect=false",
          "--use-service-account-credentials=true",
          `--root-ca-file=${pki.caCert}`,
          `--service-account-private-key-file=${pki.serviceAccountKey}`,
          "--secure-port=0",
        ]);
        const sched = start("kube-scheduler", [`--kubeconfig=${scheduler}`, "--leader-elect=false", "--secure-port=0"]);
        // the service-account controller makes `default` in each namespace; pods cannot be admitted without it
        await plane.kubectl.until("the default service account", async () => {
          for (const daemon of [kcm, sched]) {
            if (!daemon.running) throw new Error(`${daemon.name} exited: ${daemon.tail()}`);
          }
          await plane.kubectl.run(["get", "serviceaccount", "default", "-n", "default"], { timeoutMs: 10_000 });
          return true;
        });
      });
    } catch (error) {
      plane.stop();
      throw error;
    }
    return plane;
  }

  /** The kubelet's kubeconfig for `node`, reaching the API server at `server`. */
  nodeKubeconfig(node: string, file: string, server: string): string {
    const token = this.nodeTokens.get(node);
    if (!token) throw new Error(`no credentials for node ${node}: name it when the control plane starts`);
    kubeconfig(file, server, this.pki.caCert, token);
    return file;
  }

  /** Stops everything, the last started first. */
  stop(): void {
    for (const daemon of [...this.daemons].reverse()) daemon.stop();
  }
}
