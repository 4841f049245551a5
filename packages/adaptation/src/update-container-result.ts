import type { ContainerEviction, ContainerUpdate, StopContainerResponse, UpdateContainerRequest } from "@nri-ts/api";
import { UpdateMerger } from "./merge/merge-updates.js";
import type { FilledUpdateContainerRequest } from "./merge/normalize.js";
import { fillUpdateContainerRequest } from "./merge/normalize.js";
import { Ownership } from "./merge/owners.js";

/**
 * UpdateContainer's merged reply. QUIRK (reproduced): the requested
 * container's entry is always last, and is null when no plugin updated it.
 */
export interface MergedUpdateContainerResponse {
  update: Array<ContainerUpdate | null>;
  evict: ContainerEviction[];
}

/** A plugin's answer to UpdateContainer or StopContainer: only its updates count. */
export interface UpdatesResponse {
  update: ContainerUpdate[];
}

/**
 * The merged result of one UpdateContainer request. The request's resources
 * are filled in (memory, cpu) and become the base of the requested
 * container's entry; after each plugin that updated it, the request holds
 * the merged resources, so later plugins see them.
 */
export class UpdateContainerResult {
  readonly request: FilledUpdateContainerRequest;
  readonly owners = new Ownership();
  private readonly updates: UpdateMerger;

  constructor(request: UpdateContainerRequest) {
    this.request = fillUpdateContainerRequest(request);
    this.updates = new UpdateMerger(this.owners, { requested: this.request });
  }

  /** Merge one plugin's updates; evictions are ignored, as in Go. */
  apply(response: UpdatesResponse | null | undefined, plugin: string): void {
    if (response == null) return;
    this.updates.merge(response.update, plugin);
  }

  /** Updates of other containers in first-seen order, then the requested container's entry or null. */
  response(): MergedUpdateContainerResponse {
    const requested = this.updates.entry(this.request.container.id) ?? null;
    return { update: [...this.updates.entries, requested], evict: [] };
  }
}

/** The merged result of one StopContainer request: plugins may update any container, the stopped one included. */
export class StopContainerResult {
  readonly owners = new Ownership();
  private readonly updates = new UpdateMerger(this.owners, {});

  apply(response: UpdatesResponse | null | undefined, plugin: string): void {
    if (response == null) return;
    this.updates.merge(response.update, plugin);
  }

  response(): StopContainerResponse {
    return { update: this.updates.entries };
  }
}
