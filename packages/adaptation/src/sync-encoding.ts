/**
 * SynchronizeRequest to protobuf bytes, the same bytes as the generated
 * `SynchronizeRequest.encode(request).finish()`, several times faster when
 * the code is still cold, as it is at a runtime's start: a synchronization
 * carries every pod and container of the node (10,000 containers make a
 * 1.8 MB message), and the generated encoder allocates per map entry
 * (Object.entries, a closure, an entry object) and per int64 check, which
 * the interpreter and the garbage collector pay for before the JIT has
 * caught up. Here the top-level fields of pods and containers are written
 * straight to one writer, in the generated order; nested messages (mounts,
 * hooks, Linux settings, …) go to their generated encoders.
 *
 * `sync-encoding.test.ts` proves the bytes equal, and fails when the
 * generated Container or PodSandbox gains a field this file does not write.
 */
import { BinaryWriter } from "@bufbuild/protobuf/wire";
import {
  CDIDevice,
  type Container,
  Hooks,
  Image,
  LinuxContainer,
  LinuxPodSandbox,
  Mount,
  type PodSandbox,
  POSIXRlimit,
  type SynchronizeRequest,
  User,
} from "@nri-ts/api";

const INT64_MIN = -(2n ** 63n);
const INT64_MAX = 2n ** 63n - 1n;

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
export const POD_FIELDS = ["id", "name", "uid", "namespace", "labels", "annotations", "runtimeHandler", "linux", "pid", "ips"] as const;

/** A map<string, string> field: one entry message per key, empty key or value left out, as generated. */
function stringMap(writer: BinaryWriter, tag: number, map: { [key: string]: string }): void {
  const keys = Object.keys(map);
  for (let i = 0; i < keys.length; i++) {
    const key = keys[i]!;
    const value = map[key]!;
    writer.uint32(tag).fork();
    if (key !== "") writer.uint32(10).string(key);
    if (value !== "") writer.uint32(18).string(value);
    writer.join();
  }
}

function strings(writer: BinaryWriter, tag: number, values: readonly string[]): void {
  for (let i = 0; i < values.length; i++) writer.uint32(tag).string(values[i]!);
}

/** An int64 field, refused out of range with the generated encoder's text. */
function int64(writer: BinaryWriter, tag: number, value: bigint, field: string): void {
  if (value === 0n) return;
  // (a non-bigint takes the generated check, and its TypeError)
  if ((typeof value !== "bigint" || value < INT64_MIN || value > INT64_MAX) && BigInt.asIntN(64, value) !== value) {
    throw new globalThis.Error(`value provided for field message.${field} of type int64 too large`);
  }
  writer.uint32(tag).int64(value);
}

function messages<T>(writer: BinaryWriter, tag: number, values: readonly T[], type: { encode(m: T, w: BinaryWriter): BinaryWriter }): void {
  for (let i = 0; i < values.length; i++) type.encode(values[i]!, writer.uint32(tag).fork()).join();
}

function writePod(writer: BinaryWriter, pod: PodSandbox): void {
  if (pod.id !== "") writer.uint32(10).string(pod.id);
  if (pod.name !== "") writer.uint32(18).string(pod.name);
  if (pod.uid !== "") writer.uint32(26).string(pod.uid);
  if (pod.namespace !== "") writer.uint32(34).string(pod.namespace);
  stringMap(writer, 42, pod.labels);
  stringMap(writer, 50, pod.annotations);
  if (pod.runtimeHandler !== "") writer.uint32(58).string(pod.runtimeHandler);
  if (pod.linux !== undefined) LinuxPodSandbox.encode(pod.linux, writer.uint32(66).fork()).join();
  if (pod.pid !== 0) writer.uint32(72).uint32(pod.pid);
  strings(writer, 82, pod.ips);
}

function writeContainer(writer: BinaryWriter, container: Container): void {
  if (container.id !== "") writer.uint32(10).string(container.id);
  if (container.podSandboxId !== "") writer.uint32(18).string(container.podSandboxId);
  if (container.name !== "") writer.uint32(26).string(container.name);
  if (container.state !== 0) writer.uint32(32).int32(container.state);
  stringMap(writer, 42, container.labels);
  stringMap(writer, 50, container.annotations);
  strings(writer, 58, container.args);
  strings(writer, 66, container.env);
  messages(writer, 74, container.mounts, Mount);
  if (container.hooks !== undefined) Hooks.encode(container.hooks, writer.uint32(82).fork()).join();
  if (container.linux !== undefined) LinuxContainer.encode(container.linux, writer.uint32(90).fork()).join();
  if (container.pid !== 0) writer.uint32(96).uint32(container.pid);
  messages(writer, 106, container.rlimits, POSIXRlimit);
  int64(writer, 112, container.createdAt, "createdAt");
  int64(writer, 120, container.startedAt, "startedAt");
  int64(writer, 128, container.finishedAt, "finishedAt");
  if (container.exitCode !== 0) writer.uint32(136).int32(container.exitCode);
  if (container.statusReason !== "") writer.uint32(146).string(container.statusReason);
  if (container.statusMessage !== "") writer.uint32(154).string(container.statusMessage);
  messages(writer, 162, container.CDIDevices, CDIDevice);
  if (container.user !== undefined) User.encode(container.user, writer.uint32(170).fork()).join();
  if (container.image !== undefined) Image.encode(container.image, writer.uint32(178).fork()).join();
}

/** The protobuf bytes of a SynchronizeRequest. */
export function encodeSynchronizeRequest(request: SynchronizeRequest): Uint8Array {
  const writer = new BinaryWriter();
  const { pods, containers } = request;
  for (let i = 0; i < pods.length; i++) {
    writePod(writer.uint32(10).fork(), pods[i]!);
    writer.join();
  }
  for (let i = 0; i < containers.length; i++) {
    writeContainer(writer.uint32(18).fork(), containers[i]!);
    writer.join();
  }
  if (request.more !== false) writer.uint32(24).bool(request.more);
  return writer.finish();
}
