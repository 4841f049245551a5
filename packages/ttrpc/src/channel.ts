import { connect as netConnect } from "node:net";
import type { Duplex } from "node:stream";
import { ClientError, Status } from "nice-grpc-common";
import { deadlineMs, startTimer, timeoutNanoUntil } from "./deadline.js";
import { methodPath, type TtrpcCallOptions } from "./definition.js";
import { decodeResponse, encodeRequestFrame, type ResponseEnvelope } from "./envelope.js";
import { encodeFrame, Flag, MessageType, OversizedMessageError, oversizedText } from "./frame.js";
import { FrameDecoder } from "./frame-decoder.js";
import { FrameWriter } from "./frame-writer.js";
import { MessageQueue, ReadPressure } from "./message-queue.js";
import { metadataToPairs } from "./metadata.js";
import { errorText, StatusText } from "./status.js";

/** Options of a Channel. */
export interface ChannelOptions {
  /** Called once when the connection closes, with the error that closed it, if any. */
  onClose?(error: Error | undefined): void;
}

/** Which sides of a call stream. */
export interface StreamKind {
  requestStream: boolean;
  responseStream: boolean;
}

/** A call with streams, on the level of encoded messages. */
export interface RawStream {
  /**
   * Sends one request message (only when requests stream). Resolves true
   * when the connection can take more, false when the call is over (further
   * messages would be dropped). Throws OversizedMessageError over 4 MiB.
   */
  send(payload: Uint8Array): Promise<boolean>;
  /** Tells the server that no more request messages follow. */
  closeSend(): void;
  /** Ends the call locally with `error`; the server is told no more requests follow. */
  cancel(error: ClientError): void;
  /** The response messages; just one unless responses stream. Failures are ClientErrors. */
  readonly responses: AsyncIterable<Uint8Array>;
}

/**
 * The client end of one ttrpc connection over any duplex byte stream (a
 * net.Socket, a multiplexed sub-connection). Calls run concurrently; stream
 * ids are odd and strictly increasing on the wire.
 */
export class Channel {
  private readonly duplex: Duplex;
  private readonly writer: FrameWriter;
  private readonly decoder: FrameDecoder;
  private readonly streams = new Map<number, CallBase>();
  private nextStreamId = 1;
  private ended = false;
  /** @internal Pauses reading while a response queue is full. */
  readonly readPressure: ReadPressure;
  private readonly onClose: ((error: Error | undefined) => void) | undefined;
  private resolveClosed!: (error: Error | undefined) => void;
  /** Resolves, with the error that closed it if any, once the connection is closed. */
  readonly closed: Promise<Error | undefined>;

  constructor(duplex: Duplex, options: ChannelOptions = {}) {
    this.duplex = duplex;
    this.onClose = options.onClose;
    this.closed = new Promise((resolve) => (this.resolveClosed = resolve));
    this.writer = new FrameWriter(duplex);
    this.readPressure = new ReadPressure(duplex);
    this.decoder = new FrameDecoder({
      frame: (streamId, type, flags, data) => this.streams.get(streamId)?.frame(type, flags, data),
      // the peer's oversized frame: no OversizedMessageError cause, which marks local refusals
      oversized: (streamId, _type, _flags, length) =>
        this.streams
          .get(streamId)
          ?.fail(new ClientError(this.pathOf(streamId), Status.RESOURCE_EXHAUSTED, oversizedText(length))),
    });
    duplex.on("data", (chunk: Buffer) => {
      try {
        this.decoder.push(chunk);
      } catch (error) {
        this.shutdown(error as Error);
      }
    });
    duplex.on("end", () => {
      try {
        this.decoder.end();
        this.shutdown(undefined);
      } catch (error) {
        this.shutdown(error as Error);
      }
    });
    duplex.on("error", (error: Error) => this.shutdown(error));
    duplex.on("close", () => this.shutdown(undefined));
  }

  /** True once the connection is closed; calls then fail with Unavailable. */
  get isClosed(): boolean {
    return this.ended;
  }

  /**
   * One unary call with an encoded request; resolves to the encoded response.
   * Failures are ClientErrors: the server's status, Unavailable when the
   * connection closes, DeadlineExceeded locally at the deadline,
   * ResourceExhausted (cause: OversizedMessageError) for a request over 4 MiB.
   * An aborted signal rejects with the signal's reason.
   */
  unary(service: string, method: string, payload: Uint8Array, options: TtrpcCallOptions = {}): Promise<Uint8Array> {
    return new Promise((resolve, reject) => {
      const call = new UnaryCall(this, methodPath(service, method), resolve, reject);
      const timeoutNano = call.start(options);
      if (timeoutNano === undefined) return;
      this.open(call, 0, { service, method, payload, timeoutNano, metadata: metadataToPairs(options.metadata) });
    });
  }

