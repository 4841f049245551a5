/** Why a mux operation failed or why a mux closed. */
export type MuxErrorCode =
  /** `open()` was given something that is not a u32 connection id. */
  | "ERR_MUX_INVALID_ID"
  /** `open(0)`: id 0 is reserved by the protocol. */
  | "ERR_MUX_RESERVED_ID"
  /** `open(id)` while a connection with that id is still open. */
  | "ERR_MUX_ID_IN_USE"
  /** The peer announced a frame larger than the protocol's maximum payload. */
  | "ERR_MUX_FRAME_TOO_LARGE"
  /** The mux was closed locally with `close()`. */
  | "ERR_MUX_CLOSED"
  /** The peer ended the trunk (end of stream). */
  | "ERR_MUX_TRUNK_ENDED"
  /** The trunk failed; `cause` holds the trunk's error. */
  | "ERR_MUX_TRUNK_ERROR"
  /** The trunk was destroyed by someone other than the mux, without an error. */
  | "ERR_MUX_TRUNK_CLOSED"
  /** `connectFd()` was given something that is not an open socket fd. */
  | "ERR_MUX_INVALID_FD";

/** The one error type of `@nri-ts/mux`; `code` says what happened. */
export class MuxError extends Error {
  override readonly name = "MuxError";

  constructor(
    readonly code: MuxErrorCode,
    message: string,
    options?: { cause?: unknown },
  ) {
    super(message, options);
  }
}
