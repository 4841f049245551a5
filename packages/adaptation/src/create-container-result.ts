import type { ContainerUpdate, CreateContainerRequest, CreateContainerResponse } from "@nri-ts/api";
import { Container } from "@nri-ts/api";
import { mergeAdjustment } from "./merge/merge-adjustment.js";
import { UpdateMerger } from "./merge/merge-updates.js";
import type { FilledAdjustment, FilledCreateContainerRequest } from "./merge/normalize.js";
import { emptyAdjustment, fillCreateContainerRequest } from "./merge/normalize.js";
import { Ownership } from "./merge/owners.js";
import { ValidationRequestBuilder } from "./validation/validation.js";

/**
 * The merged result of one CreateContainer request. Construct it with the
 * runtime's request (which it fills in and then mutates, so that every
 * plugin sees what the plugins before it changed: send `result.request` to
 * the next plugin), apply each plugin's response in invocation order, then
 * take `response()`. Errors thrown by `apply` (ConflictError,
 * CreationUpdateError) fail the whole request.
 */
export class CreateContainerResult {
  readonly request: FilledCreateContainerRequest;
  /** Who set what in this request; handed to validators. */
  readonly owners = new Ownership();
  private readonly adjust: FilledAdjustment = emptyAdjustment();
  private readonly updates: UpdateMerger;
  private applied = 0;

  constructor(request: CreateContainerRequest) {
    this.request = fillCreateContainerRequest(request);
    this.updates = new UpdateMerger(this.owners, { creating: this.request.container.id });
  }

  /**
   * Start collecting the validation request. Call it before the first
   * `apply`: the container validators see is this moment's copy.
   */
  startValidation(): ValidationRequestBuilder {
    if (this.applied > 0) throw new Error("validation must start before any plugin response is applied");
    return new ValidationRequestBuilder(this.request.pod, Container.fromPartial(this.request.container));
  }

  /**
   * Merge one plugin's response: its adjustment, then its updates. An absent
   * response (plugin not subscribed, or closed after a transport error)
   * changes nothing. Evictions are ignored, as in Go.
   */
  apply(response: CreateContainerResponse | null | undefined, plugin: string): void {
    this.applied += 1;
    if (response == null) return;
    if (response.adjust !== undefined) {
      mergeAdjustment(response.adjust, {
        owners: this.owners,
        id: this.request.container.id,
        plugin,
        container: this.request.container,
        reply: this.adjust,
      });
    }
    this.updates.merge(response.update, plugin);
  }

  /** The merged reply: the adjustment (never absent) and the updates of other containers. */
  response(): CreateContainerResponse {
    const update: ContainerUpdate[] = this.updates.entries;
    return { adjust: this.adjust, update, evict: [] };
  }
}
