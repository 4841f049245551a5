import type { PluginDefinition } from "@nri-ts/api";
import type { RequestOf, ResponseOf } from "@nri-ts/ttrpc";
import { type Metadata, Status } from "nice-grpc-common";

type PluginMethods = (typeof PluginDefinition)["methods"];

/** A method of the Plugin service, by its key in the definition, e.g. `createContainer`. */
export type PluginMethod = keyof PluginMethods;
export type PluginRequest<K extends PluginMethod> = RequestOf<PluginMethods[K]>;
export type PluginResponse<K extends PluginMethod> = ResponseOf<PluginMethods[K]>;

/** Why a call to a plugin failed without the plugin answering it. */
export type LocalFailure =
  /** The request timeout passed (Go: context deadline exceeded). */
  | "deadline"
  /** The connection closed before the answer came (Go: ttrpc: closed). */
  | "closed"
  /** The plugin broke the protocol: an answer that does not decode, a frame it may not send. */
  | "protocol"
  /**
   * The runtime's own signal for the request aborted (Go: the runtime's
   * context is done; `context deadline exceeded` or `context canceled`).
   * Not the plugin's failure.
   */
  | "aborted";

/**
 * A failed call, before the plugin it failed on is named: the plugin's
 * error (`local` undefined) or a failure on this side. The message is the
 * text the runtime gets to see.
 */
export class CallFailure extends Error {
  override readonly name = "CallFailure";

  constructor(
    message: string,
    readonly code: Status,
    readonly details: string,
    readonly local: LocalFailure | undefined,
    options?: { cause?: unknown },
  ) {
    super(message, options);
  }
}

/** Go's text for a done context: its deadline passed (an AbortSignal.timeout) or it was cancelled. */
export function abortText(reason: unknown): string {
  return reason instanceof DOMException && reason.name === "TimeoutError"
    ? "context deadline exceeded"
    : "context canceled";
}

/** The failure of a call cut short because the runtime's signal aborted, with Go's text. */
export function abortedFailure(signal: AbortSignal): CallFailure {
  const text = abortText(signal.reason);
  const code = text === "context canceled" ? Status.CANCELLED : Status.DEADLINE_EXCEEDED;
  return new CallFailure(text, code, text, "aborted", { cause: signal.reason });
}

/** The trace of one call, as a transport carries it (see tracing.ts; absent while tracing is off). */
export interface TracedCall {
  /** The metadata that carries the call's trace context, for a call over ttrpc. */
  readonly metadata: Metadata | undefined;
  /** Runs an in-process handler with the call's span active. */
  enter<T>(body: () => T): T;
}

/**
 * How the adaptation reaches one plugin: over a connection, in-process, or
 * (later) a WebAssembly module. The transport only carries calls and says
 * why one failed (CallFailure.local); what a failure means for the plugin
 * and the request (the failure policy) is decided above it, in Plugin, the
 * same for every transport.
 */
export interface PluginTransport {
  /**
   * Calls a method of the plugin; `deadline` is in milliseconds since the
   * epoch. `signal` is the runtime's own for the request, when it gave one:
   * when it aborts, the call should end with `abortedFailure(signal)`.
   * `trace` is the call's, while tracing is on. Rejects with a CallFailure.
   */
  call<K extends PluginMethod>(
    method: K,
    request: PluginRequest<K>,
    deadline: number,
    signal?: AbortSignal,
    trace?: TracedCall,
  ): Promise<PluginResponse<K>>;
  /** Closes the connection, if there is one; idempotent. */
  close(): void;
  /** True once the plugin can no longer be reached. */
  readonly closed: boolean;
}
