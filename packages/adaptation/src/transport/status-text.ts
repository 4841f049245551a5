/** Go's names of the gRPC codes (`codes.Code.String()`), as its error texts print them. */
const GO_CODE_NAMES: readonly string[] = [
  "OK",
  "Canceled",
  "Unknown",
  "InvalidArgument",
  "DeadlineExceeded",
  "NotFound",
  "AlreadyExists",
  "PermissionDenied",
  "ResourceExhausted",
  "FailedPrecondition",
  "Aborted",
  "OutOfRange",
  "Unimplemented",
  "Internal",
  "Unavailable",
  "DataLoss",
  "Unauthenticated",
];

/** The name Go gives a gRPC code, e.g. `Unknown`; `Code(N)` for a number it does not know. */
function goCodeName(code: number): string {
  return GO_CODE_NAMES[code] ?? `Code(${code})`;
}

/** How Go prints an error status received over ttrpc: `rpc error: code = Unknown desc = boom`. */
export function goStatusText(code: number, details: string): string {
  return `rpc error: code = ${goCodeName(code)} desc = ${details}`;
}
