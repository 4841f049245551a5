/**
 * An AttachCause request as the reporter gets it: decoded from gRPC (every
 * field there), or from a library caller as a plain object, which may lack
 * fields or hold the wrong types. It is read before use, so that a bad one
 * is refused naming the field (the service answers INVALID_ARGUMENT), never
 * with a TypeError. Absent optional fields mean what an absent protobuf
 * field means: no message, any exit code, the reporter's time to live.
 */
import { describe } from "../config-fields.js";
import { causeProblem, type DeclaredCause } from "./causes.js";
import { Source } from "../gen/nri_ts/exit_reporter/v1/exit_reporter.js";

export interface CauseRequest {
  containerId: string;
  cause: DeclaredCause;
  /** 0: the reporter's default. */
  ttlSeconds: number;
}

function requiredText(request: Record<string, unknown>, key: string, field: string): string {
  const value = request[key];
  if (value === undefined || value === "") throw new CauseRequestError(`${field}: required`);
  if (typeof value !== "string") throw new CauseRequestError(`${field}: expected a text, got ${describe(value)}`);
  return value;
}

/** A request that cannot be used; the message names the field. */
export class CauseRequestError extends Error {}

/**
 * The request's container, cause and time to live.
 * @throws CauseRequestError naming what is wrong
 */
export function readCauseRequest(request: unknown): CauseRequest {
  if (typeof request !== "object" || request === null || Array.isArray(request))
    throw new CauseRequestError(`expected an AttachCause request, got ${describe(request)}`);
  const fields = request as Record<string, unknown>;
  const containerId = requiredText(fields, "containerId", "container_id");
  const declaredBy = requiredText(fields, "declaredBy", "declared_by");
  const reason = requiredText(fields, "reason", "reason");
  const { message = "", exitCodes = [], ttlSeconds = 0 } = fields;
  if (typeof message !== "string") throw new CauseRequestError(`message: expected a text, got ${describe(message)}`);
  if (!Array.isArray(exitCodes))
    throw new CauseRequestError(`exit_codes: expected a list of exit codes, got ${describe(exitCodes)}`);
  if (typeof ttlSeconds !== "number" || !Number.isInteger(ttlSeconds) || ttlSeconds < 0)
    throw new CauseRequestError(`ttl_seconds: expected a whole number of seconds, got ${describe(ttlSeconds)}`);
  const cause: DeclaredCause = {
    declaredBy,
    source: Source.SOURCE_PLUGIN,
    reason,
    message,
    exitCodes: exitCodes as unknown[] as number[],
  };
  const problem = causeProblem(cause);
  if (problem) throw new CauseRequestError(problem);
  return { containerId, cause, ttlSeconds };
}
