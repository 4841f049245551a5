import { Duplex } from "node:stream";

/** What a logical connection asks of the mux that owns it. */
export interface ConnectionHost {
  /** Frame and send one written chunk; `done` once the trunk can take more (or with the reason it cannot). */
  send(id: number, chunk: Buffer, done: (error?: Error | null) => void): void;
  /** Forget the connection: frames for its id are dropped from now on. */
  release(connection: MuxConnection): void;
  /** The connection's reader wants more bytes (back-pressure lifted). */
  readingWanted(connection: MuxConnection): void;
}

/**
 * One logical connection of a {@link Mux}: a byte stream in each direction,
 * usable wherever a socket is (a ttrpc client or server runs over it as is).
 *
 * Each `write()` is sent as its own message, framed the way Go frames a ttrpc
 * message, and never merged with another write. `end()` and `destroy()` close
 * the connection locally only: the protocol has no close signal, so the peer
 * is told nothing, and later frames for this id are dropped. When the mux
 * closes, the readable side ends (`'end'` once buffered bytes are read) and
 * writes fail with the mux's reason.
 */
export class MuxConnection extends Duplex {
  readonly #host: ConnectionHost;

  /** @internal Created by `Mux.open()`. */
  constructor(
    readonly id: number,
    host: ConnectionHost,
  ) {
    super({ allowHalfOpen: false });
    this.#host = host;
  }

  override _read(): void {
    this.#host.readingWanted(this);
  }

  override _write(chunk: Buffer, _encoding: BufferEncoding, callback: (error?: Error | null) => void): void {
    this.#host.send(this.id, chunk, callback);
  }

  override _final(callback: (error?: Error | null) => void): void {
    this.#host.release(this);
    this.push(null);
    callback();
  }

  override _destroy(error: Error | null, callback: (error?: Error | null) => void): void {
    this.#host.release(this);
    callback(error);
  }
}
