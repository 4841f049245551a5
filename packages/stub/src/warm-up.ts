import { type Container, type DeepPartial, type LinuxResources, PluginDefinition, type PodSandbox } from "@nri-ts/api";
import type { AnyMessageType } from "@nri-ts/ttrpc";
import type { AdjustmentInput, Plugin, UpdateInput } from "./plugin.js";
import { createContainerResponse, toUpdates, updateContainerResponse } from "./results.js";
import { HANDLER_EVENTS } from "./subscription.js";

/*
 * V8 compiles a function the first time it runs. A plugin's first request
 * of a kind runs the decoders of every message type it carries (pod,
 * container, their Linux parts, resources, mounts, hooks...) and its
 * response's encoder for the first time: compiling them took longer than
 * the rest of that request (see the README's "The first requests"). Once synchronized, while the plugin waits for
 * the runtime's first event, the stub decodes an exemplar request and
 * encodes a response of each kind its handlers take (for those that answer
 * with changes, from a typical answer: an adjustment, an update), so that
 * the real ones find the code compiled. Once is enough: running them more often
 * (V8 then gathers type feedback) did not make the first requests faster.
 * Nothing is sent and no handler is called.
 */

function resources(): DeepPartial<LinuxResources> {
  return {
    memory: { limit: { value: 1n << 30n }, swap: { value: 1n << 30n } },
    cpu: { shares: { value: 1024n }, quota: { value: 100_000n }, period: { value: 100_000n }, cpus: "0-1", mems: "0" },
    hugepageLimits: [{ pageSize: "2MB", limit: 0n }],
    unified: { "memory.high": "max" },
    pids: { limit: 1024n },
  };
}

/**
 * The fields of a lifecycle request as a CRI runtime fills them in, one of
 * each kind; a request type takes those it has (`fromPartial` drops the others).
 */
function exemplar(): Record<string, unknown> {
  const namespaces = [
    { type: "pid", path: "" },
    { type: "network", path: "/var/run/netns/cni-0" },
  ];
  const labels = { "io.kubernetes.pod.name": "pod", "io.kubernetes.pod.namespace": "default" };
  const pod: DeepPartial<PodSandbox> = {
    id: "0".repeat(64),
    name: "pod",
    uid: "00000000-0000-0000-0000-000000000000",
    namespace: "default",
    labels,
    annotations: { "io.kubernetes.cri.sandbox-id": "0".repeat(64) },
    runtimeHandler: "runc",
    linux: {
      cgroupParent: "/kubepods",
      cgroupsPath: "/kubepods/pod",
      namespaces,
      podResources: resources(),
      resources: resources(),
    },
    pid: 1000,
    ips: ["10.0.0.1"],
  };
  const container: DeepPartial<Container> = {
    id: "1".repeat(64),
    podSandboxId: "0".repeat(64),
    name: "ctr",
    state: 1,
    labels,
    annotations: { "io.kubernetes.cri.container-type": "container" },
    args: ["/bin/sh", "-c", "true"],
    env: ["PATH=/usr/bin:/bin"],
    mounts: [
      { destination: "/etc/hosts", type: "bind", source: "/var/lib/hosts", options: ["rbind", "rprivate", "rw"] },
    ],
    hooks: { prestart: [{ path: "/bin/hook", args: ["hook"], env: ["A=b"], timeout: { value: 5 } }] },
    linux: {
      namespaces,
      devices: [
        {
          path: "/dev/null",
          type: "c",
          major: 1n,
          minor: 3n,
          fileMode: { value: 0o666 },
          uid: { value: 0 },
          gid: { value: 0 },
        },
      ],
      resources: resources(),
      oomScoreAdj: { value: 1000 },
      cgroupsPath: "/kubepods/pod/ctr",
      sysctl: { "net.ipv4.ip_forward": "1" },
    },
    pid: 1001,
    rlimits: [{ type: "RLIMIT_NOFILE", hard: 1024n, soft: 1024n }],
    createdAt: 1n,
    user: { uid: 0, gid: 0, additionalGids: [1] },
  };
  return { pod, container, linuxResources: resources(), overheadLinuxResources: resources() };
}

/** An adjustment as plugins answer one: a plain object, checked on its way out. */
const adjustment = (): AdjustmentInput => ({
  annotations: { "example.com/adjusted": "true" },
  env: [{ key: "ADJUSTED", value: "1" }],
  mounts: [{ destination: "/run/x", type: "bind", source: "/run/x", options: ["ro"] }],
  linux: { resources: { memory: { limit: { value: 1n << 30n } }, cpu: { shares: { value: 512n } } } },
});
const update = (): UpdateInput => ({
  containerId: "1".repeat(64),
  linux: { resources: { memory: { limit: { value: 1n << 30n } }, cpu: { shares: { value: 512n } } } },
});

/**
 * The answer each handler that answers with changes gives, as the stub turns
 * it into a response (what it compiles is the plugin's answer path, not the
 * plugin's code); the others answer empty.
 */
const ANSWERS: Readonly<Record<string, () => unknown>> = {
  createContainer: () => createContainerResponse(adjustment()),
  updateContainer: () => updateContainerResponse([update()]),
  stopContainer: () => ({ update: toUpdates([update()], "stopContainer result") }),
};

/**
 * One step per Plugin service method the plugin has a handler for: decodes
 * that method's exemplar request and encodes its response.
 */
export function codecRehearsals(plugin: Plugin): Array<() => void> {
  const methods: Readonly<Record<string, { requestType: AnyMessageType; responseType: AnyMessageType }>> =
    PluginDefinition.methods;
  const request = exemplar();
  return Object.keys(HANDLER_EVENTS)
    .filter((handler) => typeof plugin[handler as keyof Plugin] === "function")
    .map((handler) => () => {
      const { requestType, responseType } = methods[handler]!;
      const bytes = requestType.encode(requestType.fromPartial(request as never) as never).finish();
      // as the server gets a request: a Buffer (a view into a received chunk)
      const payload = Buffer.from(bytes.buffer, bytes.byteOffset, bytes.length);
      requestType.decode(payload);
      const answer = ANSWERS[handler]?.() ?? {};
      responseType.encode(responseType.fromPartial(answer as never) as never).finish();
    });
}

let warmed = false;

/**
 * Runs the plugin's codec rehearsals, one per turn of the event loop, so
 * that a request arriving meanwhile waits for one at most. Once per
 * process: compiled code serves every stub in it.
 */
export function warmUpCodecs(plugin: Plugin): void {
  if (warmed) return;
  warmed = true;
  const steps = codecRehearsals(plugin);
  const next = (): void => {
    steps.shift()?.();
    if (steps.length > 0) setImmediate(next);
  };
  setImmediate(next);
}
