import type { CDIDevice, Hook, Hooks, LinuxContainerAdjustment, POSIXRlimit } from "@nri-ts/api";
import { Field } from "@nri-ts/api";
import type { SimpleField } from "./fields.js";
import type { AdjustmentTarget } from "./merge-context.js";

/**
 * Args. A leading "" (UpdateArgs) first clears the field for the plugin,
 * so it may replace an earlier plugin's args; then the rest is claimed and
 * becomes the reply's args, the same array as the request copy's.
 */
export function mergeArgs(args: readonly string[], target: AdjustmentTarget): void {
  if (args.length === 0) return;
  const { owners, id, plugin } = target;
  let replacement = args;
  if (replacement[0] === "") {
    owners.clear(id, Field.Args, plugin);
    replacement = replacement.slice(1);
  }
  owners.claim(id, Field.Args, plugin);
  target.reply.args = [...replacement];
  target.container.args = target.reply.args;
}

const HOOK_LISTS = [
  "prestart",
  "poststart",
  "poststop",
  "createRuntime",
  "createContainer",
  "startContainer",
] as const satisfies ReadonlyArray<keyof Hooks>;

/** OCI hooks are appended, never conflict, and add the plugin to the hooks' owners. */
export function mergeHooks(hooks: Hooks | undefined, target: AdjustmentTarget): void {
  if (hooks === undefined) return;
  let claim = false;
  for (const list of HOOK_LISTS) {
    const added: readonly Hook[] = hooks[list];
    if (added.length === 0) continue;
    target.reply.hooks[list].push(...added);
    target.container.hooks[list].push(...added);
    claim = true;
  }
  if (claim) target.owners.claimHooks(target.id, target.plugin);
}

/** A non-empty cgroups path is claimed and overwrites. */
export function mergeCgroupsPath(path: string, target: AdjustmentTarget): void {
  if (path === "") return;
  target.owners.claim(target.id, Field.CgroupsPath, target.plugin);
  target.container.linux.cgroupsPath = path;
  target.reply.linux.cgroupsPath = path;
}

/** Claim a present whole-value field for the plugin and hand the value to `apply`. */
function mergeWhole<V>(
  value: V | undefined,
  field: SimpleField,
  target: AdjustmentTarget,
  apply: (value: V) => void,
): void {
  if (value === undefined) return;
  target.owners.claim(target.id, field, target.plugin);
  apply(value);
}

/* A present oom score adjustment, I/O priority, seccomp policy or scheduler
 * is claimed and replaces the whole value: the same object goes to the reply
 * and to the request copy. */

export function mergeOomScoreAdj(adjustment: LinuxContainerAdjustment, target: AdjustmentTarget): void {
  mergeWhole(adjustment.oomScoreAdj, Field.OomScoreAdj, target, (value) => {
    target.container.linux.oomScoreAdj = value;
    target.reply.linux.oomScoreAdj = value;
  });
}

export function mergeIoPriority(adjustment: LinuxContainerAdjustment, target: AdjustmentTarget): void {
  mergeWhole(adjustment.ioPriority, Field.IoPriority, target, (value) => {
    target.container.linux.ioPriority = value;
    target.reply.linux.ioPriority = value;
  });
}

export function mergeSeccompPolicy(adjustment: LinuxContainerAdjustment, target: AdjustmentTarget): void {
  mergeWhole(adjustment.seccompPolicy, Field.SeccompPolicy, target, (value) => {
    target.container.linux.seccompPolicy = value;
    target.reply.linux.seccompPolicy = value;
  });
}

export function mergeScheduler(adjustment: LinuxContainerAdjustment, target: AdjustmentTarget): void {
  mergeWhole(adjustment.scheduler, Field.LinuxSched, target, (value) => {
    target.container.linux.scheduler = value;
    target.reply.linux.scheduler = value;
  });
}

/** The memory policy is claimed and replaces the reply's; the request copy is not changed. */
export function mergeMemoryPolicy(adjustment: LinuxContainerAdjustment, target: AdjustmentTarget): void {
  mergeWhole(adjustment.memoryPolicy, Field.MemoryPolicy, target, (value) => {
    target.reply.linux.memoryPolicy = value;
  });
}

/** Rlimits: each type is claimed, then appended to reply and request copy (no de-duplication). */
export function mergeRlimits(rlimits: readonly POSIXRlimit[], target: AdjustmentTarget): void {
  for (const rlimit of rlimits) {
    target.owners.claimEntry(target.id, Field.Rlimits, rlimit.type, target.plugin);
    target.container.rlimits.push(rlimit);
    target.reply.rlimits.push(rlimit);
  }
}

/** CDI devices: each name is claimed and appended to the reply; the runtime resolves them later. */
export function mergeCdiDevices(devices: readonly CDIDevice[], target: AdjustmentTarget): void {
  for (const device of devices) {
    target.owners.claimEntry(target.id, Field.CdiDevices, device.name, target.plugin);
    target.reply.CDIDevices.push(device);
  }
}
