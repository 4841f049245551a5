import { ServerError, Status } from "nice-grpc-common";
import type { StatusEnvelope } from "./envelope.js";

/** Status texts that Go's ttrpc uses, so that both sides read the same. */
export const StatusText = {
  deadlineExceeded: "context deadline exceeded",
  closed: "ttrpc: closed",
  oddStreamId: "StreamID must be odd for client initiated streams",
  increasingStreamId: "StreamID cannot be re-used and must increment",
  inactiveStream: "StreamID is no longer active",
  closeWithData: "data close message cannot include data",
  nilResponse: "ttrpc: marshal called with nil",
} as const;

/** The signal reason when a call's deadline passes. */
export function deadlineExceeded(): ServerError {
  return new ServerError(Status.DEADLINE_EXCEEDED, StatusText.deadlineExceeded);
}

/**
 * The status a handler's failure is answered with: a ServerError keeps its
 * code and details; an AbortError thrown after the call's signal fired
 * (`abortReason`: deadline passed or call cancelled) counts as that reason;
 * anything else is Unknown with the error's message and no stack.
 */
export function statusFromError(error: unknown, abortReason?: ServerError): StatusEnvelope {
  if (error instanceof ServerError) return { code: error.code, message: error.details };
  if (abortReason !== undefined && isAbortError(error)) {
    return { code: abortReason.code, message: abortReason.details };
  }
  return { code: Status.UNKNOWN, message: errorText(error) };
}

function isAbortError(error: unknown): boolean {
  return error instanceof Error && error.name === "AbortError";
}

/** The message of an Error, or the text of anything else thrown. */
export function errorText(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}
