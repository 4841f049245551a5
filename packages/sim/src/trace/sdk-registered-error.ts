/**
 * Tracing (`simulate({trace})`, `--trace`, `--otlp`) was asked for while
 * another OpenTelemetry SDK is registered in the process (e.g. a test's,
 * around `simulate()`): nri-sim registers its own for the run. A module of
 * its own, so that importing @nri-ts/sim does not load the SDK.
 */
export class SdkRegisteredError extends Error {
  override readonly name = "SdkRegisteredError";
}
