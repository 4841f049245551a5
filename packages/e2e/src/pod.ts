/**
 * Pods and containers through CRI, as a kubelet would make them: the
 * helper API the checks are written in.
 *
 * `runtime.runPod(spec)` runs a pod to its end: the sandbox, then each
 * container created and started in order, then waits until each has exited
 * (or stops it, for `stop`), reads what each printed and what crictl says
 * about it, and removes the pod again, also when something failed. A
 * failure (a plugin refusing a container, say) rejects with a
 * {@link PodError} holding crictl's error text.
 *
 * Pods run on the host network (no CNI), in a per-runtime cgroup parent.
 */
import { randomUUID } from "node:crypto";
import { mkdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import type { ContainerInspect, Crictl } from "./cri.js";
import { sleep } from "./exec.js";
import { BUSYBOX_IMAGE } from "./images.js";

export interface MountSpec {
  containerPath: string;
  hostPath: string;
  readonly?: boolean;
}

export interface ContainerSpec {
  /** The container's name: what plugins see as its name (and match annotations on). */
  name: string;
  /** A shell script for busybox's `sh -c`. */
  script?: string;
  /**
   * The line the script prints last, if it matters that its output is read
   * whole (observe.ts's reports): after the exit, the output is read once
   * the log has it (containerd may tell of an exit before its log copier
   * has written the last of the output).
   */
  outputEnd?: string;
  /** The command instead of a script (replaces the image's entrypoint); with neither, the image's own runs. */
  command?: readonly string[];
  args?: readonly string[];
  /** Default the busybox test image. */
  image?: string;
  env?: Readonly<Record<string, string>>;
  labels?: Readonly<Record<string, string>>;
  annotations?: Readonly<Record<string, string>>;
  mounts?: readonly MountSpec[];
  /** CRI's `linux` section of the container config, as is (e.g. `{resources: {memory_limit_in_bytes: ...}}`). */
  linux?: Record<string, unknown>;
  /**
   * Stop it with `crictl stop` (SIGTERM, then SIGKILL after `timeoutSeconds`,
   * default 10) instead of waiting for it to exit, once its output contains
   * `after` (right after the start without `after`).
   */
  stop?: { after?: string; timeoutSeconds?: number };
}

export interface PodSpec {
  /** Default a unique name. */
  name?: string;
  /** Default `e2e`. */
  namespace?: string;
  labels?: Readonly<Record<string, string>>;
  annotations?: Readonly<Record<string, string>>;
  containers: readonly ContainerSpec[];
  /** `pod` (default, as CRI's default): pause is PID 1 of all; `container`: each its own, as a kubelet does by default. */
  pidNamespace?: "pod" | "container";
}

/** A container's end, as crictl and the container's log tell it. */
export interface ContainerResult {
  id: string;
  name: string;
  state: string;
  exitCode: number | undefined;
  reason: string | undefined;
  /** stdout and stderr, interleaved as logged. */
  output: string;
  stdout: string;
  stderr: string;
  /** `crictl inspect`, taken after the end. */
  inspect: ContainerInspect;
}

export interface PodResult {
  id: string;
  name: string;
  namespace: string;
  uid: string;
  containers: Record<string, ContainerResult>;
}

/** A CRI call that failed: which step, for which pod or container, and crictl's error. */
export class PodError extends Error {
  constructor(
    readonly step: string,
    readonly detail: string,
    options?: ErrorOptions,
  ) {
    super(`${step}: ${detail}`, options);
    this.name = "PodError";
  }
}

const NETWORK_NODE = 2;
const PID_MODE = { pod: 0, container: 1 } as const;

/** What a pod needs from its runtime. */
export interface PodHost {
  crictl: Crictl;
  /** Where pods keep their logs. */
  podDir: string;
  cgroupParent: string;
  /** A unique name for a pod without one. */
  uniqueName(prefix: string): string;
  /** Told when a pod is removed, with how long it lived (for the timings). */
  podRemoved(ms: number): void;
}

function podConfig(host: PodHost, spec: PodSpec, name: string, uid: string) {
  const logDirectory = join(host.podDir, name);
  mkdirSync(logDirectory, { recursive: true });
  return {
    metadata: { name, namespace: spec.namespace ?? "e2e", uid, attempt: 0 },
    log_directory: logDirectory,
    labels: spec.labels ?? {},
    annotations: spec.annotations ?? {},
    linux: {
      cgroup_parent: host.cgroupParent,
      security_context: { namespace_options: { network: NETWORK_NODE, pid: PID_MODE[spec.pidNamespace ?? "pod"] } },
    },
  };
}

function containerConfig(spec: ContainerSpec, pod: PodSpec) {
  const command = spec.command ?? (spec.script === undefined ? [] : ["/bin/sh", "-c", spec.script]);
  return {
    metadata: { name: spec.name, attempt: 0 },
    image: { image: spec.image ?? BUSYBOX_IMAGE },
    command,
    args: spec.args ?? [],
    envs: Object.entries(spec.env ?? {}).map(([key, value]) => ({ key, value })),
    labels: spec.labels ?? {},
    annotations: spec.annotations ?? {},
    log_path: `${spec.name}.log`,
    mounts: (spec.mounts ?? []).map((mount) => ({
      container_path: mount.containerPath,
      host_path: mount.hostPath,
      readonly: mount.readonly ?? false,
    })),
    linux: {
      ...spec.linux,
      // the container's own namespaces: CRI takes the PID mode from here, not from the pod
      security_context: {
        namespace_options: { network: NETWORK_NODE, pid: PID_MODE[pod.pidNamespace ?? "pod"] },
        ...(spec.linux?.security_context as object | undefined),
      },
    },
  };
}

/** CRI's log format: `<time> <stdout|stderr> <F|P> <text>`, P lines continued by the next. */
export function parseCriLog(text: string): { output: string; stdout: string; stderr: string } {
  const out = { output: "", stdout: "", stderr: "" };
  for (const line of text.split("\n")) {
    const match = /^\S+ (stdout|stderr) ([FP]) (.*)$/.exec(line);
    if (!match) continue;
    const chunk = match[2] === "F" ? `${match[3]}\n` : match[3];
    out.output += chunk;
    out[match[1] as "stdout" | "stderr"] += chunk;
  }
  return out;
}

/** A container of a live pod. */
export class Container {
  constructor(
    readonly pod: Pod,
    readonly id: string,
    readonly spec: ContainerSpec,
  ) {}

  private get crictl(): Crictl {
    return this.pod.host.crictl;
  }

  async start(): Promise<void> {
    try {
      await this.crictl.run("start", this.id);
    } catch (error) {
      throw new PodError(`StartContainer ${this.spec.name}`, (error as Error).message, { cause: error });
    }
  }

  inspect(): Promise<ContainerInspect> {
    return this.crictl.inspect(this.id);
  }

  /** What it printed so far. */
  logs(): ReturnType<typeof parseCriLog> {
    try {
      return parseCriLog(readFileSync(join(this.pod.logDirectory, `${this.spec.name}.log`), "utf8"));
    } catch {
      return { output: "", stdout: "", stderr: "" };
    }
  }

  /** Waits until its output contains `text`. */
  async waitForOutput(text: string, timeoutMs = 30_000): Promise<void> {
    const deadline = Date.now() + timeoutMs;
    while (!this.logs().output.includes(text)) {
      if (Date.now() > deadline) {
        throw new Error(`container ${this.spec.name} did not print ${JSON.stringify(text)} in ${timeoutMs} ms`);
      }
      await sleep(25);
    }
  }

  /** Waits until it has exited and resolves to crictl's view of it then. */
  async waitExited(timeoutMs = 30_000): Promise<ContainerInspect> {
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      const inspect = await this.inspect();
      if (inspect.status.state === "CONTAINER_EXITED") return inspect;
      if (Date.now() > deadline) {
        throw new Error(
          `container ${this.spec.name} still ${inspect.status.state} after ${timeoutMs} ms; output:\n${this.logs().output}`,
        );
      }
      await sleep(40);
    }
  }

  /** `crictl stop -t <timeout>`: SIGTERM, SIGKILL after the timeout. */
  async stop(timeoutSeconds = 10): Promise<void> {
    await this.crictl.run("stop", "-t", String(timeoutSeconds), this.id);
  }

  /** Its end, once it has exited. */
  async result(): Promise<ContainerResult> {
    const inspect = await this.inspect();
    return {
      id: this.id,
      name: this.spec.name,
      state: inspect.status.state,
      exitCode: inspect.status.exitCode,
      reason: inspect.status.reason,
      ...this.logs(),
      inspect,
    };
  }
}

