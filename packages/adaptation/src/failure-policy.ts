import type { FailurePolicy } from "@nri-ts/api";
import type { LocalFailure } from "./transport/plugin-transport.js";

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
