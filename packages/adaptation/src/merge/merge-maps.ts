import { Field, LinuxNetDevice, markForRemoval, parseRemovalMarker } from "@nri-ts/api";
import type { CompoundField } from "./fields.js";
import type { AdjustmentTarget } from "./merge-context.js";

/** Where one plugin's map is merged. */
interface MapTarget<V> {
  readonly field: CompoundField;
  /** The request copy's map. */
  readonly request: Record<string, V>;
  /** The reply's map. */
  readonly reply: Record<string, V>;
  /** The value stored under a `-key` marker in the reply. */
  marker(): V;
}

/**
 * The map algorithm shared by annotations, sysctl and net devices.
 * A key both removed and set by the plugin takes the key over from whoever
 * owned it: the reply gets `-key` and `key`. A pure removal only puts
 * `-key` into the reply: it claims nothing, and an earlier plugin's value
 * stays in the reply and in the request copy.
 */
function mergeMap<V>(input: Readonly<Record<string, V>>, merge: MapTarget<V>, target: AdjustmentTarget): void {
  const entries = Object.entries(input);
  if (entries.length === 0) return;

  const removed = new Set<string>();
  const set: Array<[string, V]> = [];
  for (const [name, value] of entries) {
    const { key, marked } = parseRemovalMarker(name);
    if (marked) removed.add(key);
    else set.push([name, value]);
  }

  const { owners, id, plugin } = target;
  for (const [key, value] of set) {
    if (removed.has(key)) {
      owners.clearEntry(id, merge.field, key, plugin);
      delete merge.request[key];
      merge.reply[markForRemoval(key)] = merge.marker();
    }
    owners.claimEntry(id, merge.field, key, plugin);
    merge.request[key] = value;
    merge.reply[key] = value;
    removed.delete(key);
  }

  for (const key of removed) merge.reply[markForRemoval(key)] = merge.marker();
}

export function mergeAnnotations(annotations: Readonly<Record<string, string>>, target: AdjustmentTarget): void {
  mergeMap(
    annotations,
    {
      field: Field.Annotations,
      request: target.container.annotations,
      reply: target.reply.annotations,
      marker: () => "",
    },
    target,
  );
}

/**
 * Since v0.12.3 the marker of a pure sysctl removal goes into the reply's
 * sysctl (v0.12.2 put it under the annotations, so runtimes never removed
 * the sysctl).
 */
export function mergeSysctl(sysctl: Readonly<Record<string, string>>, target: AdjustmentTarget): void {
  mergeMap(
    sysctl,
    {
      field: Field.Sysctl,
      request: target.container.linux.sysctl,
      reply: target.reply.linux.sysctl,
      marker: () => "",
    },
    target,
  );
}

/**
 * Net devices, keyed by host interface. Go stores a nil device under the
 * `-hostIf` marker; nil travels as an empty message, so the marker's value
 * here is an empty LinuxNetDevice, which encodes to the same bytes.
 */
export function mergeNetDevices(devices: Readonly<Record<string, LinuxNetDevice>>, target: AdjustmentTarget): void {
  mergeMap(
    devices,
    {
      field: Field.LinuxNetDevices,
      request: target.container.linux.netDevices,
      reply: target.reply.linux.netDevices,
      marker: () => LinuxNetDevice.create(),
    },
    target,
  );
}
