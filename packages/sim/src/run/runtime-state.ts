/**
 * The simulated runtime's pods and containers, with the state a CRI runtime
 * keeps: phases, pids, and the container status it fills in as things
 * happen (`createdAt` at create, `startedAt` at start, `finishedAt`,
 * `exitCode`, `statusReason` and `statusMessage` at exit).
 */
import type { PodSandbox } from "@nri-ts/api";
import {
  Container,
  ContainerState,
  LinuxResources as LinuxResourcesFns,
  PodSandbox as PodSandboxFns,
} from "@nri-ts/api";
import { emptyResources } from "./container-parts.js";
import type { ContainerSpec, PodSpec, Scenario } from "../scenario/scenario.js";

/** Nanoseconds since the Unix epoch, as the status fields carry them. */
export type Clock = () => bigint;

export type PodPhase = "declared" | "ready" | "stopped" | "removed";
export type ContainerPhase = "declared" | "created" | "running" | "exited" | "removed";

/**
 * What the plugins have been told about a container, tracked as CRI-O's NRI
 * glue tracks it: StopContainer goes out once (on exit, stop or remove,
 * whichever comes first), RemoveContainer once.
 */
export type NriPhase = "none" | "created" | "running" | "stopped" | "removed";

/** A step asked for something the container or pod cannot do in its phase. */
export class LifecycleError extends Error {
  override readonly name = "LifecycleError";
}

export interface SimPod {
  spec: PodSpec;
  phase: PodPhase;
  sandbox: PodSandbox;
}

export interface SimContainer {
  /** `pod/name`. */
  key: string;
  spec: ContainerSpec;
  phase: ContainerPhase;
  nri: NriPhase;
  /** The container as plugins receive it. */
  container: Container;
}

/** Exit details; a runtime reports `Completed` for code 0 and `Error` otherwise unless told why. */
export interface ExitStatus {
  code: number;
  reason: string;
  message: string;
}

export function exitStatus(code = 0, reason?: string, message = ""): ExitStatus {
  return { code, reason: reason ?? (code === 0 ? "Completed" : "Error"), message };
}

const FIRST_POD_PID = 4000;
const PIDS_PER_POD = 100;

function cloneResources(resources: PodSpec["resources"]): PodSpec["resources"] {
  return resources && LinuxResourcesFns.fromPartial(resources);
}

function podSandbox(spec: PodSpec, index: number): PodSandbox {
  return PodSandboxFns.fromPartial({
    id: spec.id,
    name: spec.name,
    uid: spec.uid,
    namespace: spec.namespace,
    labels: { ...spec.labels },
    annotations: { ...spec.annotations },
    runtimeHandler: spec.runtimeHandler,
    linux: {
      podOverhead: cloneResources(spec.overhead),
      podResources: cloneResources(spec.resources),
      cgroupParent: spec.cgroupParent,
      cgroupsPath: "",
      namespaces: [
        ...(spec.hostNetwork ? [] : [{ type: "network", path: `/var/run/netns/cni-${spec.uid}` }]),
        { type: "ipc", path: "" },
        { type: "uts", path: "" },
      ],
    },
    pid: 0,
    ips: spec.ips ?? (spec.hostNetwork ? [] : [`10.88.0.${index + 2}`]),
  });
}

function newContainer(spec: ContainerSpec, pod: SimPod, now: bigint): Container {
  return Container.fromPartial({
    id: spec.id,
    podSandboxId: pod.spec.id,
    name: spec.name,
    state: ContainerState.CONTAINER_CREATED,
    labels: { ...spec.labels },
    annotations: { ...spec.annotations },
    args: [...spec.args],
    env: [...spec.env],
    mounts: spec.mounts,
    linux: {
      namespaces: [...(pod.sandbox.linux?.namespaces ?? []), { type: "mount", path: "" }],
      devices: [],
      resources: spec.resources ? LinuxResourcesFns.fromPartial(spec.resources) : emptyResources(),
      cgroupsPath: "",
      sysctl: {},
      netDevices: {},
    },
    rlimits: spec.rlimits,
    createdAt: now,
    image: { name: spec.image, digest: "", configDigest: "" },
  });
}

export class SimRuntime {
  readonly pods = new Map<string, SimPod>();
  readonly containers = new Map<string, SimContainer>();
  private nextPid = FIRST_POD_PID;

  constructor(
    scenario: Scenario,
    readonly clock: Clock,
  ) {
    for (const [i, spec] of scenario.pods.entries()) {
      this.pods.set(spec.name, { spec, phase: "declared", sandbox: podSandbox(spec, i) });
    }
    for (const spec of scenario.containers) {
      const key = `${spec.pod}/${spec.name}`;
      this.containers.set(key, {
        key,
        spec,
        phase: "declared",
        nri: "none",
        container: Container.fromPartial({ id: spec.id, name: spec.name, podSandboxId: "" }),
      });
    }
  }

