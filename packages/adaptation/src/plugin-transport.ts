import type { PluginDefinition } from "@nri-ts/api";
import type { RequestOf, ResponseOf } from "@nri-ts/ttrpc";
import type { Status } from "nice-grpc-common";

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
  | "protocol";

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

/** How the adaptation reaches one plugin: over a connection, or in-process. */
export interface PluginTransport {
  /**
   * Calls a method of the plugin; `deadline` is in milliseconds since the
   * epoch. Rejects with a CallFailure.
   */
  call<K extends PluginMethod>(method: K, request: PluginRequest<K>, deadline: number): Promise<PluginResponse<K>>;
  /** Closes the connection, if there is one; idempotent. */
  close(): void;
  /** True once the plugin can no longer be reached. */
  readonly closed: boolean;
}
