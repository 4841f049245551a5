/**
 * Decides which NRI events are container ends to report, so that the same
 * exit is never reported twice:
 *
 * - StopContainer is the end, once per container; whatever its state
 *   (containerd 2.4 sends STOPPED, or UNKNOWN for a container that failed
 *   to start; 2.2 sends RUNNING and no status).
 * - RemoveContainer after it is not a new exit, whatever its state says
 *   (containerd 2.4 sends UNKNOWN, 2.2 STOPPED): the container is forgotten.
 * - RemoveContainer without a StopContainer is reported only for a
 *   container the reporter watched live (it saw it created, or running at
 *   Synchronize) that has ended: one that ended before the reporter
 *   connected may have been reported by an earlier instance.
 */
import { type Container, ContainerState } from "@nri-ts/api";
import { BoundedMap } from "./bounded-map.js";
import type { ExitEvent } from "./record.js";

export type Decision = { report: true } | { report: false; why: string };

/** How many containers the tracker remembers at once; the oldest are forgotten beyond. */
export const DEFAULT_TRACKED_CONTAINERS = 65_536;

function hasEnded(container: Container): boolean {
  return (
    container.finishedAt !== 0n || container.exitCode !== 0 || container.state === ContainerState.CONTAINER_STOPPED
  );
}

export class ExitTracker {
  private readonly watched: BoundedMap<string, true>;
  private readonly reported: BoundedMap<string, bigint>;

  constructor(capacity = DEFAULT_TRACKED_CONTAINERS) {
    this.watched = new BoundedMap(capacity);
    this.reported = new BoundedMap(capacity);
  }

  /** The reporter saw the container live. */
  watch(containerId: string): void {
    if (!this.reported.has(containerId)) this.watched.put(containerId, true);
  }

  decide(event: ExitEvent, container: Container): Decision {
    const sequence = this.reported.get(container.id);
    if (sequence !== undefined) return { report: false, why: `its end was reported already (record ${sequence})` };
    if (event === "StopContainer") return { report: true };
    if (!this.watched.has(container.id)) return { report: false, why: "it ended before the reporter was watching it" };
    if (!hasEnded(container)) return { report: false, why: "it was removed without having run" };
    return { report: true };
  }

  /** The record that reported the container's end, if any. */
  reportedAs(containerId: string): bigint | undefined {
    return this.reported.get(containerId);
  }

  markReported(containerId: string, sequence: bigint): void {
    this.watched.delete(containerId);
    this.reported.put(containerId, sequence);
  }

  /** The container is gone: nothing more will be said about it. */
  removed(containerId: string): void {
    this.watched.delete(containerId);
    this.reported.delete(containerId);
  }
}