  pod(name: string): SimPod {
    const pod = this.pods.get(name);
    if (!pod) throw new LifecycleError(`no pod "${name}"`);
    return pod;
  }

  container(key: string): SimContainer {
    const container = this.containers.get(key);
    if (!container) throw new LifecycleError(`no container "${key}"`);
    return container;
  }

  podOf(container: SimContainer): SimPod {
    return this.pod(container.spec.pod);
  }

  /** The container with this id, unless it was never created or is removed. */
  byId(id: string): SimContainer | undefined {
    for (const c of this.containers.values()) {
      if (c.spec.id === id && c.phase !== "declared" && c.phase !== "removed") return c;
    }
    return undefined;
  }

  /** The containers of a pod that exist (created and not removed). */
  containersOf(pod: string): SimContainer[] {
    return [...this.containers.values()].filter(
      (c) => c.spec.pod === pod && c.phase !== "declared" && c.phase !== "removed",
    );
  }

  /**
   * Copies of the pods and containers Synchronize hands a plugin: every pod
   * that exists, and the containers that are created or running (containerd
   * leaves exited ones out).
   */
  snapshot(): { pods: PodSandbox[]; containers: Container[] } {
    const pods = [...this.pods.values()]
      .filter((p) => p.phase === "ready" || p.phase === "stopped")
      .map((p) => PodSandboxFns.fromPartial(p.sandbox));
    const containers = [...this.containers.values()]
      .filter((c) => c.phase === "created" || c.phase === "running")
      .map((c) => Container.fromPartial(c.container));
    return { pods, containers };
  }

  runPod(name: string): SimPod {
    const pod = this.pod(name);
    if (pod.phase !== "declared")
      throw new LifecycleError(`pod "${name}" is ${pod.phase}; only a declared pod can run`);
    pod.phase = "ready";
    pod.sandbox.pid = this.nextPid;
    this.nextPid += PIDS_PER_POD;
    return pod;
  }

  stopPod(name: string): SimPod {
    const pod = this.pod(name);
    if (pod.phase !== "ready") throw new LifecycleError(`pod "${name}" is ${pod.phase}; only a ready pod can stop`);
    pod.phase = "stopped";
    return pod;
  }

  removePod(name: string): SimPod {
    const pod = this.pod(name);
    if (pod.phase === "declared" || pod.phase === "removed") {
      throw new LifecycleError(`pod "${name}" is ${pod.phase}; only a ready or stopped pod can be removed`);
    }
    pod.phase = "removed";
    return pod;
  }

  /** The container as the CreateContainer request carries it: state CREATED, `createdAt` now. */
  prepareCreate(key: string): SimContainer {
    const c = this.container(key);
    if (c.phase !== "declared")
      throw new LifecycleError(`container "${key}" is ${c.phase}; only a declared container can be created`);
    const pod = this.podOf(c);
    if (pod.phase !== "ready")
      throw new LifecycleError(`pod "${pod.spec.name}" is ${pod.phase}; run it before creating containers in it`);
    c.container = newContainer(c.spec, pod, this.clock());
    return c;
  }

  created(c: SimContainer): void {
    c.phase = "created";
  }

  checkStart(key: string): SimContainer {
    const c = this.container(key);
    if (c.phase !== "created")
      throw new LifecycleError(`container "${key}" is ${c.phase}; only a created container can start`);
    return c;
  }

  /** The process runs: state RUNNING, a pid, `startedAt` now. */
  started(c: SimContainer): void {
    c.phase = "running";
    c.container.state = ContainerState.CONTAINER_RUNNING;
    c.container.startedAt = this.clock();
    c.container.pid = this.podOf(c).sandbox.pid + 1 + [...this.containers.values()].indexOf(c);
  }

  /** The process ended: state STOPPED with `finishedAt`, exit code, reason and message. */
  exited(c: SimContainer, status: ExitStatus): void {
    if (c.phase !== "running" && c.phase !== "created") {
      throw new LifecycleError(`container "${c.key}" is ${c.phase}; only a running or created container can exit`);
    }
    c.phase = "exited";
    c.container.state = ContainerState.CONTAINER_STOPPED;
    c.container.finishedAt = this.clock();
    c.container.exitCode = status.code;
    c.container.statusReason = status.reason;
    c.container.statusMessage = status.message;
  }

  removed(c: SimContainer): void {
    c.phase = "removed";
  }
}
