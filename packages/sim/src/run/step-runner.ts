/**
 * Runs scenario steps the way a CRI runtime (containerd, CRI-O) drives NRI:
 * which requests go to the plugins in which order, what the runtime does
 * with the answers, and which plugin errors fail the operation (run pod,
 * create, start, update) or are only logged (the post-events, stop,
 * remove). StopContainer goes to the plugins once per container, on exit,
 * stop or remove, whichever comes first; a failed creation is undone with
 * StopContainer and RemoveContainer, as containerd does.
 */
import type { Adaptation } from "@nri-ts/adaptation";
import { ValidatorFailedError, ValidatorRejectedError } from "@nri-ts/adaptation";
import type { ContainerAdjustment, ContainerUpdate, LinuxResources, OwningPlugins } from "@nri-ts/api";
import { Container, LinuxResources as LinuxResourcesFns, PodSandbox } from "@nri-ts/api";
import { applyAdjustment } from "./apply-adjustment.js";
import { applyResources } from "./apply-resources.js";
import { applyUpdates } from "./apply-updates.js";
import { adjustmentChanges, type Change } from "../report/changes.js";
import { filledLinux } from "./container-parts.js";
import { type AdjustmentView, plainOf } from "../report/plain-of.js";
import type { Recorder } from "./recorder.js";
import type { VerdictReport } from "../report/report.js";
import { type ExitStatus, exitStatus, LifecycleError, type SimContainer, type SimRuntime } from "./runtime-state.js";
import type { EvictionSpec, Step, UpdateSpec } from "../scenario/scenario.js";
import { errorText } from "../error-text.js";

/** The requests the runtime sends through the adaptation. */
export type NriRequests = Pick<
  Adaptation,
  | "runPodSandbox"
  | "updatePodSandbox"
  | "postUpdatePodSandbox"
  | "stopPodSandbox"
  | "removePodSandbox"
  | "createContainer"
  | "postCreateContainer"
  | "startContainer"
  | "postStartContainer"
  | "updateContainer"
  | "postUpdateContainer"
  | "stopContainer"
  | "removeContainer"
>;

/** Sends unsolicited updates as a plugin would (the scripted plugins of `plugin-update` steps). */
export type ScriptedUpdater = (plugin: string, updates: ContainerUpdate[], evictions: EvictionSpec[]) => Promise<void>;

/** What a step produced besides what the recorder collected. */
export interface StepOutcome {
  /** Why the step failed, if it did. */
  error?: string;
  adjustment?: AdjustmentView;
  changes: Change[];
  ignored: string[];
  validation: VerdictReport[];
}

/** A step failed after producing something worth reporting (e.g. validators' verdicts). */
class StepFailure extends Error {
  constructor(
    cause: unknown,
    readonly outcome: StepOutcome,
  ) {
    super(errorText(cause), { cause });
  }
}

/** A kill, as for eviction or removing a running container: SIGKILL, exit code 137. */
const KILLED = exitStatus(137);

function emptyOutcome(): StepOutcome {
  return { changes: [], ignored: [], validation: [] };
}

/** Runs an operation whose plugin errors are only logged by the runtime (they show in the events). */
async function logged(operation: Promise<unknown>): Promise<void> {
  try {
    await operation;
  } catch {
    // The failing event carries the error in the report.
  }
}

export class StepRunner {
  /** Evictions asked for during the current step, carried out when it ends. */
  private readonly evictions: { key: string; from: string }[] = [];

  constructor(
    private readonly nri: NriRequests,
    private readonly runtime: SimRuntime,
    private readonly recorder: Recorder,
    private readonly scripted: ScriptedUpdater,
    private readonly sleep: (ms: number) => Promise<void>,
  ) {}

  /** Runs the step; a failure is part of the outcome, never thrown. */
  async run(step: Step): Promise<StepOutcome> {
    try {
      return await this.dispatch(step);
    } catch (error) {
      if (error instanceof StepFailure) return { ...error.outcome, error: error.message };
      return { ...emptyOutcome(), error: errorText(error) };
    }
  }

