/**
 * OOM kills counted by a container's parent cgroup (its pod's, under
 * Kubernetes), for when the container's own cgroup is gone by the time its
 * end is reported (runc removes it as the container ends, and the reporter
 * finds it there, half removed or gone, from one run to the next). The
 * parent outlives the container, so its count is taken when the container
 * is created and compared at its end.
 *
 * That works where the kernel counts a kill in the ancestors' counters:
 * cgroup v2 `memory.events` (kernel 5.2 and later, unless cgroup2 is
 * mounted with `memory_localevents`). cgroup v1 `memory.oom_control` counts
 * a kill only in the killed process's own cgroup, so on v1 the parent
 * tells nothing and none is read.
 *
 * The parent's count is of every process under it: the pod's other
 * containers ran under it too, and the evidence names those the reporter saw.
 */
import type { Container, PodSandbox } from "@nri-ts/api";
import { type OomCheck, OomVerdict } from "../gen/nri_ts/exit_reporter/v1/exit_reporter.js";
import { BoundedMap } from "../record/bounded-map.js";
import { DEFAULT_TRACKED_CONTAINERS } from "../record/exit-tracker.js";
import {
  type CgroupLayout,
  cgroupDirectory,
  cgroupPathOnDisk,
  expandSlice,
  parentCgroup,
  resolveCgroup,
} from "./cgroups.js";
import { type CounterRead, type OwnCgroupCheck, readOomKills } from "./oom.js";

/** The exit code of a process killed by SIGKILL, as the OOM killer kills. */
const SIGKILL_EXIT = 137;
/** How many of the pod's other containers the evidence names; the rest are counted. */
const NAMED_SIBLINGS = 3;

interface Baseline {
  name: string;
  parent: string;
  /** "the pod's cgroup /…" or "its parent cgroup /…". */
  parentSaid: string;
  /** When the count was taken, as the evidence says it. */
  when: string;
  /** The parent's counter then (a read the end's check waits for, should it still be under way). */
  count: Promise<CounterRead | undefined>;
}

/** The pod's cgroup, from its cgroup parent: a path (cgroupfs driver) or a slice's name (systemd driver). */
function podCgroupOf(cgroupParent: string): string | undefined {
  if (cgroupParent.endsWith(".slice") && !cgroupParent.includes("/")) return expandSlice(cgroupParent);
  return cgroupDirectory(cgroupParent);
}

function appended(check: OomCheck, more: string): OomCheck {
  return { ...check, evidence: `${check.evidence}; ${more}` };
}

export class ParentOomCounters {
  private readonly baselines: BoundedMap<string, Baseline>;

  constructor(capacity = DEFAULT_TRACKED_CONTAINERS) {
    this.baselines = new BoundedMap(capacity);
  }

  /**
   * Takes the count of the container's parent cgroup, where it can tell of
   * the container's kills (cgroup v2); never throws. The count is read
   * without blocking; awaiting it (as PostCreateContainer does, before the
   * runtime starts the container) makes sure it is taken before any kill.
   * @param since "created" for a container the runtime is creating, "running" for one seen at Synchronize
   */
  async watch(
    layout: CgroupLayout | undefined,
    pod: PodSandbox | undefined,
    container: Container,
    since: "created" | "running",
  ): Promise<void> {
    if (layout?.version !== 2 || layout.localEvents) return;
    const cgroup = cgroupDirectory(container.linux?.cgroupsPath ?? "");
    const parent = cgroup === undefined ? undefined : parentCgroup(cgroup);
    const directory = parent === undefined || parent === "/" ? undefined : cgroupPathOnDisk(layout, parent);
    if (parent === undefined || directory === undefined) return;
    const podCgroup = podCgroupOf(pod?.linux?.cgroupParent ?? "");
    const isPod = podCgroup !== undefined && resolveCgroup(podCgroup) === parent;
    const parentSaid = isPod ? `the pod's cgroup ${parent}` : `its parent cgroup ${parent}`;
    // a failure is said after "<parentSaid> could not be read <when>: "
    const count = readOomKills(layout, "it", directory).catch(() => undefined);
    this.baselines.put(container.id, {
      name: container.name || container.id,
      parent,
      parentSaid,
      when: since === "created" ? "when the container was created" : "when the reporter first saw it running",
      count,
    });
    await count;
  }

  /**
   * What the parent cgroup says, given what the container's own cgroup
   * said (`own`) as it was gone: a kill counted since the container was
   * created confirms an OOM kill when the container died by SIGKILL;
   * none counted says it was not one. Never throws.
   */
  async check(
    layout: CgroupLayout | undefined,
    container: Container,
    exitCode: number | undefined,
    own: OwnCgroupCheck,
    signal?: AbortSignal,
  ): Promise<OomCheck> {
    if (!layout) return own.check;
    if (layout.version === 1)
      return appended(
        own.check,
        "cgroup v1 counts an OOM kill only in the killed process's own cgroup, not in its pod's",
      );
    if (layout.localEvents)
      return appended(own.check, `memory.events here counts no kill of a cgroup's subtree (${layout.localEvents})`);
    const baseline = this.baselines.get(container.id);
    if (!baseline) return own.check;
    const then = await baseline.count;
    if (!then || "failure" in then) {
      return appended(
        own.check,
        `${baseline.parentSaid} could not be read ${baseline.when}: ${then?.failure ?? "no answer"}`,
      );
    }
    const directory = cgroupPathOnDisk(layout, baseline.parent);
    if (directory === undefined)
      return appended(own.check, `${baseline.parentSaid} lies outside the reporter's view of cgroups`);
    const now = await readOomKills(layout, baseline.parentSaid, directory, signal);
    if ("failure" in now) return appended(own.check, now.failure);
    const counted = `cgroup v${layout.version} ${now.file} oom_kill ${now.count}`;
    const ownSaid = own.gone ? `its own cgroup ${own.gone.cgroup} ${own.gone.how}` : own.check.evidence;
    if (now.count <= then.count) {
      return {
        verdict: OomVerdict.OOM_VERDICT_NOT_FOUND,
        evidence: `${baseline.parentSaid}: ${counted}, as ${baseline.when} (${ownSaid})`,
        path: now.path,
      };
    }
    const rose = `${baseline.parentSaid}: ${counted}, ${then.count} ${baseline.when} (${ownSaid}); ${this.siblings(container.id, baseline)}`;
    if (exitCode === SIGKILL_EXIT) return { verdict: OomVerdict.OOM_VERDICT_CONFIRMED, evidence: rose, path: now.path };
    return {
      verdict: OomVerdict.OOM_VERDICT_UNKNOWN,
      evidence: `${rose}; but the container did not die by SIGKILL (exit 137): the kill may have been of another process under it`,
      path: now.path,
    };
  }

  /** Who else ran under the same parent, as far as the reporter saw. */
  private siblings(containerId: string, baseline: Baseline): string {
    const names: string[] = [];
    for (const [id, other] of this.baselines)
      if (id !== containerId && other.parent === baseline.parent) names.push(other.name);
    if (names.length === 0) return "no other container ran in it, as far as the reporter saw";
    const named = names.slice(0, NAMED_SIBLINGS).join(", ");
    const more = names.length > NAMED_SIBLINGS ? ` and ${names.length - NAMED_SIBLINGS} more` : "";
    return `the count is of every container in it, and ${named}${more} ran in it too: the kill may have been of one of those`;
  }

  /** The container is gone: its count is dropped. */
  forget(containerId: string): void {
    this.baselines.delete(containerId);
  }
}
