import {
  type Container,
  type MessageType,
  type PodSandbox,
  PluginDefinition,
  type SynchronizeRequest,
  type ValidateContainerAdjustmentRequest,
} from "@nri-ts/api";
import { begin, end } from "../encoding/field-writer.js";
import type { PluginMethod, PluginRequest } from "./plugin-transport.js";
import { writeContainer, writePod } from "../encoding/state-encoding.js";
import { encodeSynchronizeRequest } from "../encoding/sync-encoding.js";
import { encodeValidationRequest } from "../encoding/validation-encoding.js";

/**
 * The requests that hold a pod (field 1) and a container (field 2) and
 * nothing else (the test holds this list to the generated messages).
 */
export const POD_AND_CONTAINER_METHODS: ReadonlySet<PluginMethod> = new Set<PluginMethod>([
  "createContainer",
  "postCreateContainer",
  "startContainer",
  "postStartContainer",
  "postUpdateContainer",
  "stopContainer",
  "removeContainer",
]);

/** A request's first buffer (from Node's pool), grown as needed: a pod and a container take one to a few KiB. */
const INITIAL_SIZE = 2048;

/** A request of a pod and a container, their top-level fields written straight into one buffer (state-encoding.ts). */
function encodePodAndContainer(request: { pod?: PodSandbox; container?: Container }): Uint8Array {
  begin(INITIAL_SIZE);
  try {
    if (request.pod !== undefined) writePod(10, request.pod);
    if (request.container !== undefined) writeContainer(18, request.container);
  } catch (error) {
    end();
    throw error;
  }
  return end();
}

/**
 * A request to a plugin as protobuf bytes, whatever carries it (a
 * connection, a WebAssembly module): the generated encoder's bytes, with
 * the requests of every container event, Synchronize (the whole node,
 * sync-encoding.ts) and ValidateContainerAdjustment (every plugin's
 * ownership of every field, validation-encoding.ts) taken by faster
 * encoders that write the same bytes.
 */
export function encodePluginRequest<K extends PluginMethod>(method: K, request: PluginRequest<K>): Uint8Array {
  if (POD_AND_CONTAINER_METHODS.has(method))
    return encodePodAndContainer(request as { pod?: PodSandbox; container?: Container });
  if (method === "synchronize") return encodeSynchronizeRequest(request as SynchronizeRequest);
  if (method === "validateContainerAdjustment")
    return encodeValidationRequest(request as ValidateContainerAdjustmentRequest);
  const requestType = PluginDefinition.methods[method].requestType as unknown as MessageType<PluginRequest<K>>;
  return requestType.encode(request).finish();
}
