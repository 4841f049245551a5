import type { FailurePolicy } from "@nri-ts/api";
import type { PluginError } from "./plugin-error.js";
import type { LocalFailure } from "./transport/plugin-transport.js";

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

/**
 * Whether a failed call is the plugin's failure, which its FailurePolicy
 * covers (Go's isFatalError): a timeout, a lost connection, a protocol
 * error. An error the plugin answers with is not, nor is the runtime's own
 * signal aborting.
 */
export function isPluginFailure(local: LocalFailure | undefined): boolean {
  return local === "deadline" || local === "closed" || local === "protocol";
}

/**
 * Whether a failure disconnects the plugin (Go's dropsPlugin): every one
 * does, except a timeout of a plugin whose policy keeps it connected.
 */
export function dropsPlugin(local: LocalFailure | undefined, policy: FailurePolicy | undefined): boolean {
  return isPluginFailure(local) && !(local === "deadline" && (policy?.keepConnected ?? false));
}