/** A live pod sandbox. */
export class Pod {
  readonly containers: Container[] = [];
  readonly #started = performance.now();
  #removed = false;

  private constructor(
    readonly host: PodHost,
    readonly spec: PodSpec,
    readonly id: string,
    readonly name: string,
    readonly uid: string,
    private readonly podFile: string,
    readonly logDirectory: string,
  ) {}

  /** `crictl runp`: the sandbox, no containers yet. */
  static async run(host: PodHost, spec: PodSpec): Promise<Pod> {
    const name = spec.name ?? host.uniqueName("pod");
    const uid = randomUUID();
    const config = podConfig(host, spec, name, uid);
    const podFile = host.crictl.spec(`pod-${name}`, config);
    try {
      const id = await host.crictl.runPodSandbox(podFile);
      return new Pod(host, spec, id, name, uid, podFile, config.log_directory);
    } catch (error) {
      throw new PodError(`RunPodSandbox ${name}`, (error as Error).message, { cause: error });
    }
  }

  /** `crictl create`: resolves to the container, or rejects with crictl's error (the pod stays). */
  async create(spec: ContainerSpec): Promise<Container> {
    const file = this.host.crictl.spec(`container-${this.name}-${spec.name}`, containerConfig(spec, this.spec));
    try {
      const container = new Container(this, await this.host.crictl.createContainer(this.id, file, this.podFile), spec);
      this.containers.push(container);
      return container;
    } catch (error) {
      throw new PodError(`CreateContainer ${spec.name} in pod ${this.name}`, (error as Error).message, {
        cause: error,
      });
    }
  }

