/**
 * PodSandbox and Container, the messages that carry a node's state, written
 * into field-writer.ts's buffer: the bytes of their generated encoders,
 * several times faster (one call per top-level field, no allocation per map
 * entry), mounts and rlimits too; other nested messages (hooks, Linux
 * settings, …) are written by their generated encoders, and a pod or container with a value not of its
 * declared type (a number out of its range, a string field that holds no
 * string) is left whole to its generated encoder, so that it fails (or
 * coerces) exactly as it does. Synchronize (sync-encoding.ts), CreateContainer
 * and ValidateContainerAdjustment requests (request-encoding.ts,
 * validation-encoding.ts) carry them.
 *
 * `sync-encoding.test.ts` proves the bytes equal, and fails when the
 * generated Container or PodSandbox gains a field this file does not write.
 */
import {
  CDIDevice,
  Container,
  Hooks,
  Image,
  LinuxContainer,
  LinuxPodSandbox,
  type MessageType,
  type Mount,
  PodSandbox,
  type POSIXRlimit,
  User,
} from "@nri-ts/api";
import {
  close,
  int32,
  int64,
  mark,
  message,
  messages,
  NOT_PLAIN,
  open,
  rewind,
  string,
  stringMap,
  strings,
  uint32,
  uint64,
} from "./field-writer.js";

/** The fields written below, in the generated order (the test compares them with the generated messages'). */
export const CONTAINER_FIELDS = [
  "id",
  "podSandboxId",
  "name",
  "state",
  "labels",
  "annotations",
  "args",
  "env",
  "mounts",
  "hooks",
  "linux",
  "pid",
  "rlimits",
  "createdAt",
  "startedAt",
  "finishedAt",
  "exitCode",
  "statusReason",
  "statusMessage",
  "CDIDevices",
  "user",
  "image",
] as const;
export const MOUNT_FIELDS = ["destination", "type", "source", "options"] as const;
export const RLIMIT_FIELDS = ["type", "hard", "soft"] as const;
export const POD_FIELDS = [
  "id",
  "name",
  "uid",
  "namespace",
  "labels",
  "annotations",
  "runtimeHandler",
  "linux",
  "pid",
  "ips",
] as const;

/** Repeated nested messages written field by field (a container's mounts and rlimits, the most common ones). */
function list<T>(field: number, values: readonly T[], writeFields: (value: T) => void): void {
  if (!Array.isArray(values)) throw NOT_PLAIN;
  for (let i = 0; i < values.length; i++) {
    const value = values[i]!;
    if (typeof value !== "object" || value === null) throw NOT_PLAIN;
    const start = open(field, 1);
    writeFields(value);
    close(start, 1);
  }
}

function writeMountFields(mount: Mount): void {
  if (mount.destination !== "") string(10, mount.destination);
  if (mount.type !== "") string(18, mount.type);
  if (mount.source !== "") string(26, mount.source);
  strings(34, mount.options);
}

function writeRlimitFields(rlimit: POSIXRlimit): void {
  if (rlimit.type !== "") string(10, rlimit.type);
  if (rlimit.hard !== 0n) uint64(16, rlimit.hard);
  if (rlimit.soft !== 0n) uint64(24, rlimit.soft);
}

function writePodFields(pod: PodSandbox): void {
  if (pod.id !== "") string(10, pod.id);
  if (pod.name !== "") string(18, pod.name);
  if (pod.uid !== "") string(26, pod.uid);
  if (pod.namespace !== "") string(34, pod.namespace);
  stringMap(42, pod.labels);
  stringMap(50, pod.annotations);
  if (pod.runtimeHandler !== "") string(58, pod.runtimeHandler);
  if (pod.linux !== undefined) message(66, pod.linux, LinuxPodSandbox);
  if (pod.pid !== 0) uint32(72, pod.pid);
  strings(82, pod.ips);
}

function writeContainerFields(container: Container): void {
  if (container.id !== "") string(10, container.id);
  if (container.podSandboxId !== "") string(18, container.podSandboxId);
  if (container.name !== "") string(26, container.name);
  if (container.state !== 0) int32(32, container.state);
  stringMap(42, container.labels);
  stringMap(50, container.annotations);
  strings(58, container.args);
  strings(66, container.env);
  list(74, container.mounts, writeMountFields);
  if (container.hooks !== undefined) message(82, container.hooks, Hooks);
  if (container.linux !== undefined) message(90, container.linux, LinuxContainer);
  if (container.pid !== 0) uint32(96, container.pid);
  list(106, container.rlimits, writeRlimitFields);
  if (container.createdAt !== 0n) int64(112, container.createdAt);
  if (container.startedAt !== 0n) int64(120, container.startedAt);
  if (container.finishedAt !== 0n) int64(128, container.finishedAt);
  if (container.exitCode !== 0) int32(136, container.exitCode);
  if (container.statusReason !== "") string(146, container.statusReason);
  if (container.statusMessage !== "") string(154, container.statusMessage);
  messages(162, container.CDIDevices, CDIDevice);
  if (container.user !== undefined) message(170, container.user, User);
  if (container.image !== undefined) message(178, container.image, Image);
}

/*
 * A pod or container as field `field` of the message being written, two
 * bytes kept for its length (most take 128 to 16,383 bytes); one with a
 * value not of its declared type by its generated encoder instead.
 *
 * Each writes its own fields directly rather than through one helper that
 * takes the field writer as a callback: such a helper, called for pods and
 * containers alike, was compiled by TurboFan with both writers inlined: one
 * more compilation as big as the container writer's own, on the
 * background threads that a cold Synchronize shares its two cores with
 * (README, Benchmark).
 */

export function writePod(field: number, pod: PodSandbox): void {
  const at = mark();
  try {
    const start = open(field, 2);
    writePodFields(pod);
    close(start, 2);
  } catch (error) {
    writeGenerated(error, at, field, pod, PodSandbox);
  }
}

export function writeContainer(field: number, container: Container): void {
  const at = mark();
  try {
    const start = open(field, 2);
    writeContainerFields(container);
    close(start, 2);
  } catch (error) {
    writeGenerated(error, at, field, container, Container);
  }
}

/** After a value not of its declared type (NOT_PLAIN; anything else is rethrown): the message again, by its generated encoder. */
function writeGenerated<T>(error: unknown, at: number, field: number, value: T, type: MessageType<T>): void {
  if (error !== NOT_PLAIN) throw error;
  rewind(at);
  message(field, value, type);
}
