import { EventEmitter } from "node:events";
import type { Duplex } from "node:stream";
import { type ConnectionHost, MuxConnection } from "./connection.js";
import { MuxError } from "./errors.js";
import { checkConnId, encodeFrames } from "./frame.js";
import { type FrameSink, FrameParser } from "./frame-parser.js";

/** Options of a {@link Mux}. */
export interface MuxOptions {
  /**
   * Leave incoming bytes unread in the trunk until `unblock()` is called. A
   * runtime uses this so that a plugin's first frames wait until the runtime
   * has opened its connections (frames for ids not open are dropped).
   */
  blockedRead?: boolean;
  /**
   * Called for each frame that is dropped because its id is not open (id 0,
   * never opened, or closed): a place to count or log them.
   */
  onDroppedFrame?: (id: number, length: number) => void;
}

/** Events of a {@link Mux}. */
export interface MuxEvents {
  /** The mux closed, once: every connection has ended and the trunk is being closed. */
  close: [reason: MuxError];
}

/**
 * NRI's connection multiplexer: logical connections, each a byte stream,
 * carried over one trunk (a unix stream socket) as frames of an 8-byte header
 * (connection id, payload length; both u32 big-endian) and the payload.
 * Wire-compatible with `github.com/containerd/nri/pkg/net/multiplex`.
 */
export class Mux extends EventEmitter<MuxEvents> {
  readonly #trunk: Duplex;
  readonly #conns = new Map<number, MuxConnection>();
  readonly #parser = new FrameParser();
  /** Connections whose readers are behind; the trunk stays paused while any is. */
  readonly #behind = new Set<MuxConnection>();
  /** Writers waiting for the trunk's 'drain', in order. */
  readonly #drainWaiters: Array<(error?: Error) => void> = [];
  readonly #onDroppedFrame: ((id: number, length: number) => void) | undefined;
  #blocked: boolean;
  #closeReason: MuxError | undefined;
  /** The connection that receives the payload of the frame being read, if open. */
  #target: MuxConnection | undefined;

