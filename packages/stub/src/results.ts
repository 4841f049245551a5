import {
  AdjustmentBuilder,
  type ContainerAdjustment,
  type ContainerEviction,
  type ContainerUpdate,
  type CreateContainerResponse,
  type DeepPartial,
  UpdateBuilder,
  type UpdateContainerResponse,
} from "@nri-ts/api";
import type {
  AdjustmentInput,
  CreateContainerResult,
  EvictionInput,
  UpdateContainerResult,
  UpdateInput,
} from "./plugin.js";

/*
 * Handlers answer in the shape that is easiest to write; these turn their
 * answers into response messages (partial messages, completed by encoding).
 */

export function toAdjustment(input: AdjustmentInput): DeepPartial<ContainerAdjustment> {
  return input instanceof AdjustmentBuilder ? input.build() : input;
}

export function toUpdates(inputs: readonly UpdateInput[] | void): DeepPartial<ContainerUpdate>[] {
  return (inputs ?? []).map((input) => (input instanceof UpdateBuilder ? input.build() : input));
}

export function toEvictions(inputs: readonly EvictionInput[] | undefined): DeepPartial<ContainerEviction>[] {
  return [...(inputs ?? [])];
}

/** Whether a createContainer answer is the `{adjust, update, evict}` form rather than a bare adjustment. */
function isCreateContainerReply(
  result: Exclude<CreateContainerResult, void>,
): result is { adjust?: AdjustmentInput; update?: readonly UpdateInput[]; evict?: readonly EvictionInput[] } {
  return !(result instanceof AdjustmentBuilder) && ("adjust" in result || "update" in result || "evict" in result);
}

export function createContainerResponse(result: CreateContainerResult): DeepPartial<CreateContainerResponse> {
  if (result === undefined || result === null) return {};
  if (!isCreateContainerReply(result)) return { adjust: toAdjustment(result) };
  return {
    adjust: result.adjust === undefined ? undefined : toAdjustment(result.adjust),
    update: toUpdates(result.update),
    evict: toEvictions(result.evict),
  };
}

export function updateContainerResponse(result: UpdateContainerResult): DeepPartial<UpdateContainerResponse> {
  if (result === undefined || result === null) return {};
  if (isUpdateList(result)) return { update: toUpdates(result) };
  return { update: toUpdates(result.update), evict: toEvictions(result.evict) };
}

function isUpdateList(result: Exclude<UpdateContainerResult, void>): result is readonly UpdateInput[] {
  return Array.isArray(result);
}
