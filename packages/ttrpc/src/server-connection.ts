import type { Duplex } from "node:stream";
import {
  type CallContext,
  type MethodDescriptor,
  ServerError,
  type ServerMiddleware,
  type ServerMiddlewareCall,
  Status,
} from "nice-grpc-common";
import { CallScope } from "./call-context.js";
import type { MethodDefinition } from "./definition.js";
import { decodeRequest, encodeResponseFrame, type RequestEnvelope, type StatusEnvelope } from "./envelope.js";
import { encodeFrame, Flag, MessageType, OversizedMessageError, oversizedText } from "./frame.js";
import { FrameDecoder } from "./frame-decoder.js";
import { FrameWriter } from "./frame-writer.js";
import { encodeMessage } from "./message-encoding.js";
import { MessageQueue, ReadPressure } from "./message-queue.js";
import { errorText, statusFromError, StatusText } from "./status.js";

/** A handler as the connection calls it: request (or requests) and context in, result out. */
export type AnyHandler = (request: unknown, context: CallContext) => unknown;

/** A method a server can run. */
export interface RegisteredMethod {
  readonly definition: MethodDefinition;
  readonly descriptor: MethodDescriptor;
  readonly handler: AnyHandler | undefined;
}

/** What a connection needs from its server. */
export interface ConnectionHost {
  /** Service full name → wire method name → method. */
  readonly services: ReadonlyMap<string, ReadonlyMap<string, RegisteredMethod>>;
  readonly middleware: ServerMiddleware<unknown, unknown> | undefined;
}

/** A call in progress on a connection. */
interface ActiveCall {
  readonly id: number;
  readonly method: RegisteredMethod;
  readonly scope: CallScope;
  /** The request messages of a call whose requests stream. */
  readonly requests: MessageQueue<unknown> | undefined;
  /** Set once the call's final frame is sent or the call is abandoned. */
  done: boolean;
}

const EMPTY = new Uint8Array(0);

/**
 * The server end of one ttrpc connection: checks stream ids as Go's server
 * does, runs each call concurrently, answers protocol errors with a status on
 * the offending stream id and keeps the connection open. Anything that goes
 * wrong with this connection closes this connection only.
 */
export class ServerConnection {
  private readonly host: ConnectionHost;
  private readonly duplex: Duplex;
  private readonly peer: string;
  private readonly writer: FrameWriter;
  private readonly readPressure: ReadPressure;
  private readonly calls = new Map<number, ActiveCall>();
  private lastStreamId = 0;
  private draining = false;
  private ended = false;
  private resolveClosed!: () => void;
  /** Resolves once the connection is closed. */
  readonly closed: Promise<void>;

  constructor(host: ConnectionHost, duplex: Duplex, peer: string) {
    this.host = host;
    this.duplex = duplex;
    this.peer = peer;
    this.closed = new Promise((resolve) => (this.resolveClosed = resolve));
    this.readPressure = new ReadPressure(duplex);
    // Like Go's server, read no further while answers wait to be written: a
    // peer that sends without reading holds up its own connection, not memory.
    this.writer = new FrameWriter(duplex, { congestion: this.readPressure.pressure });
    const decoder = new FrameDecoder({
      frame: (streamId, type, flags, data) => this.onFrame(streamId, type, flags, data),
      oversized: (streamId, _type, _flags, length) =>
        this.sendStatus(streamId, { code: Status.RESOURCE_EXHAUSTED, message: oversizedText(length) }),
    });
    duplex.on("data", (chunk: Buffer) => {
      try {
        decoder.push(chunk);
      } catch {
        this.destroy();
      }
    });
    duplex.on("end", () => this.destroy());
    duplex.on("error", () => this.destroy());
    duplex.on("close", () => this.destroy());
  }

  /** Closes once no call is left (new requests meanwhile are still served). */
  drain(): void {
    this.draining = true;
    if (this.calls.size === 0) void this.endGracefully();
  }

