import {
  AdjustmentBuilder,
  ContainerAdjustment,
  ContainerEviction,
  ContainerUpdate,
  type CreateContainerResponse,
  type DeepPartial,
  fromPartialChecked,
  type MessageFns,
  PartialMessageError,
  UpdateBuilder,
  type UpdateContainerResponse,
} from "@nri-ts/api";
import { StubError } from "./errors.js";
import type {
  AdjustmentInput,
  CreateContainerResult,
  EvictionInput,
  UpdateContainerResult,
  UpdateInput,
} from "./plugin.js";

/*
 * Handlers answer in the shape that is easiest to write; these turn their
 * answers into response messages, refusing any answer of which a part would
 * be lost on the way (a key no form has, forms mixed, a 64-bit integer that
 * is not one). `what` names the answer in the error, e.g. `createContainer result`.
 */

function invalid(message: string, cause?: unknown): StubError {
  return new StubError("ERR_STUB_INVALID_MESSAGE", message, cause === undefined ? undefined : { cause });
}

function describe(value: unknown): string {
  if (Array.isArray(value)) return "a list";
  if (value instanceof AdjustmentBuilder) return "an AdjustmentBuilder";
  if (value instanceof UpdateBuilder) return "an UpdateBuilder";
  if (typeof value === "object" && value !== null)
    return `an object with ${definedKeys(value).join(", ") || "no keys"}`;
  return typeof value === "string" ? JSON.stringify(value) : String(value);
}

/** The keys of an object whose values are not undefined: a key set to undefined loses nothing. */
function definedKeys(value: object): string[] {
  return Object.entries(value)
    .filter(([, item]) => item !== undefined)
    .map(([key]) => key);
}

/** An object literal's kind of object (a builder or a list is not one). */
function isPlainObject(value: unknown): value is Record<string, unknown> {
  if (typeof value !== "object" || value === null) return false;
  const prototype: unknown = Object.getPrototypeOf(value);
  return prototype === Object.prototype || prototype === null;
}

function checked<T>(type: MessageFns<T>, input: NoInfer<DeepPartial<T>>, what: string): T {
  if (!isPlainObject(input)) throw invalid(`${what}: expected an object, got ${describe(input)}`);
  try {
    return fromPartialChecked(type, input, what);
  } catch (error) {
    throw error instanceof PartialMessageError ? invalid(error.message, error) : error;
  }
}

export function toAdjustment(input: AdjustmentInput, what: string): ContainerAdjustment {
  return input instanceof AdjustmentBuilder ? input.build() : checked(ContainerAdjustment, input, what);
}

export function toUpdates(inputs: readonly UpdateInput[] | void | null, what: string): ContainerUpdate[] {
  if (inputs === undefined || inputs === null) return [];
  if (!Array.isArray(inputs)) throw invalid(`${what}: expected a list of updates, got ${describe(inputs)}`);
  return inputs.map((input: UpdateInput, i) =>
    input instanceof UpdateBuilder ? input.build() : checked(ContainerUpdate, input, `${what} update[${i}]`),
  );
}

export function toEvictions(inputs: readonly EvictionInput[] | void | null, what: string): ContainerEviction[] {
  if (inputs === undefined || inputs === null) return [];
  if (!Array.isArray(inputs)) throw invalid(`${what}: expected a list of evictions, got ${describe(inputs)}`);
  return inputs.map((input: EvictionInput, i) => checked(ContainerEviction, input, `${what} evict[${i}]`));
}

/** A result's two forms: the short one (a message) and the long one (`{update, evict, ...}`). */
interface ResultForms {
  what: string;
  /** What the short form is, e.g. "an adjustment", and its keys. */
  short: string;
  shortKeys: readonly string[];
  longKeys: readonly string[];
}

const CREATE_CONTAINER_FORMS: ResultForms = {
  what: "createContainer result",
  short: "an adjustment",
  shortKeys: Object.keys(ContainerAdjustment.fromPartial({})),
  longKeys: ["adjust", "update", "evict"],
};

const UPDATE_CONTAINER_FORMS: ResultForms = {
  what: "updateContainer result",
  short: "an update",
  shortKeys: Object.keys(ContainerUpdate.fromPartial({})),
  longKeys: ["update", "evict"],
};

/** Whether `result` is in the long form; an error when it has the long form's keys and others too. */
function isLongForm(result: Record<string, unknown>, forms: ResultForms): boolean {
  const keys = definedKeys(result);
  const long = keys.filter((key) => forms.longKeys.includes(key));
  if (long.length === 0) return false;
  const mixed = keys.filter((key) => forms.shortKeys.includes(key));
  const longForm = `{${forms.longKeys.join(", ")}}`;
  if (mixed.length > 0) {
    throw invalid(
      `${forms.what} mixes ${forms.short} (${mixed.join(", ")}) with the ${longForm} form (${long.join(", ")}); ` +
        `return one or the other${forms.longKeys.includes("adjust") ? ": put the adjustment under adjust" : ""}`,
    );
  }
  const unknown = keys.filter((key) => !forms.longKeys.includes(key));
  if (unknown.length > 0) {
    throw invalid(
      `${forms.what}: unknown key${unknown.length > 1 ? "s" : ""} ${unknown.join(", ")} next to ${long.join(", ")} (the ${longForm} form has no others)`,
    );
  }
  return true;
}

export function createContainerResponse(result: CreateContainerResult | null): DeepPartial<CreateContainerResponse> {
  const { what } = CREATE_CONTAINER_FORMS;
  if (result === undefined || result === null) return {};
  if (result instanceof AdjustmentBuilder) return { adjust: result.build() };
  if (!isPlainObject(result))
    throw invalid(`${what}: expected an adjustment or {adjust, update, evict}, got ${describe(result)}`);
  if (!isLongForm(result, CREATE_CONTAINER_FORMS)) {
    return { adjust: toAdjustment(result as AdjustmentInput, what) };
  }
  const reply = result as {
    adjust?: AdjustmentInput;
    update?: readonly UpdateInput[];
    evict?: readonly EvictionInput[];
  };
  return {
    adjust: reply.adjust === undefined ? undefined : toAdjustment(reply.adjust, `${what} adjust`),
    update: toUpdates(reply.update, what),
    evict: toEvictions(reply.evict, what),
  };
}

export function updateContainerResponse(result: UpdateContainerResult | null): DeepPartial<UpdateContainerResponse> {
  const { what } = UPDATE_CONTAINER_FORMS;
  if (result === undefined || result === null) return {};
  if (Array.isArray(result)) return { update: toUpdates(result, what) };
  if (isPlainObject(result) && definedKeys(result).length === 0) return {};
  if (!isPlainObject(result) || !isLongForm(result, UPDATE_CONTAINER_FORMS)) {
    throw invalid(`${what}: expected a list of updates or {update, evict}, got ${describe(result)}`);
  }
  const reply = result as { update?: readonly UpdateInput[]; evict?: readonly EvictionInput[] };
  return { update: toUpdates(reply.update, what), evict: toEvictions(reply.evict, what) };
}
