/** Why the stub refused to start, lost its runtime, or failed a request. */
export type StubErrorCode =
  /** The plugin has no handler for any lifecycle event, so it could subscribe to nothing. */
  | "ERR_STUB_NO_HANDLERS"
  /** The plugin's name or index is missing or invalid (`cause` holds the api's error). */
  | "ERR_STUB_IDENTITY"
  /** The `failurePolicy` option is `null` or has a field that is not a boolean. */
  | "ERR_STUB_FAILURE_POLICY"
  /** `NRI_PLUGIN_SOCKET` does not name a usable socket fd. */
  | "ERR_STUB_INVALID_SOCKET_ENV"
  /** The runtime's socket could not be reached. */
  | "ERR_STUB_CONNECT"
  /** RegisterPlugin failed or timed out. */
  | "ERR_STUB_REGISTER"
  /** The plugin's configure handler failed or asked for events it cannot handle. */
  | "ERR_STUB_CONFIGURE"
  /** The runtime did not send Configure in time after registration. */
  | "ERR_STUB_CONFIGURE_TIMEOUT"
  /** The connection to the runtime closed (`cause` holds the mux's reason). */
  | "ERR_STUB_CONNECTION_LOST"
  /** `start()` or `run()` on a stub that is already running. */
  | "ERR_STUB_ALREADY_STARTED"
  /** A call that needs the runtime (e.g. `updateContainers`) on a stub that is not connected. */
  | "ERR_STUB_NOT_CONNECTED"
  /** `stop()` was called while the stub was starting. */
  | "ERR_STUB_STOPPED"
  /**
   * A handler's result, or what was given to `updateContainers`, would lose
   * data on the way to the runtime: two result forms mixed, a key that no
   * form or message has, a 64-bit integer that is not one (`cause` holds the
   * api's `PartialMessageError` for a field).
   */
  | "ERR_STUB_INVALID_MESSAGE";

/** The one error type of `@nri-ts/stub`; `code` says what happened. */
export class StubError extends Error {
  override readonly name = "StubError";

  constructor(
    readonly code: StubErrorCode,
    message: string,
    options?: { cause?: unknown },
  ) {
    super(message, options);
  }
}

/** The message of anything thrown. */
export function messageOf(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}
