import type { ContainerAdjustment } from "@nri-ts/api";
import {
  mergeArgs,
  mergeCdiDevices,
  mergeCgroupsPath,
  mergeHooks,
  mergeIoPriority,
  mergeMemoryPolicy,
  mergeOomScoreAdj,
  mergeRlimits,
  mergeScheduler,
  mergeSeccompPolicy,
} from "./merge-container-fields.js";
import type { AdjustmentTarget } from "./merge-context.js";
import { mergeDevices, mergeEnv, mergeMounts } from "./merge-lists.js";
import { mergeAnnotations, mergeNetDevices, mergeSysctl } from "./merge-maps.js";
import { mergeNamespaces } from "./merge-namespaces.js";
import { mergeRdt } from "./merge-rdt.js";
import { mergeAdjustedResources } from "./merge-resources.js";

/**
 * Merge one plugin's adjustment in the Go adaptation's order; the first
 * conflict throws and ends the request. The Linux part runs only when the
 * adjustment has one; rlimits and CDI devices always run last.
 */
export function mergeAdjustment(adjustment: ContainerAdjustment, target: AdjustmentTarget): void {
  mergeAnnotations(adjustment.annotations, target);
  mergeMounts(adjustment.mounts, target);
  mergeEnv(adjustment.env, target);
  mergeArgs(adjustment.args, target);
  mergeHooks(adjustment.hooks, target);
  const linux = adjustment.linux;
  if (linux !== undefined) {
    mergeDevices(linux.devices, target);
    mergeAdjustedResources(linux.resources, target);
    mergeCgroupsPath(linux.cgroupsPath, target);
    mergeOomScoreAdj(linux, target);
    mergeIoPriority(linux, target);
    mergeSeccompPolicy(linux, target);
    mergeNamespaces(linux.namespaces, target);
    mergeSysctl(linux.sysctl, target);
    mergeNetDevices(linux.netDevices, target);
    mergeScheduler(linux, target);
    mergeRdt(linux.rdt, target);
    mergeMemoryPolicy(linux, target);
  }
  mergeRlimits(adjustment.rlimits, target);
  mergeCdiDevices(adjustment.CDIDevices, target);
}
