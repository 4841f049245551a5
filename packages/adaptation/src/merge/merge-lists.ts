import type { KeyValue, LinuxDevice, Mount } from "@nri-ts/api";
import { Field, keyValueToEnv, parseEnvEntry, parseRemovalMarker } from "@nri-ts/api";
import type { CompoundField } from "./fields.js";
import type { AdjustmentTarget } from "./merge-context.js";

/** How one kind of list is merged: reply items of type T, request copy entries of type R. */
interface ListKind<T, R> {
  readonly field: CompoundField;
  key(item: T): string;
  requestKey(entry: R): string;
  toRequest(item: T): R;
  /** Whether a pure removal's marker item goes into the reply (mounts only). */
  readonly echoMarkers: boolean;
}

function retain<T>(list: T[], keep: (item: T) => boolean): void {
  let kept = 0;
  for (const item of list) if (keep(item)) list[kept++] = item;
  list.length = kept;
}

/**
 * The list algorithm shared by mounts, env and devices. A marked item drops
 * the entry with that key from the reply (which then counts as removed by
 * this plugin) and from the request copy; an unmarked item replaces the
 * request copy's entry with the same key and is claimed and appended.
 */
function mergeList<T, R>(
  items: readonly T[],
  kind: ListKind<T, R>,
  reply: T[],
  request: R[],
  target: AdjustmentTarget,
): void {
  if (items.length === 0) return;

  const added: T[] = [];
  const removed = new Map<string, T>();
  const modified = new Set<string>();
  for (const item of items) {
    const { key, marked } = parseRemovalMarker(kind.key(item));
    if (marked) {
      removed.set(key, item);
    } else {
      added.push(item);
      modified.add(key);
    }
  }

  const { owners, id, plugin } = target;
  retain(reply, (item) => {
    const key = kind.key(item);
    if (!removed.has(key)) return true;
    owners.clearEntry(id, kind.field, key, plugin);
    return false;
  });
  retain(request, (entry) => {
    const key = kind.requestKey(entry);
    return !removed.has(key) && !modified.has(key);
  });

  for (const item of added) {
    owners.claimEntry(id, kind.field, kind.key(item), plugin);
    reply.push(item);
  }
  if (kind.echoMarkers) {
    for (const [key, marker] of removed) if (!modified.has(key)) reply.push(marker);
  }
  for (const item of added) request.push(kind.toRequest(item));
}

const MOUNTS: ListKind<Mount, Mount> = {
  field: Field.Mounts,
  key: (mount) => mount.destination,
  requestKey: (mount) => mount.destination,
  toRequest: (mount) => mount,
  echoMarkers: true,
};

const ENV: ListKind<KeyValue, string> = {
  field: Field.Env,
  key: (variable) => variable.key,
  requestKey: (entry) => parseEnvEntry(entry).key,
  toRequest: keyValueToEnv,
  echoMarkers: false,
};

const DEVICES: ListKind<LinuxDevice, LinuxDevice> = {
  field: Field.Devices,
  key: (device) => device.path,
  requestKey: (device) => device.path,
  toRequest: (device) => device,
  echoMarkers: false,
};

export function mergeMounts(mounts: readonly Mount[], target: AdjustmentTarget): void {
  mergeList(mounts, MOUNTS, target.reply.mounts, target.container.mounts, target);
}

/** QUIRK (reproduced): removing one of the container's own variables never reaches the reply. */
export function mergeEnv(env: readonly KeyValue[], target: AdjustmentTarget): void {
  mergeList(env, ENV, target.reply.env, target.container.env, target);
}

/** QUIRK (reproduced): removing one of the container's own devices never reaches the reply. */
export function mergeDevices(devices: readonly LinuxDevice[], target: AdjustmentTarget): void {
  mergeList(devices, DEVICES, target.reply.linux.devices, target.container.linux.devices, target);
}
