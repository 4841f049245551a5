/**
 * SynchronizeRequest to protobuf bytes, the same bytes as the generated
 * `SynchronizeRequest.encode(request).finish()`, several times faster when
 * the code is still cold, as it is at a runtime's start: a synchronization
 * carries every pod and container of the node (10,000 containers make a
 * 1.8 MB message) and runs once, mostly in V8's interpreter and baseline
 * tiers. Pods and containers are written straight into one presized buffer
 * (state-encoding.ts).
 *
 * `sync-encoding.test.ts` proves the bytes equal.
 */
import type { SynchronizeRequest } from "@nri-ts/api";
import { begin, bool, end } from "./field-writer.js";
import { writeContainer, writePod } from "./state-encoding.js";

/** What a pod or container takes, about, for the first buffer (a plain container takes 150 to 300 bytes). */
const BYTES_PER_OBJECT = 192;

/** The protobuf bytes of a SynchronizeRequest. */
export function encodeSynchronizeRequest(request: SynchronizeRequest): Uint8Array {
  const { pods, containers } = request;
  begin(BYTES_PER_OBJECT * (pods.length + containers.length) + 64);
  try {
    for (let i = 0; i < pods.length; i++) writePod(10, pods[i]!);
    for (let i = 0; i < containers.length; i++) writeContainer(18, containers[i]!);
    if (request.more !== false) bool(24, request.more);
  } catch (error) {
    end();
    throw error;
  }
  return end();
}
