/**
 * ValidateContainerAdjustmentRequest to protobuf bytes, the same bytes as
 * the generated `ValidateContainerAdjustmentRequest.encode(request).finish()`.
 * Its ownership record is what costs: the generated encoder writes each map
 * entry of each container's FieldOwners through an entry object, a closure
 * and a fork of the writer, and hands the int32 keys of the simple and
 * compound maps (which Object.entries yields as strings) to the writer as
 * strings, which V8 stores into the buffer slowly. Here the record is
 * written straight into one buffer (field-writer.ts), keys as numbers, and
 * so are the pod and the container (state-encoding.ts); the adjustment and
 * the updates by their generated encoders. A
 * request with a value not of its declared type is left whole to the
 * generated encoder, so that it fails (or coerces) exactly as it does.
 *
 * `validation-encoding.test.ts` proves the bytes equal.
 */
import {
  ContainerAdjustment,
  ContainerUpdate,
  type OwningPlugins,
  ValidateContainerAdjustmentRequest,
} from "@nri-ts/api";
import {
  begin,
  close,
  end,
  int32,
  int32StringMap,
  message,
  messages,
  NOT_PLAIN,
  open,
  string,
  stringMap,
} from "./field-writer.js";
import { writeContainer, writePod } from "./state-encoding.js";

/** The first buffer (from Node's pool), grown as needed: a request takes one to a few KiB. */
const INITIAL_SIZE = 2048;

const isObject = (value: unknown): value is object => typeof value === "object" && value !== null;

/** OwningPlugins (field 5): per container id, its FieldOwners (simple: field → plugin; compound: field → key → plugin). */
function writeOwners(owners: OwningPlugins): void {
  if (!isObject(owners.owners)) throw NOT_PLAIN;
  const record = open(42, 2);
  for (const id in owners.owners) {
    if (!Object.hasOwn(owners.owners, id)) continue;
    const fields = owners.owners[id];
    const entry = open(10, 2);
    if (id !== "") string(10, id);
    if (fields !== undefined) {
      if (!isObject(fields) || !isObject(fields.compound)) throw NOT_PLAIN;
      const value = open(18, 2);
      int32StringMap(10, fields.simple);
      for (const key in fields.compound) {
        if (!Object.hasOwn(fields.compound, key)) continue;
        const compound = fields.compound[key as unknown as number];
        const compoundEntry = open(18, 1);
        int32(8, Number(key));
        if (compound !== undefined) {
          if (!isObject(compound)) throw NOT_PLAIN;
          const compoundValue = open(18, 1);
          stringMap(10, compound.owners);
          close(compoundValue, 1);
        }
        close(compoundEntry, 1);
      }
      close(value, 2);
    }
    close(entry, 2);
  }
  close(record, 2);
}

/** The protobuf bytes of a ValidateContainerAdjustmentRequest. */
export function encodeValidationRequest(request: ValidateContainerAdjustmentRequest): Uint8Array {
  begin(INITIAL_SIZE);
  try {
    if (request.pod !== undefined) writePod(10, request.pod);
    if (request.container !== undefined) writeContainer(18, request.container);
    if (request.adjust !== undefined) message(26, request.adjust, ContainerAdjustment);
    messages(34, request.update, ContainerUpdate);
    if (request.owners !== undefined) {
      if (!isObject(request.owners)) throw NOT_PLAIN;
      writeOwners(request.owners);
    }
    if (!Array.isArray(request.plugins)) throw NOT_PLAIN;
    for (const plugin of request.plugins) {
      if (!isObject(plugin)) throw NOT_PLAIN;
      const start = open(50, 1);
      if (plugin.name !== "") string(10, plugin.name);
      if (plugin.index !== "") string(18, plugin.index);
      close(start, 1);
    }
  } catch (error) {
    end();
    if (error !== NOT_PLAIN) throw error;
    return ValidateContainerAdjustmentRequest.encode(request).finish();
  }
  return end();
}
