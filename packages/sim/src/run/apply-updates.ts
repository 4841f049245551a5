/**
 * The runtime side of container updates: what containerd and CRI-O do with
 * the updates in a CreateContainer, UpdateContainer or StopContainer reply,
 * a Synchronize reply, or an unsolicited UpdateContainers from a plugin.
 * An update names a container by id. As in containerd, an update of a
 * container that does not exist is skipped without failing; one that
 * cannot apply (the container has exited) fails unless the plugins allowed
 * it to (`ignoreFailure`).
 */
import type { ContainerUpdate, OwningPlugins } from "@nri-ts/api";
import { applyResources } from "./apply-resources.js";
import { resourceUpdateChanges } from "../report/changes.js";
import { filledLinux } from "./container-parts.js";
import { plainOf } from "../report/plain-of.js";
import type { UpdateReport } from "../report/report.js";
import type { SimRuntime } from "./runtime-state.js";

export interface AppliedUpdates {
  reports: UpdateReport[];
  /** The updates that failed without `ignoreFailure`, as the runtime reports them back. */
  failed: ContainerUpdate[];
}

export function applyUpdates(
  runtime: SimRuntime,
  updates: readonly (ContainerUpdate | null)[],
  from: string,
  owners?: OwningPlugins,
): AppliedUpdates {
  const reports: UpdateReport[] = [];
  const failed: ContainerUpdate[] = [];
  for (const update of updates) {
    if (!update) continue;
    const target = runtime.byId(update.containerId);
    const resources = update.linux?.resources;
    const report: UpdateReport = {
      container: target?.key ?? update.containerId,
      from,
      ...(resources && { resources: plainOf(resources) ?? {} }),
      ignoreFailure: update.ignoreFailure,
      changes: resourceUpdateChanges(resources, update.containerId, owners),
      applied: false,
    };
    if (!target) {
      report.error = "no such container (skipped)";
    } else if (target.phase === "exited") {
      report.error = `container ${target.key} has exited`;
      if (!update.ignoreFailure) failed.push(update);
    } else {
      report.applied = true;
      const ignored = resources ? applyResources(filledLinux(target.container).resources, resources, "update") : [];
      if (ignored.length > 0) report.ignored = ignored;
    }
    reports.push(report);
  }
  return { reports, failed };
}