  private async dispatch(step: Step): Promise<StepOutcome> {
    switch (step.kind) {
      case "run-pod":
        return this.runPod(step.pod);
      case "update-pod":
        return this.updatePod(step.pod, step.resources, step.overhead);
      case "stop-pod":
        return this.stopPod(step.pod);
      case "remove-pod":
        return this.removePod(step.pod);
      case "create":
        return this.create(step.container);
      case "start":
        return this.start(step.container);
      case "update":
        return this.update(step.container, step.resources);
      case "exit":
        await this.exit(this.runtime.container(step.container), exitStatus(step.code, step.reason, step.message));
        return emptyOutcome();
      case "stop":
        return this.stop(step.container, exitStatus(step.code, step.reason, step.message));
      case "remove":
        await this.remove(this.runtime.container(step.container));
        return emptyOutcome();
      case "plugin-update":
        await this.scripted(
          step.plugin,
          step.updates.map((u) => this.toUpdate(u)),
          step.evictions,
        );
        return emptyOutcome();
      case "wait":
        await this.sleep(step.ms);
        return emptyOutcome();
    }
  }

  /** Takes note of an eviction a plugin asked for; it is carried out by `finishEvictions`. */
  requestEviction(containerId: string, reason: string, from: string): void {
    const target = this.runtime.byId(containerId);
    this.recorder.current.evictions.push({ container: target?.key ?? containerId, reason, from });
    if (target) this.evictions.push({ key: target.key, from });
  }

  /** Evicts as containerd does: stops the container at once (SIGKILL). */
  async finishEvictions(): Promise<void> {
    for (const { key } of this.evictions.splice(0)) {
      const target = this.runtime.container(key);
      if (target.phase === "running" || target.phase === "created") await this.exit(target, KILLED);
    }
  }

  private pod(name: string): PodSandbox {
    return PodSandbox.fromPartial(this.runtime.pod(name).sandbox);
  }

  private request(c: SimContainer): { pod: PodSandbox; container: Container } {
    return {
      pod: PodSandbox.fromPartial(this.runtime.podOf(c).sandbox),
      container: Container.fromPartial(c.container),
    };
  }

  private toUpdate(spec: UpdateSpec): ContainerUpdate {
    const target = this.runtime.container(spec.container);
    return {
      containerId: target.spec.id,
      ignoreFailure: spec.ignoreFailure,
      ...(spec.resources && { linux: { resources: spec.resources } }),
    };
  }

  private applyUpdates(updates: readonly (ContainerUpdate | null)[], from: string, owners?: OwningPlugins): void {
    this.recorder.current.updates.push(...applyUpdates(this.runtime, updates, from, owners).reports);
  }

  private async runPod(name: string): Promise<StepOutcome> {
    const pod = this.runtime.runPod(name);
    try {
      await this.nri.runPodSandbox({ pod: this.pod(name) });
    } catch (error) {
      pod.phase = "declared";
      throw error;
    }
    return emptyOutcome();
  }

  private async updatePod(
    name: string,
    resources = LinuxResourcesFns.create(),
    overhead?: LinuxResources,
  ): Promise<StepOutcome> {
    const pod = this.runtime.pod(name);
    if (pod.phase !== "ready")
      throw new LifecycleError(`pod "${name}" is ${pod.phase}; only a ready pod can be updated`);
    await this.nri.updatePodSandbox({
      pod: this.pod(name),
      linuxResources: resources,
      overheadLinuxResources: overhead,
    });
    const linux = (pod.sandbox.linux ??= { cgroupParent: "", cgroupsPath: "", namespaces: [] });
    linux.podResources = resources;
    if (overhead) linux.podOverhead = overhead;
    await logged(this.nri.postUpdatePodSandbox({ pod: this.pod(name) }));
    return emptyOutcome();
  }

  private async stopPod(name: string): Promise<StepOutcome> {
    this.runtime.stopPod(name);
    for (const c of this.runtime.containersOf(name)) {
      if (c.phase === "running" || c.phase === "created") await this.exit(c, exitStatus(0));
    }
    await logged(this.nri.stopPodSandbox({ pod: this.pod(name) }));
    return emptyOutcome();
  }

  private async removePod(name: string): Promise<StepOutcome> {
    const pod = this.runtime.pod(name);
    if (pod.phase === "ready") await this.stopPod(name);
    for (const c of this.runtime.containersOf(name)) await this.remove(c);
    this.runtime.removePod(name);
    await logged(this.nri.removePodSandbox({ pod: this.pod(name) }));
    return emptyOutcome();
  }

