import { type MessageType, PluginDefinition, type SynchronizeRequest } from "@nri-ts/api";
import type { PluginMethod, PluginRequest } from "./plugin-transport.js";
import { encodeSynchronizeRequest } from "./sync-encoding.js";

/**
 * A request to a plugin as protobuf bytes, whatever carries it (a
 * connection, a WebAssembly module): the generated encoder's bytes, with
 * Synchronize, the one request that carries the whole node, taken by the
 * faster encoder that writes the same bytes (sync-encoding.ts).
 */
export function encodePluginRequest<K extends PluginMethod>(method: K, request: PluginRequest<K>): Uint8Array {
  if (method === "synchronize") return encodeSynchronizeRequest(request as SynchronizeRequest);
  const requestType = PluginDefinition.methods[method].requestType as unknown as MessageType<PluginRequest<K>>;
  return requestType.encode(request).finish();
}
