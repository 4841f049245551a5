import type { ContainerUpdate } from "@nri-ts/api";
import { Field } from "@nri-ts/api";
import { goQuote } from "@nri-ts/common";
import { copyResources } from "./copy-resources.js";
import type { Claimant } from "./merge-resources.js";
import { mergeCpu, mergeMemory } from "./merge-resources.js";
import type { FilledResources, FilledUpdateContainerRequest } from "./normalize.js";
import { emptyResources } from "./normalize.js";
import { ConflictError } from "./owners.js";
import type { Ownership } from "./owners.js";

/** A plugin asked to update the very container that is being created. */
export class CreationUpdateError extends Error {
  override readonly name = "CreationUpdateError";
  constructor(
    readonly plugin: string,
    readonly containerId: string,
  ) {
    super(`plugin ${goQuote(plugin)} asked update of ${goQuote(containerId)} during creation`);
  }
}

/** A merged update: one per container, its resources always present. */
export type MergedUpdate = ContainerUpdate & { linux: { resources: FilledResources } };

/** What the updates are merged for. */
export interface UpdateScope {
  /** CreateContainer: the id of the container being created, which plugins may not update. */
  readonly creating?: string;
  /** UpdateContainer: the request, whose container's entry starts from the requested resources and goes last. */
  readonly requested?: FilledUpdateContainerRequest;
}

/**
 * Merges the `update` lists of plugin responses: one entry per container,
 * in first-seen order; `ignoreFailure` is AND-ed over every plugin that
 * touched the container; each resource field is claimed per container.
 */
export class UpdateMerger {
  private readonly byId = new Map<string, MergedUpdate>();
  /** The merged entries in first-seen order (UpdateContainer: without the requested container's). */
  readonly entries: MergedUpdate[] = [];

  constructor(
    private readonly owners: Ownership,
    private readonly scope: UpdateScope,
  ) {}

  /** The merged entry of a container, if a plugin touched it. */
  entry(id: string): MergedUpdate | undefined {
    return this.byId.get(id);
  }

  /**
   * Merge one plugin's updates in order. A conflict fails the request unless
   * the update that hit it has `ignoreFailure`; then the entry keeps its
   * resources (claims made before the conflict stay: a Go quirk).
   */
  merge(updates: readonly ContainerUpdate[], plugin: string): void {
    for (const update of updates) {
      const entry = this.entryFor(update, plugin);
      try {
        this.mergeResources(entry, update, plugin);
      } catch (error) {
        if (!(error instanceof ConflictError) || !update.ignoreFailure) throw error;
      }
    }
  }

  private entryFor(update: ContainerUpdate, plugin: string): MergedUpdate {
    const id = update.containerId;
    if (this.scope.creating === id) throw new CreationUpdateError(plugin, id);

    const existing = this.byId.get(id);
    if (existing !== undefined) {
      existing.ignoreFailure = existing.ignoreFailure && update.ignoreFailure;
      return existing;
    }

    const entry: MergedUpdate = {
      containerId: id,
      linux: { resources: emptyResources() },
      ignoreFailure: update.ignoreFailure,
    };
    this.byId.set(id, entry);
    if (!this.isRequested(id)) this.entries.push(entry);
    return entry;
  }

  private isRequested(id: string): boolean {
    return this.scope.requested?.container.id === id;
  }

  /**
   * Work on a copy of the container's current resources (for the requested
   * container: the request's) so that a failure changes nothing, then store
   * copies in the entry and, for the requested container, in the request.
   */
  private mergeResources(entry: MergedUpdate, update: ContainerUpdate, plugin: string): void {
    const resources = update.linux?.resources;
    if (resources === undefined) return;
    const id = update.containerId;
    const requested = this.isRequested(id) ? this.scope.requested : undefined;
    const base = copyResources(requested?.linuxResources ?? entry.linux.resources);
    const claimant: Claimant = { owners: this.owners, id, plugin };

    mergeMemory(resources.memory, [base.memory], claimant);
    mergeCpu(resources.cpu, [base.cpu], claimant);
    for (const limit of resources.hugepageLimits) {
      this.owners.claimEntry(id, Field.HugepageLimits, limit.pageSize, plugin);
      base.hugepageLimits.push(limit);
    }
    for (const [key, value] of Object.entries(resources.unified)) {
      this.owners.claimEntry(id, Field.CgroupsUnified, key, plugin);
      base.unified[key] = value;
    }
    if (resources.blockioClass !== undefined) {
      this.owners.claim(id, Field.BlockioClass, plugin);
      base.blockioClass = { ...resources.blockioClass };
    }
    if (resources.rdtClass !== undefined) {
      this.owners.claim(id, Field.RdtClass, plugin);
      base.rdtClass = { ...resources.rdtClass };
    }
    // QUIRK (reproduced): Go tests the base, not the update, for pids. The
    // plugin's pids are never applied; a base that has pids (only the
    // requested container's) is claimed anyway.
    if (base.pids !== undefined) {
      this.owners.claim(id, Field.PidsLimit, plugin);
      base.pids = { limit: base.pids.limit };
    }

    entry.linux.resources = copyResources(base);
    if (requested !== undefined) requested.linuxResources = copyResources(base);
  }
}