  private async create(key: string): Promise<StepOutcome> {
    const c = this.runtime.prepareCreate(key);
    const request = this.request(c);
    let response;
    try {
      response = await this.nri.createContainer(request);
    } catch (error) {
      const outcome = { ...emptyOutcome(), validation: this.verdicts(error) };
      c.nri = "created";
      await this.notifyStopped(c);
      await logged(this.nri.removeContainer(this.request(c)));
      c.nri = "none";
      throw new StepFailure(error, outcome);
    }
    const owners = this.recorder.ownersOf(request);
    const adjust: ContainerAdjustment | undefined = response.adjust;
    const ignored = applyAdjustment(c.container, adjust);
    this.runtime.created(c);
    c.nri = "created";
    this.applyUpdates(response.update, "CreateContainer", owners);
    await logged(this.nri.postCreateContainer(this.request(c)));
    return {
      adjustment: plainOf(adjust) ?? {},
      changes: adjustmentChanges(adjust, c.spec.id, owners),
      ignored,
      validation: this.verdicts(undefined),
    };
  }

  /** Each validator's verdict: the one named by a rejection rejected, the others (that answered) accepted. */
  private verdicts(error: unknown): VerdictReport[] {
    return this.recorder.current.events
      .filter((event) => event.event === "ValidateContainerAdjustment")
      .map(({ plugin, error: failure }) => {
        if (error instanceof ValidatorRejectedError && error.plugin === plugin) {
          return { plugin, accepted: false, reason: error.reason || "unknown rejection reason" };
        }
        if (failure || (error instanceof ValidatorFailedError && error.plugin === plugin)) {
          return { plugin, accepted: false, reason: failure ?? (error as Error).message };
        }
        return { plugin, accepted: true };
      });
  }

  private async start(key: string): Promise<StepOutcome> {
    const c = this.runtime.checkStart(key);
    await this.nri.startContainer(this.request(c));
    this.runtime.started(c);
    c.nri = "running";
    await logged(this.nri.postStartContainer(this.request(c)));
    return emptyOutcome();
  }

  private async update(key: string, resources: LinuxResources): Promise<StepOutcome> {
    const c = this.runtime.container(key);
    if (c.phase !== "created" && c.phase !== "running") {
      throw new LifecycleError(`container "${key}" is ${c.phase}; only a created or running container can be updated`);
    }
    const requested = LinuxResourcesFns.fromPartial(filledLinux(c.container).resources);
    const ignored = applyResources(requested, resources, "update");
    const request = { ...this.request(c), linuxResources: LinuxResourcesFns.fromPartial(requested) };
    const response = await this.nri.updateContainer(request);
    // The last entry is this container's resources as the plugins left them (null if they did not touch them).
    this.applyUpdates(response.update, "UpdateContainer", this.recorder.ownersOf(request));
    if (!response.update.at(-1)) applyResources(filledLinux(c.container).resources, requested, "update");
    await logged(this.nri.postUpdateContainer(this.request(c)));
    return { ...emptyOutcome(), ignored };
  }

  /** The process ends; the plugins hear of it through StopContainer (once). */
  private async exit(c: SimContainer, status: ExitStatus): Promise<void> {
    this.runtime.exited(c, status);
    await this.notifyStopped(c);
  }

  private async stop(key: string, status: ExitStatus): Promise<StepOutcome> {
    const c = this.runtime.container(key);
    if (c.phase === "running" || c.phase === "created") await this.exit(c, status);
    else if (c.phase === "exited") await this.notifyStopped(c);
    else
      throw new LifecycleError(`container "${key}" is ${c.phase}; only a created or running container can be stopped`);
    return emptyOutcome();
  }

  private async notifyStopped(c: SimContainer): Promise<void> {
    if (c.nri !== "created" && c.nri !== "running") return;
    c.nri = "stopped";
    try {
      const request = this.request(c);
      const response = await this.nri.stopContainer(request);
      this.applyUpdates(response.update, "StopContainer", this.recorder.ownersOf(request));
    } catch {
      // Logged by runtimes; the failing event carries the error in the report.
    }
  }

  private async remove(c: SimContainer): Promise<void> {
    if (c.phase === "declared" || c.phase === "removed") {
      throw new LifecycleError(`container "${c.key}" is ${c.phase}; only a created container can be removed`);
    }
    if (c.phase === "running") this.runtime.exited(c, KILLED);
    await this.notifyStopped(c);
    this.runtime.removed(c);
    c.nri = "removed";
    await logged(this.nri.removeContainer(this.request(c)));
  }
}
