/**
 * A plugin's DaemonSet (`deploy/kustomize/base/daemonset.yaml`) as a CRI
 * container: its first container's args, its hostPath mounts (with host
 * paths mapped where the test runtime keeps them, e.g. the NRI socket), its
 * memory limit and its security context, as a kubelet would hand them to
 * containerd.
 */
import { readFileSync } from "node:fs";
import { join } from "node:path";
import type { DaemonSet } from "kubernetes-types/apps/v1.js";
import { parse } from "yaml";
import { repoDir } from "./paths.js";
import type { ContainerSpec } from "./pod.js";

const UNITS: Record<string, number> = { "": 1, Ki: 1024, Mi: 1024 ** 2, Gi: 1024 ** 3 };

/** A Kubernetes memory quantity (`256Mi`) in bytes. */
export function memoryBytes(quantity: string): number {
  const match = /^(\d+)(Ki|Mi|Gi)?$/.exec(quantity);
  if (!match) throw new Error(`memory quantity ${JSON.stringify(quantity)}: only plain, Ki, Mi and Gi are read here`);
  return Number(match[1]) * UNITS[match[2] ?? ""];
}

/**
 * The container of `packages/plugins/<plugin>`'s DaemonSet, without its
 * image; `hostPaths` maps the DaemonSet's host paths to this machine's.
 */
export function daemonSetContainer(plugin: string, hostPaths: Readonly<Record<string, string>>): ContainerSpec {
  const file = join(repoDir, "packages", "plugins", plugin, "deploy", "kustomize", "base", "daemonset.yaml");
  const spec = (parse(readFileSync(file, "utf8")) as DaemonSet).spec?.template.spec;
  const container = spec?.containers[0];
  if (!spec || !container) throw new Error(`${file} has no container`);
  const mounts = (container.volumeMounts ?? []).map((mount) => {
    const hostPath = spec.volumes?.find((volume) => volume.name === mount.name)?.hostPath?.path;
    if (!hostPath) throw new Error(`${file}: volume ${mount.name} is not a hostPath`);
    return {
      containerPath: mount.mountPath,
      hostPath: hostPaths[hostPath] ?? hostPath,
      readonly: mount.readOnly ?? false,
    };
  });
  const security = container.securityContext ?? {};
  const memory = container.resources?.limits?.memory;
  return {
    name: container.name,
    args: container.args ?? [],
    mounts,
    linux: {
      ...(memory && { resources: { memory_limit_in_bytes: memoryBytes(String(memory)) } }),
      security_context: {
        readonly_rootfs: security.readOnlyRootFilesystem ?? false,
        no_new_privs: security.allowPrivilegeEscalation === false,
        capabilities: {
          drop_capabilities: security.capabilities?.drop ?? [],
          add_capabilities: security.capabilities?.add ?? [],
        },
      },
    },
  };
}