  /** `crictl stopp` and `rmp`: removes the pod with its containers (once). */
  async remove(): Promise<void> {
    if (this.#removed) return;
    this.#removed = true;
    await this.host.crictl.run("stopp", this.id);
    await this.host.crictl.run("rmp", "-f", this.id);
    this.host.podRemoved(performance.now() - this.#started);
  }
}

/** Runs a pod to its end; see the module comment. */
export async function runPod(host: PodHost, spec: PodSpec): Promise<PodResult> {
  const pod = await Pod.run(host, spec);
  try {
    for (const containerSpec of spec.containers) {
      await (await pod.create(containerSpec)).start();
    }
    for (const container of pod.containers) {
      const { stop } = container.spec;
      if (stop) {
        if (stop.after !== undefined) await container.waitForOutput(stop.after);
        await container.stop(stop.timeoutSeconds);
      }
      await container.waitExited();
      // seen on containerd 2.1.9: an observe report missing whole, read right after the exit
      const { outputEnd } = container.spec;
      if (outputEnd !== undefined) await container.waitForOutput(outputEnd, 10_000).catch(() => undefined);
    }
    const results = await Promise.all(pod.containers.map((container) => container.result()));
    return {
      id: pod.id,
      name: pod.name,
      namespace: spec.namespace ?? "e2e",
      uid: pod.uid,
      containers: Object.fromEntries(results.map((result) => [result.name, result])),
    };
  } finally {
    await pod.remove();
  }
}
