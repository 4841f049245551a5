import type { Container, ContainerUpdate, PodSandbox, SynchronizeRequest, SynchronizeResponse } from "@nri-ts/api";
import { OversizedMessageError } from "@nri-ts/ttrpc";
import { Status } from "nice-grpc-common";

/** Below this many objects per message, splitting further is pointless. */
const MIN_OBJECTS_PER_MESSAGE = 8;
/** Each retry shrinks a message to at most this share of the refused one. */
const MAX_SHRINK_FACTOR = 0.9;

/** Synchronization failed; the plugin is to be closed. */
export class SyncError extends Error {
  override readonly name = "SyncError";
}

/** How many pods and containers go into one Synchronize message. */
export interface ObjectsPerMessage {
  pods: number;
  containers: number;
}

/**
 * The next split after a refused message, as the Go reference computes it:
 * only a message refused locally for its size (ResourceExhausted caused by
 * an OversizedMessageError) is split; both counts shrink by the ratio of the
 * limit to the refused length (at most 0.9), and to 4 and 4 when fewer than
 * 8 objects would remain.
 *
 * @param error what sending the message threw
 * @returns the new counts; throws `error` itself when it is no size refusal,
 *   or a SyncError when the message cannot be split further
 */
export function splitAfterRefusal(current: ObjectsPerMessage, error: unknown): ObjectsPerMessage {
  if ((error as { code?: unknown } | undefined)?.code !== Status.RESOURCE_EXHAUSTED) throw error;
  const cannotSplit = () => new SyncError("failed to synchronize plugin with split messages", { cause: error });
  if (current.pods + current.containers <= MIN_OBJECTS_PER_MESSAGE) throw cannotSplit();
  const oversized = (error as Error).cause;
  if (!(oversized instanceof OversizedMessageError)) throw cannotSplit();
  const { maximumLength, rejectedLength } = oversized;
  if (rejectedLength === 0 || maximumLength === 0 || rejectedLength <= maximumLength) throw cannotSplit();
  const factor = Math.min(maximumLength / rejectedLength, MAX_SHRINK_FACTOR);
  const pods = Math.trunc(current.pods * factor);
  const containers = Math.trunc(current.containers * factor);
  if (pods + containers < MIN_OBJECTS_PER_MESSAGE) {
    return { pods: MIN_OBJECTS_PER_MESSAGE / 2, containers: MIN_OBJECTS_PER_MESSAGE / 2 };
  }
  return { pods, containers };
}

/**
 * Sends the runtime's pods and containers to a plugin: all in one message
 * if it fits, otherwise in pages. Every page but the last has `more` set and
 * must be answered with `more` set and no updates; the last page's answer
 * holds the plugin's updates for the whole state.
 *
 * Two deliberate departures from Go, both where Go breaks: the 4-and-4
 * fallback never asks for more objects than remain (Go slices past the end
 * and panics), and a kind whose count was shrunk to zero (say 1 pod next to
 * thousands of containers) is sent once the other kind has run out, with
 * the page size of the last split (Go sends empty pages until the deadline).
 *
 * @param send sends one message; rejections are the transport's errors
 * @returns the plugin's updates
 */
export async function synchronizeInPages(
  send: (request: SynchronizeRequest) => Promise<SynchronizeResponse>,
  pods: readonly PodSandbox[],
  containers: readonly Container[],
): Promise<ContainerUpdate[]> {
  let podsSent = 0;
  let containersSent = 0;
  // Kept at most what remains, as Go keeps its counts.
  let perMessage: ObjectsPerMessage = { pods: pods.length, containers: containers.length };
  let pageSize = pods.length + containers.length;
  const capped = ({ pods: p, containers: c }: ObjectsPerMessage): ObjectsPerMessage => ({
    pods: Math.min(p, pods.length - podsSent),
    containers: Math.min(c, containers.length - containersSent),
  });
  for (;;) {
    if (perMessage.pods + perMessage.containers === 0) perMessage = capped({ pods: pageSize, containers: pageSize });
    const request: SynchronizeRequest = {
      pods: pods.slice(podsSent, podsSent + perMessage.pods),
      containers: containers.slice(containersSent, containersSent + perMessage.containers),
      more: pods.length - podsSent > perMessage.pods || containers.length - containersSent > perMessage.containers,
    };
    let response: SynchronizeResponse;
    try {
      response = await send(request);
    } catch (error) {
      const split = splitAfterRefusal(perMessage, error);
      pageSize = split.pods + split.containers;
      perMessage = capped(split);
      continue;
    }
    if (!request.more) return response.update;
    if (response.update.length > 0 || response.more !== request.more) {
      throw new SyncError("plugin does not handle split sync requests");
    }
    podsSent += perMessage.pods;
    containersSent += perMessage.containers;
    perMessage = capped(perMessage);
  }
}
