/**
 * The Kubernetes tier's tools, built from the Go module proxy and cached as
 * the containerd tier's are (src/tools.ts: one directory per recipe):
 *
 * - etcd and Kubernetes' own commands from `kubernetes/` of this package, a
 *   module that requires k8s.io/kubernetes at one release, with its staging
 *   modules replaced by their published versions (`go install` of
 *   `k8s.io/kubernetes/cmd/...@v1.37.2` cannot work: its go.mod points them
 *   at directories of its repository). Stamped as a release build stamps
 *   them, so that `kubectl version` and the Node's kubeletVersion say
 *   v1.37.2; the build date is the release's, as the proxy dates it;
 * - helm, from its own module, stamped as its Makefile does;
 * - the CNI plugins a pod network needs: bridge, host-local, loopback.
 */
import { readFile } from "node:fs/promises";
import { join } from "node:path";
import { run } from "../exec.js";
import { packageDir } from "../paths.js";
import { type GoTool, goEnv } from "../tools.js";
import { CNI_PLUGINS_VERSION, HELM_VERSION, KUBERNETES_VERSION } from "../versions.js";

export const KUBERNETES_BINARIES = [
  "etcd",
  "kube-apiserver",
  "kube-controller-manager",
  "kube-scheduler",
  "kubelet",
  "kubectl",
] as const;

/** `-X` stamps of k8s.io/component-base/version and k8s.io/client-go/pkg/version, as hack/lib/version.sh makes them. */
function kubernetesStamps(buildDate: string): string[] {
  const [major, minor] = KUBERNETES_VERSION.slice(1).split(".");
  const values = {
    gitVersion: KUBERNETES_VERSION,
    gitMajor: major,
    gitMinor: minor,
    // built from the module's source archive, which names no commit
    gitTreeState: "archive",
    buildDate,
  };
  return ["k8s.io/component-base/version", "k8s.io/client-go/pkg/version"].flatMap((pkg) =>
    Object.entries(values).map(([key, value]) => `${pkg}.${key}=${value}`),
  );
}

/** When the proxy says the release was published: the build date of our binaries, the same on every machine. */
async function releaseTime(module: string, version: string): Promise<string> {
  const out = await run("go", ["mod", "download", "-json", `${module}@${version}`], {
    env: goEnv({ GOFLAGS: "-mod=mod" }),
  });
  const info = JSON.parse(out) as { Info: string };
  const { Time } = JSON.parse(await readFile(info.Info, "utf8")) as { Time: string };
  return Time.replace(/\.\d+Z$/, "Z");
}

export async function kubernetesTool(): Promise<GoTool> {
  return {
    key: `kubernetes-${KUBERNETES_VERSION}`,
    module: "k8s.io/kubernetes",
    version: KUBERNETES_VERSION,
    localModule: join(packageDir, "kubernetes"),
    // the module's `tool` directives: etcd's server and Kubernetes' commands
    packages: ["tool"],
    binaries: KUBERNETES_BINARIES,
    renames: { server: "etcd" },
    stamps: kubernetesStamps(await releaseTime("k8s.io/kubernetes", KUBERNETES_VERSION)),
  };
}

export const helmTool: GoTool = {
  key: `helm-${HELM_VERSION}`,
  module: "helm.sh/helm/v4",
  version: HELM_VERSION,
  packages: ["./cmd/helm"],
  binaries: ["helm"],
  stamps: [`helm.sh/helm/v4/internal/version.version=${HELM_VERSION}`],
};

export const cniTool: GoTool = {
  key: `cni-plugins-${CNI_PLUGINS_VERSION}`,
  module: "github.com/containernetworking/plugins",
  version: CNI_PLUGINS_VERSION,
  packages: ["./plugins/main/bridge", "./plugins/ipam/host-local", "./plugins/main/loopback"],
  binaries: ["bridge", "host-local", "loopback"],
  stamps: [`github.com/containernetworking/plugins/pkg/utils/buildversion.BuildVersion=${CNI_PLUGINS_VERSION}`],
};