  constructor(trunk: Duplex, options: MuxOptions = {}) {
    super();
    this.#trunk = trunk;
    this.#blocked = options.blockedRead ?? false;
    this.#onDroppedFrame = options.onDroppedFrame;
    trunk.on("error", this.#onTrunkError);
    trunk.on("end", this.#onTrunkEnd);
    trunk.on("close", this.#onTrunkClose);
    trunk.on("drain", this.#onTrunkDrain);
    if (trunk.destroyed) {
      process.nextTick(this.#onTrunkClose);
    } else if (this.#blocked) {
      trunk.pause();
    } else {
      this.#startReading();
    }
  }

  /** The trunk this mux runs over. */
  get trunk(): Duplex {
    return this.#trunk;
  }

  /** Why the mux closed, or undefined while it is open. */
  get closeReason(): MuxError | undefined {
    return this.#closeReason;
  }

  /**
   * Opens logical connection `id` (1 to 2^32-1). Opening is local: nothing is
   * sent, the peer is assumed to use the same id. Throws a `MuxError` for id
   * 0 (reserved), an id already open, or a closed mux.
   */
  open(id: number): MuxConnection {
    checkConnId(id);
    if (this.#closeReason) {
      throw new MuxError("ERR_MUX_CLOSED", `cannot open connection ${id}: ${this.#closeReason.message}`, {
        cause: this.#closeReason,
      });
    }
    if (this.#conns.has(id)) {
      throw new MuxError("ERR_MUX_ID_IN_USE", `connection ${id} is already open`);
    }
    const connection = new MuxConnection(id, this.#host);
    this.#conns.set(id, connection);
    return connection;
  }

  /** Starts reading a mux created with `blockedRead`; does nothing otherwise or when repeated. */
  unblock(): void {
    if (!this.#blocked) return;
    this.#blocked = false;
    if (!this.#closeReason) this.#startReading();
  }

  /**
   * Closes every logical connection (readers get 'end' after the bytes they
   * hold; writes not yet handed to the trunk fail) and the trunk, once the
   * bytes already queued on it are flushed. Emits 'close' with a `MuxError`
   * `ERR_MUX_CLOSED` whose cause is `cause`.
   */
  close(cause?: unknown): void {
    this.#shutdown(new MuxError("ERR_MUX_CLOSED", "mux closed", { cause }));
  }

  #startReading(): void {
    this.#trunk.on("data", this.#onTrunkData);
    this.#trunk.resume();
  }

  #shutdown(reason: MuxError): void {
    if (this.#closeReason) return;
    this.#closeReason = reason;
    this.#target = undefined;
    this.#behind.clear();
    const trunk = this.#trunk;
    trunk.off("data", this.#onTrunkData);
    const connections = [...this.#conns.values()];
    this.#conns.clear();
    for (const connection of connections) connection.push(null);
    // Closed locally, the trunk first flushes what it holds: writes already
    // handed to it succeed. Otherwise its bytes are lost: those writes fail.
    const flush = reason.code === "ERR_MUX_CLOSED" && !trunk.destroyed && trunk.writableLength > 0;
    for (const waiter of this.#drainWaiters.splice(0)) waiter(flush ? undefined : reason);
    if (flush) {
      trunk.once("finish", () => trunk.destroy());
      trunk.end();
    } else {
      trunk.destroy();
    }
    this.emit("close", reason);
  }

  readonly #sink: FrameSink = {
    frameStart: (id, length) => {
      // a reader may close the mux while the rest of a chunk is parsed
      if (this.#closeReason) return;
      this.#target = this.#conns.get(id);
      if (!this.#target) this.#onDroppedFrame?.(id, length);
    },
    payload: (id, bytes) => {
      const target = this.#target;
      if (!target || this.#conns.get(id) !== target) return;
      if (!target.push(bytes)) {
        this.#behind.add(target);
        this.#trunk.pause();
      }
    },
  };

  readonly #host: ConnectionHost = {
    send: (id, chunk, done) => {
      if (this.#closeReason) return done(this.#closeReason);
      if (chunk.length === 0) return done();
      const buffers = encodeFrames(id, chunk);
      const trunk = this.#trunk;
      if (buffers.length > 1) trunk.cork();
      for (const buffer of buffers) trunk.write(buffer);
      if (buffers.length > 1) trunk.uncork();
      if (trunk.writableNeedDrain) this.#drainWaiters.push(done);
      else done();
    },
    release: (connection) => {
      if (this.#conns.get(connection.id) === connection) this.#conns.delete(connection.id);
      this.#readerCaughtUp(connection);
    },
    readingWanted: (connection) => this.#readerCaughtUp(connection),
  };

  #readerCaughtUp(connection: MuxConnection): void {
    if (this.#behind.delete(connection) && this.#behind.size === 0 && !this.#blocked && !this.#closeReason) {
      this.#trunk.resume();
    }
  }

  readonly #onTrunkData = (chunk: Buffer): void => {
    try {
      this.#parser.feed(chunk, this.#sink);
    } catch (error) {
      // Only the parser's refusal closes the mux; an exception thrown by a
      // connection's 'data' listener is the listener's own and goes on up.
      if (!(error instanceof MuxError && error.code === "ERR_MUX_FRAME_TOO_LARGE")) throw error;
      this.#shutdown(error);
    }
  };

  readonly #onTrunkDrain = (): void => {
    for (const waiter of this.#drainWaiters.splice(0)) waiter();
  };

  readonly #onTrunkEnd = (): void => {
    this.#shutdown(new MuxError("ERR_MUX_TRUNK_ENDED", "trunk ended by the peer"));
  };

  readonly #onTrunkError = (error: Error): void => {
    this.#shutdown(new MuxError("ERR_MUX_TRUNK_ERROR", `trunk failed: ${error.message}`, { cause: error }));
  };

  readonly #onTrunkClose = (): void => {
    this.#shutdown(new MuxError("ERR_MUX_TRUNK_CLOSED", "trunk closed"));
  };
}