  /** Opens a call with streams; `request` is the single request when requests do not stream. */
  stream(
    service: string,
    method: string,
    kind: StreamKind,
    request: Uint8Array | undefined,
    options: TtrpcCallOptions = {},
  ): RawStream {
    const call = new StreamCall(this, methodPath(service, method), kind);
    const timeoutNano = call.start(options);
    if (timeoutNano !== undefined) {
      const flags = kind.requestStream ? Flag.RemoteOpen : Flag.RemoteClosed;
      const payload = kind.requestStream ? new Uint8Array(0) : (request ?? new Uint8Array(0));
      this.open(call, flags, { service, method, payload, timeoutNano, metadata: metadataToPairs(options.metadata) });
    }
    return call;
  }

  /** Closes the connection: every pending call fails with Unavailable at once. */
  close(): void {
    this.shutdown(undefined);
  }

  /** @internal Assigns the next stream id and sends the Request frame. */
  open(call: CallBase, flags: number, request: Parameters<typeof encodeRequestFrame>[2]): void {
    if (this.ended) return call.fail(unavailable(call.path));
    if (this.nextStreamId > 0xffffffff) {
      return call.fail(new ClientError(call.path, Status.RESOURCE_EXHAUSTED, "ttrpc: stream ids exhausted"));
    }
    const id = this.nextStreamId;
    this.nextStreamId += 2;
    let frame: Buffer;
    try {
      frame = encodeRequestFrame(id, flags, request);
    } catch (error) {
      return call.fail(clientErrorFrom(call.path, error));
    }
    call.id = id;
    this.streams.set(id, call);
    this.writer.write(frame);
  }

  /** @internal Sends a Data frame; throws OversizedMessageError over 4 MiB. */
  sendData(streamId: number, flags: number, payload: Uint8Array): Promise<void> {
    this.writer.write(encodeFrame(streamId, MessageType.Data, flags, payload));
    return this.writer.ready();
  }

  /** @internal Forgets a finished stream; later frames for it are dropped. */
  forget(streamId: number): void {
    this.streams.delete(streamId);
  }

  private pathOf(streamId: number): string {
    return this.streams.get(streamId)?.path ?? "";
  }

  private shutdown(error: Error | undefined): void {
    if (this.ended) return;
    this.ended = true;
    this.writer.close();
    const calls = [...this.streams.values()];
    this.streams.clear();
    // one error per method, not per call: making an error's stack costs more than the rest of a call's teardown
    const errors = new Map<string, ClientError>();
    for (const call of calls) {
      let error = errors.get(call.path);
      if (error === undefined) errors.set(call.path, (error = unavailable(call.path)));
      call.fail(error);
    }
    this.duplex.destroy();
    this.resolveClosed(error);
    this.onClose?.(error);
  }
}

/** Connects to a ttrpc server on a unix socket. */
export function connect(path: string, options: ChannelOptions = {}): Promise<Channel> {
  return new Promise((resolve, reject) => {
    const socket = netConnect(path);
    socket.once("error", reject);
    socket.once("connect", () => {
      socket.off("error", reject);
      resolve(new Channel(socket, options));
    });
  });
}

/** State shared by unary and streaming calls: id, deadline and signal. */
abstract class CallBase {
  id = 0;
  protected timer: NodeJS.Timeout | undefined;
  protected signal: AbortSignal | undefined;
  protected done = false;
  protected readonly channel: Channel;
  readonly path: string;

  constructor(channel: Channel, path: string) {
    this.channel = channel;
    this.path = path;
  }

  abstract frame(type: number, flags: number, data: Uint8Array): void;
  /** Ends the call with `error` (idempotent). */
  abstract fail(error: unknown): void;

  /**
   * Arms the deadline and the signal. Returns timeout_nano to send, or
   * undefined when the call already failed (signal aborted, deadline past).
   */
  start(options: TtrpcCallOptions): bigint | undefined {
    const { signal, deadline } = options;
    if (signal?.aborted) {
      this.fail(signal.reason);
      return undefined;
    }
    let timeoutNano = 0n;
    if (deadline !== undefined) {
      const at = deadlineMs(deadline);
      if (!Number.isFinite(at)) {
        this.fail(new ClientError(this.path, Status.INVALID_ARGUMENT, "ttrpc: the deadline is not a valid time"));
        return undefined;
      }
      timeoutNano = timeoutNanoUntil(at);
      if (timeoutNano <= 0n) {
        this.fail(deadlineError(this.path));
        return undefined;
      }
      this.timer = startTimer(at - Date.now(), () => this.fail(deadlineError(this.path)));
    }
    if (signal !== undefined) {
      this.signal = signal;
      signal.addEventListener("abort", this, { once: true });
    }
    return timeoutNano;
  }

  /** The signal fired. */
  handleEvent(): void {
    this.fail(this.signal?.reason);
  }