  /** Closes now: calls still running see their signal fire; their answers are dropped. */
  destroy(): void {
    if (this.ended) return;
    this.ended = true;
    this.writer.close();
    // one reason for all: an error's stack costs more than the rest of a call's teardown
    const reason = new ServerError(Status.CANCELLED, "ttrpc: connection closed");
    for (const call of this.calls.values()) {
      call.done = true;
      call.scope.cancel(reason);
      call.requests?.end(reason);
      call.requests?.discard();
    }
    this.calls.clear();
    this.duplex.destroy();
    this.resolveClosed();
  }

  /** Closes once every answer is written: a peer that keeps its side open cannot hold up shutdown. */
  private async endGracefully(): Promise<void> {
    await this.writer.ready();
    if (!this.ended) this.duplex.end(() => this.destroy());
  }

  private onFrame(streamId: number, type: number, flags: number, data: Uint8Array): void {
    if (streamId % 2 !== 1) {
      this.sendStatus(streamId, { code: Status.INVALID_ARGUMENT, message: StatusText.oddStreamId });
    } else if (type === MessageType.Request) {
      this.onRequest(streamId, data);
    } else if (type === MessageType.Data) {
      this.onData(streamId, flags, data);
    }
    // other types are ignored, leaving room for protocol extensions
  }

  private onRequest(id: number, data: Uint8Array): void {
    if (id <= this.lastStreamId) {
      return this.sendStatus(id, { code: Status.INVALID_ARGUMENT, message: StatusText.increasingStreamId });
    }
    this.lastStreamId = id;
    let request: RequestEnvelope;
    try {
      request = decodeRequest(data);
    } catch (error) {
      return this.sendStatus(id, {
        code: Status.INVALID_ARGUMENT,
        message: `unmarshal request error: ${errorText(error)}`,
      });
    }
    const service = this.host.services.get(request.service);
    if (service === undefined) {
      return this.sendStatus(id, { code: Status.UNIMPLEMENTED, message: `service ${request.service}` });
    }
    const method = service.get(request.method);
    if (method?.handler === undefined) {
      return this.sendStatus(id, { code: Status.UNIMPLEMENTED, message: `method ${request.method}` });
    }

    const { requestStream } = method.definition;
    let input: unknown;
    let requests: MessageQueue<unknown> | undefined;
    if (requestStream) {
      requests = new MessageQueue({ pressure: this.readPressure.pressure });
      input = requests;
      // a client may put the first message into the Request itself
      if (request.payload.length > 0) this.pushRequest(requests, method, request.payload);
    } else {
      try {
        input = method.definition.requestType.decode(request.payload);
      } catch (error) {
        return this.sendStatus(id, { code: Status.INTERNAL, message: unmarshalText(error) });
      }
    }
    const call: ActiveCall = {
      id,
      method,
      scope: new CallScope(this.peer, request.metadata, request.timeoutNano),
      requests,
      done: false,
    };
    this.calls.set(id, call);
    void this.run(call, input);
  }

  private onData(id: number, flags: number, data: Uint8Array): void {
    const call = this.calls.get(id);
    if (call === undefined || (!call.method.definition.requestStream && !call.method.definition.responseStream)) {
      return this.sendStatus(id, { code: Status.INVALID_ARGUMENT, message: StatusText.inactiveStream });
    }
    const requests = call.requests;
    if ((flags & Flag.NoData) === 0) {
      if (requests === undefined || requests.finished) {
        return this.sendStatus(id, {
          code: Status.INVALID_ARGUMENT,
          message: "data handling error: ttrpc: stream closed",
        });
      }
      this.pushRequest(requests, call.method, data);
    }
    if ((flags & Flag.RemoteClosed) !== 0) {
      requests?.end();
      if (data.length > 0) {
        const status = { code: Status.INVALID_ARGUMENT, message: StatusText.closeWithData };
        this.finishCall(call);
        call.scope.cancel(new ServerError(status.code, status.message));
        this.sendStatus(id, status);
      }
    }
  }

  private pushRequest(requests: MessageQueue<unknown>, method: RegisteredMethod, payload: Uint8Array): void {
    try {
      requests.push(method.definition.requestType.decode(payload));
    } catch (error) {
      requests.end(new ServerError(Status.INTERNAL, unmarshalText(error)));
    }
  }

