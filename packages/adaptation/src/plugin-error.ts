import type { FailurePolicy } from "@nri-ts/api";
import type { Status } from "nice-grpc-common";
import { isPluginFailure } from "./failure-policy.js";
import type { CallFailure, LocalFailure } from "./transport/plugin-transport.js";

/**
 * A request to a plugin failed. Either the plugin answered with an error
 * (`local` undefined; over ttrpc the text is Go's, `rpc error: code =
 * Unknown desc = ...`), or the call failed on this side (`local` says why;
 * the text is the bare reason, e.g. `context deadline exceeded`).
 *
 * A timeout, a lost connection or a protocol error is the plugin's failure
 * (`fatal`): the plugin's FailurePolicy decides whether it stays and whether
 * the request fails (then with `plugin <name> failed to handle <operation>
 * request: <reason>`). An error from the plugin is the plugin's verdict: it
 * fails the operation and the plugin stays. `local` "aborted" means the
 * runtime's own signal ended the request: the text is Go's context error.
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
    failure: CallFailure | PluginError,
    message = failure.message,
  ) {
    super(message, { cause: failure instanceof PluginError ? failure : failure.cause });
    this.code = failure.code;
    this.details = failure.details;
    this.local = failure.local;
  }

  /** Whether this is the plugin's failure (timeout, lost connection, protocol error), which its policy covers. */
  get fatal(): boolean {
    return isPluginFailure(this.local);
  }

  /** The error a policy with `failRequest` fails the request with: Go's text, naming plugin and request. */
  failingRequest(): PluginError {
    return new PluginError(
      this.plugin,
      this.operation,
      this,
      `plugin ${this.plugin} failed to handle ${this.operation} request: ${this.message}`,
    );
  }
}

/**
 * A plugin failed a request (timed out, lost its connection, broke the
 * protocol) and its policy decided: what the `onPluginFailure` option hears.
 */
export interface PluginFailure {
  /** `<idx>-<name>`. */
  plugin: string;
  /** e.g. `CreateContainer`, `ValidateContainerAdjustment`. */
  operation: string;
  /** The failure (`local` says which; its message is Go's text). */
  error: PluginError;
  /** The plugin's policy; undefined: none. */
  policy: FailurePolicy | undefined;
  /** The plugin was closed for it. */
  dropped: boolean;
  /** The request failed for it (always, for a validator). */
  requestFailed: boolean;
}
