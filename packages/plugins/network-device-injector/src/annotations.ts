/**
 * The pod annotation that names the network devices, read as the Go plugin
 * reads it: the first of `netdevice.noderesource.dev/pod`,
 * `netdevices.nri.containerd.io/pod` (deprecated), `netdevice.noderesource.dev`
 * and `netdevices.nri.containerd.io` that the pod has, decoded as
 * sigs.k8s.io/yaml decodes it into the Go plugin's type, each address
 * checked with Go's net.ParseIP. Nothing else is checked or defaulted (the
 * Go plugin works out defaults for `new_name` and `prefix` on a copy that
 * it drops).
 */
import { goQuote } from "@nri-ts/common";
import { decodeSigsYaml, go, SigsYamlError } from "@nri-ts/sigs-yaml";
import { isGoIP } from "./go-ip.js";

export const NETDEVICE_KEY = "netdevice.noderesource.dev";
/** The deprecated key (plural, and under nri.containerd.io). */
export const OLD_NETDEVICE_KEY = "netdevices.nri.containerd.io";
/** The keys looked up, the first present winning. */
export const ANNOTATION_KEYS = [
  `${NETDEVICE_KEY}/pod`,
  `${OLD_NETDEVICE_KEY}/pod`,
  NETDEVICE_KEY,
  OLD_NETDEVICE_KEY,
] as const;

/** The Go plugin's type, `main.netdevice`, so that Go's error texts name it as the Go plugin's do. */
const NETDEVICES = go.slice(
  go.struct("main.netdevice", {
    name: go.string,
    new_name: go.string,
    address: go.string,
    prefix: go.int,
    mtu: go.int,
  }),
);

/** One annotated device, with the Go plugin's field names. */
export interface NetDevice {
  /** The link's name in the plugin's (the host's) network namespace. */
  name: string;
  /** Its name in the pod's namespace. */
  new_name: string;
  /** Checked, not applied (as in the Go plugin). */
  address: string;
  /** Not applied (as in the Go plugin). */
  prefix: bigint;
  /** Not applied (as in the Go plugin). */
  mtu: bigint;
}

/** A pod's annotation cannot be read; the message is the Go plugin's. */
export class NetDeviceAnnotationError extends Error {
  override readonly name = "NetDeviceAnnotationError";
}

/** The key and value of the annotation that applies, if the pod has one. */
export function netDeviceAnnotation(
  annotations: Readonly<Record<string, string>>,
): { key: string; value: string } | undefined {
  const key = ANNOTATION_KEYS.find((k) => Object.hasOwn(annotations, k));
  return key === undefined ? undefined : { key, value: annotations[key] };
}

/**
 * The devices the pod's annotations name (none without the annotation or
 * with an empty one).
 * @throws NetDeviceAnnotationError `invalid device annotation "<key>": <the YAML's problem>` or `error parsing address <address>`
 */
export function parseNetDevices(annotations: Readonly<Record<string, string>>): NetDevice[] {
  const annotation = netDeviceAnnotation(annotations);
  if (annotation === undefined) return [];
  let devices: NetDevice[];
  try {
    devices = decodeSigsYaml(annotation.value, NETDEVICES);
  } catch (error) {
    if (!(error instanceof SigsYamlError)) throw error;
    throw new NetDeviceAnnotationError(`invalid device annotation ${goQuote(annotation.key)}: ${error.message}`, {
      cause: error,
    });
  }
  const bad = devices.find((device) => device.address !== "" && !isGoIP(device.address));
  if (bad) throw new NetDeviceAnnotationError(`error parsing address ${bad.address}`);
  return devices;
}
