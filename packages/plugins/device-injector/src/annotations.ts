/**
 * The device-injector's annotations: eight kinds, each under a key prefix
 * (`devices.noderesource.dev`) and, for all but sysctls, a deprecated one
 * (`devices.nri.io`), read from the pod with the Go plugin's precedence.
 */

export interface AnnotationKind {
  /** `devices.noderesource.dev` */
  readonly key: string;
  /** The deprecated prefix, `devices.nri.io`; none for sysctls. */
  readonly legacyKey?: string;
  /** How the Go plugin's errors name it: `invalid device annotation ...`. */
  readonly what: string;
}

export const KINDS = {
  devices: { key: "devices.noderesource.dev", legacyKey: "devices.nri.io", what: "device" },
  cdiDevices: { key: "cdi-devices.noderesource.dev", legacyKey: "cdi-devices.nri.io", what: "CDI device" },
  mounts: { key: "mounts.noderesource.dev", legacyKey: "mounts.nri.io", what: "mount" },
  ioPriority: { key: "io-priority.noderesource.dev", legacyKey: "io-priority.nri.io", what: "I/O priority" },
  scheduler: { key: "scheduling-policy.noderesource.dev", legacyKey: "scheduling-policy.nri.io", what: "scheduler" },
  netDevices: { key: "network-devices.noderesource.dev", legacyKey: "network-devices.nri.io", what: "net device" },
  sysctl: { key: "sysctl.noderesource.dev", what: "sysctl" },
  memoryPolicy: { key: "memory-policy.noderesource.dev", legacyKey: "memory-policy.nri.io", what: "memory policy" },
} as const satisfies Record<string, AnnotationKind>;

/**
 * The keys read for a container, first present wins: the container's own
 * key, then the pod-wide one, then the bare prefix; at each level the
 * current prefix before the legacy one.
 */
export function annotationKeys(kind: AnnotationKind, container: string): string[] {
  const prefixes = kind.legacyKey === undefined ? [kind.key] : [kind.key, kind.legacyKey];
  return [`/container.${container}`, "/pod", ""].flatMap((suffix) => prefixes.map((prefix) => prefix + suffix));
}

/** The value of the first key present, even when empty; undefined when none is. */
export function annotationValue(
  kind: AnnotationKind,
  container: string,
  annotations: Readonly<Record<string, string>>,
): string | undefined {
  const key = annotationKeys(kind, container).find((k) => Object.hasOwn(annotations, k));
  return key === undefined ? undefined : annotations[key];
}
