import type { Status } from "nice-grpc-common";
import type { CallFailure, LocalFailure } from "./plugin-transport.js";

/**
 * A request to a plugin failed. Either the plugin answered with an error
 * (`local` undefined; over ttrpc the text is Go's, `rpc error: code =
 * Unknown desc = ...`), or the call failed on this side (`local` says why;
 * the text is the bare reason, e.g. `context deadline exceeded`).
 *
 * Local failures are fatal: the adaptation closes the plugin and carries on
 * without it. An error from the plugin is the plugin's verdict: it fails the
 * operation and the plugin stays.
 */
export class PluginError extends Error {
  override readonly name = "PluginError";
  /** The gRPC status code. */
  readonly code: Status;
  /** The status message: what the plugin's handler said, or the local reason. */
  readonly details: string;
  readonly local: LocalFailure | undefined;

  constructor(
    /** Full name of the plugin, `<idx>-<base>`. */
    readonly plugin: string,
    /** The request, e.g. `CreateContainer`. */
    readonly operation: string,
    failure: CallFailure,
  ) {
    super(failure.message, { cause: failure.cause });
    this.code = failure.code;
    this.details = failure.details;
    this.local = failure.local;
  }

  /** Whether the plugin is to be closed (a local failure) rather than the operation failed. */
  get fatal(): boolean {
    return this.local !== undefined;
  }
}