  /** Runs a call to its end and sends its final frame. */
  private async run(call: ActiveCall, input: unknown): Promise<void> {
    const { method, scope } = call;
    let frame: Buffer;
    try {
      if (method.definition.responseStream) {
        for await (const response of this.invokeStreaming(method, input, scope.context)) {
          if (call.done) break;
          this.writer.write(encodeFrame(call.id, MessageType.Data, 0, encodeResponse(method, response)));
          await this.writer.ready();
        }
        frame = encodeFrame(call.id, MessageType.Data, Flag.RemoteClosed | Flag.NoData, EMPTY);
      } else {
        const response = await this.invokeUnary(method, input, scope.context);
        frame = encodeResponseFrame(call.id, undefined, encodeResponse(method, response));
      }
    } catch (error) {
      if (call.done) return;
      frame = statusFrame(call.id, statusFromError(asStatus(error), scope.abortReason));
    }
    if (call.done) return;
    this.finishCall(call);
    this.writer.write(frame);
  }

  private invokeUnary(method: RegisteredMethod, input: unknown, context: CallContext): Promise<unknown> | unknown {
    const handler = method.handler as AnyHandler;
    const middleware = this.host.middleware;
    if (middleware === undefined) return handler(input, context);
    return (async () => {
      const generator = middleware(middlewareCall(method, input, handler), context);
      const step = await generator.next();
      if (!step.done) throw new Error("ttrpc: a middleware yielded a response for a method without a response stream");
      return step.value;
    })();
  }

  private invokeStreaming(method: RegisteredMethod, input: unknown, context: CallContext): AsyncIterable<unknown> {
    const handler = method.handler as AnyHandler;
    const middleware = this.host.middleware;
    if (middleware === undefined) return handler(input, context) as AsyncIterable<unknown>;
    return middleware(middlewareCall(method, input, handler), context);
  }

  private finishCall(call: ActiveCall): void {
    call.done = true;
    call.scope.finish();
    call.requests?.discard();
    this.calls.delete(call.id);
    if (this.draining && this.calls.size === 0) void this.endGracefully();
  }

  private sendStatus(id: number, status: StatusEnvelope): void {
    this.writer.write(statusFrame(id, status));
  }
}

/** The middleware view of a call; `next` runs the handler itself. */
function middlewareCall(method: RegisteredMethod, request: unknown, handler: AnyHandler) {
  const { requestStream, responseStream } = method.definition;
  const next = responseStream
    ? async function* (request: unknown, context: CallContext) {
        yield* handler(request, context) as AsyncIterable<unknown>;
      }
    : // biome-ignore lint/correctness/useYield: a unary call's next, as nice-grpc's middleware wants it: a generator that returns the response
      async function* (request: unknown, context: CallContext) {
        return await handler(request, context);
      };
  return { method: method.descriptor, requestStream, request, responseStream, next } as ServerMiddlewareCall<
    unknown,
    unknown
  >;
}

/** Encodes a handler's response; failures become the statuses Go's ttrpc uses. */
function encodeResponse(method: RegisteredMethod, response: unknown): Uint8Array {
  if (response === undefined || response === null) throw new ServerError(Status.UNKNOWN, StatusText.nilResponse);
  try {
    return encodeMessage(method.definition.responseType, response);
  } catch (error) {
    throw new ServerError(Status.INTERNAL, `ttrpc: error marshaling payload: ${errorText(error)}`);
  }
}

/** A Response frame with a status (a status text too long for a frame becomes ResourceExhausted). */
function statusFrame(id: number, status: StatusEnvelope): Buffer {
  try {
    return encodeResponseFrame(id, status, EMPTY);
  } catch (error) {
    return encodeResponseFrame(id, statusFromError(asStatus(error)), EMPTY);
  }
}

/**
 * A response too large to send fails its call only, with ResourceExhausted
 * (Go's server would drop the connection instead).
 */
function asStatus(error: unknown): unknown {
  return error instanceof OversizedMessageError ? new ServerError(Status.RESOURCE_EXHAUSTED, error.message) : error;
}

function unmarshalText(error: unknown): string {
  return `ttrpc: error unmarshalling payload: ${errorText(error)}`;
}