  /** Stops the timer and the signal listener and forgets the stream; false if already done. */
  protected finish(): boolean {
    if (this.done) return false;
    this.done = true;
    if (this.timer !== undefined) clearTimeout(this.timer);
    this.signal?.removeEventListener("abort", this);
    if (this.id !== 0) this.channel.forget(this.id);
    return true;
  }

  /** Decodes a Response frame: the payload on success, else throws its ClientError. */
  protected responsePayload(data: Uint8Array): Uint8Array {
    let response: ResponseEnvelope;
    try {
      response = decodeResponse(data);
    } catch (error) {
      throw new ClientError(
        this.path,
        Status.INTERNAL,
        `ttrpc: error unmarshalling response: ${(error as Error).message}`,
      );
    }
    const status = response.status;
    if (status !== undefined && status.code !== Status.OK)
      throw new ClientError(this.path, status.code, status.message);
    return response.payload;
  }
}

class UnaryCall extends CallBase {
  private readonly resolve: (payload: Uint8Array) => void;
  private readonly reject: (error: unknown) => void;

  constructor(
    channel: Channel,
    path: string,
    resolve: (payload: Uint8Array) => void,
    reject: (error: unknown) => void,
  ) {
    super(channel, path);
    this.resolve = resolve;
    this.reject = reject;
  }

  frame(type: number, _flags: number, data: Uint8Array): void {
    if (!this.finish()) return;
    if (type !== MessageType.Response) return this.reject(protocolError(this.path, type));
    try {
      this.resolve(this.responsePayload(data));
    } catch (error) {
      this.reject(error);
    }
  }

  fail(error: unknown): void {
    if (this.finish()) this.reject(error);
  }
}

class StreamCall extends CallBase implements RawStream {
  private readonly kind: StreamKind;
  private readonly queue: MessageQueue<Uint8Array>;
  private sendClosed: boolean;

  constructor(channel: Channel, path: string, kind: StreamKind) {
    super(channel, path);
    this.kind = kind;
    this.sendClosed = !kind.requestStream;
    this.queue = new MessageQueue({
      pressure: channel.readPressure.pressure,
      abandoned: () => this.cancel(new ClientError(path, Status.CANCELLED, "ttrpc: responses abandoned")),
    });
  }

  get responses(): AsyncIterable<Uint8Array> {
    return this.queue;
  }

  async send(payload: Uint8Array): Promise<boolean> {
    if (this.done || this.sendClosed) return false;
    await this.channel.sendData(this.id, 0, payload);
    return !this.done;
  }

  closeSend(): void {
    if (this.done || this.sendClosed) return;
    this.sendClosed = true;
    void this.channel.sendData(this.id, Flag.RemoteClosed | Flag.NoData, new Uint8Array(0));
  }

  cancel(error: ClientError): void {
    if (this.done) return;
    this.closeSend();
    this.fail(error);
  }

  frame(type: number, flags: number, data: Uint8Array): void {
    if (type === MessageType.Response) {
      this.finish();
      try {
        const payload = this.responsePayload(data);
        if (!this.kind.responseStream || payload.length > 0) this.queue.push(payload);
        this.queue.end();
      } catch (error) {
        this.queue.end(error);
      }
    } else if (type === MessageType.Data && this.kind.responseStream) {
      const closing = (flags & Flag.RemoteClosed) !== 0;
      if (closing) this.finish();
      // "no data" without "remote closed" is a message that encodes to nothing
      if (!(closing && (flags & Flag.NoData) !== 0)) this.queue.push(data);
      if (closing) this.queue.end();
    } else {
      this.fail(protocolError(this.path, type));
    }
  }

  fail(error: unknown): void {
    if (this.finish()) this.queue.end(error);
  }
}

function unavailable(path: string): ClientError {
  return new ClientError(path, Status.UNAVAILABLE, StatusText.closed);
}

function deadlineError(path: string): ClientError {
  return new ClientError(path, Status.DEADLINE_EXCEEDED, StatusText.deadlineExceeded);
}

/** Go's text (its client quotes the message type's name, "unknown" for a type it does not know). */
function protocolError(path: string, type: number): ClientError {
  const name = type === MessageType.Data ? "data" : type === MessageType.Request ? "request" : "unknown";
  return new ClientError(path, Status.UNKNOWN, `unexpected "${name}" message received: protocol error`);
}

/** A ClientError for a failure to send: an oversized message keeps its error as cause. */
export function clientErrorFrom(path: string, error: unknown): ClientError {
  if (error instanceof ClientError) return error;
  if (error instanceof OversizedMessageError) {
    const clientError = new ClientError(path, Status.RESOURCE_EXHAUSTED, error.message);
    clientError.cause = error;
    return clientError;
  }
  return new ClientError(path, Status.INTERNAL, errorText(error));
}
