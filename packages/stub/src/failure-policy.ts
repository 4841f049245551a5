import { FailurePolicy } from "@nri-ts/api";
import { StubError } from "./errors.js";

/**
 * What the runtime should do when the plugin fails a request (times out,
 * loses its connection, breaks the protocol); see the README. Fields left
 * out are false, the runtime's behaviour without a policy.
 */
export interface FailurePolicyInput {
  /** Fail the request (naming the plugin) instead of going on without the plugin. */
  failRequest?: boolean;
  /** After a timeout, keep the plugin instead of disconnecting it. */
  keepConnected?: boolean;
}

/**
 * The policy the stub sends in its Configure reply, or undefined when the
 * plugin set none (the field then stays off the wire, as with Go's stub).
 * @throws StubError ERR_STUB_FAILURE_POLICY for `null` (Go's `nil failure policy`) or non-boolean fields
 */
export function resolveFailurePolicy(input: FailurePolicyInput | null | undefined): FailurePolicy | undefined {
  if (input === undefined) return undefined;
  if (input === null || typeof input !== "object") {
    throw new StubError(
      "ERR_STUB_FAILURE_POLICY",
      input === null ? "nil failure policy" : "failure policy must be an object",
    );
  }
  for (const field of ["failRequest", "keepConnected"] as const) {
    const value: unknown = input[field];
    if (value !== undefined && typeof value !== "boolean") {
      throw new StubError("ERR_STUB_FAILURE_POLICY", `failure policy: ${field} must be a boolean, not ${typeof value}`);
    }
  }
  return FailurePolicy.fromPartial(input);
}
