/**
 * The writable-cgroups rules (an experiment for Kubernetes' KEP-5474): a
 * container whose effective annotation `writable-cgroups.noderesource.dev`
 * (`/container.<name>`, then `/pod`, then the bare key) is exactly `true`
 * gets its `/sys/fs/cgroup` mount read-write, by replacing the mount: `ro`
 * dropped, `rw` added. Only when the host's cgroup v2 mount has
 * `nsdelegate`, under which the kernel keeps a container from raising its
 * own limits while it manages cgroups below its own.
 */
import {
  AdjustmentBuilder,
  type ContainerAdjustment,
  effectiveAnnotation,
  type Mount,
  type PodSandbox,
} from "@nri-ts/api";
import type { Logger } from "@nri-ts/stub";

/** The annotation, with the usual `/container.<name>` and `/pod` scopes. */
export const WRITABLE_CGROUPS_ANNOTATION = "writable-cgroups.noderesource.dev";
/** Where containers see their cgroups. */
export const CGROUPS_MOUNT = "/sys/fs/cgroup";

/** The container has no `/sys/fs/cgroup` mount to make writable; the message is the Go plugin's. */
export class CgroupMountError extends Error {
  override readonly name = "CgroupMountError";
}

const quiet: Pick<Logger, "debug" | "info" | "warn" | "error"> = {
  debug: () => {},
  info: () => {},
  warn: () => {},
  error: () => {},
};

/** Whether the pod's annotations ask for writable cgroups for this container: the effective value is exactly `true`. */
export function writableCgroupsWanted(
  pod: PodSandbox,
  container: string,
  logger: Pick<Logger, "debug"> = quiet,
): boolean {
  const value = effectiveAnnotation(pod, WRITABLE_CGROUPS_ANNOTATION, container);
  if (value === undefined) {
    logger.debug({ annotation: WRITABLE_CGROUPS_ANNOTATION }, "Annotation not found");
    return false;
  }
  logger.debug({ annotation: WRITABLE_CGROUPS_ANNOTATION, value }, "Found effective annotation");
  return value === "true";
}

/** The mount's options made read-write (`ro` dropped, `rw` appended if missing), or undefined when they already are. */
export function readWriteOptions(options: readonly string[]): string[] | undefined {
  const out = options.filter((option) => option !== "ro");
  const changed = out.length !== options.length || !out.includes("rw");
  if (!out.includes("rw")) out.push("rw");
  return changed ? out : undefined;
}

export interface WritableCgroupsInput {
  pod: PodSandbox;
  container: { name: string; mounts: readonly Mount[] };
  /** Whether the host's cgroup v2 mount has `nsdelegate` (checked once, at start-up). */
  hostNsDelegate: boolean;
}

/**
 * The adjustment making the container's cgroups writable, or undefined when
 * nothing is asked, allowed or needed.
 * @throws CgroupMountError when asked and allowed but the container has no `/sys/fs/cgroup` mount
 */
export function writableCgroupsAdjustment(
  input: WritableCgroupsInput,
  logger: Pick<Logger, "debug" | "info" | "warn" | "error"> = quiet,
): ContainerAdjustment | undefined {
  if (!writableCgroupsWanted(input.pod, input.container.name, logger)) return undefined;
  if (!input.hostNsDelegate) {
    logger.warn("cgroup mount on host does not have 'nsdelegate' option; ignoring request to make cgroups writable");
    return undefined;
  }
  const mount = input.container.mounts.find((m) => m.destination === CGROUPS_MOUNT);
  if (mount === undefined) {
    const error = new CgroupMountError(`no ${CGROUPS_MOUNT} mount found to modify, this is unexpected`);
    logger.error({ error }, "failed to find cgroup mount");
    throw error;
  }
  const options = readWriteOptions(mount.options);
  if (options === undefined) {
    logger.debug("cgroup mount is already read-write");
    return undefined;
  }
  const adjustment = new AdjustmentBuilder()
    .addMount({ destination: mount.destination, type: mount.type, source: mount.source, options })
    .removeMount(mount.destination)
    .build();
  logger.info("Successfully adjusted mounts for writable cgroups");
  return adjustment;
}
