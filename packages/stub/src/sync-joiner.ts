import type { Container, PodSandbox, SynchronizeRequest } from "@nri-ts/api";

/** The runtime's whole state, joined from every page of a Synchronize. */
export interface SyncState {
  pods: PodSandbox[];
  containers: Container[];
}

/**
 * Joins the pages of a Synchronize. A runtime sends its state in one
 * request, or, when that is too large for one message, in several: each but
 * the last has `more` set and must be answered `{more: true}` with no
 * updates; the plugin answers for the whole state with the last one.
 */
export class SyncJoiner {
  #pods: PodSandbox[] = [];
  #containers: Container[] = [];

  /** Adds a page; returns the joined state after the last page, undefined before it. */
  add(request: SynchronizeRequest): SyncState | undefined {
    // a loop, not push(...): a page can hold more items than a call takes arguments
    for (const pod of request.pods) this.#pods.push(pod);
    for (const container of request.containers) this.#containers.push(container);
    if (request.more) return undefined;
    const state = { pods: this.#pods, containers: this.#containers };
    this.#pods = [];
    this.#containers = [];
    return state;
  }
}
