import {
  ClientError,
  type ClientMiddleware,
  type ClientMiddlewareCall,
  composeClientMiddleware,
  Status,
} from "nice-grpc-common";
import { type Channel, clientErrorFrom, type RawStream } from "./channel.js";
import {
  type Client,
  type MethodDefinition,
  methodPath,
  type ServiceDefinition,
  type TtrpcCallOptions,
} from "./definition.js";
import { encodeMessage } from "./message-encoding.js";
import { errorText } from "./status.js";

/** Call options applied to every method ("*") or to one method (by its key), overridden per call. */
// biome-ignore lint/complexity/noBannedTypes: extensions default to {} as nice-grpc's do, so that `CallOptions & OptionsExt` is CallOptions
export type DefaultCallOptions<D extends ServiceDefinition, OptionsExt = {}> = {
  [K in keyof D["methods"] | "*"]?: TtrpcCallOptions & Partial<OptionsExt>;
};

/** Makes typed clients, with client middleware (nice-grpc-common's ClientMiddleware). */
// biome-ignore lint/complexity/noBannedTypes: extensions default to {} as nice-grpc's do, so that `CallOptions & OptionsExt` is CallOptions
export interface ClientFactory<OptionsExt = {}> {
  /**
   * A factory whose clients run `middleware` around every call. As in
   * nice-grpc, the middleware added last is the outermost.
   */
  use<Ext>(middleware: ClientMiddleware<Ext, OptionsExt>): ClientFactory<OptionsExt & Ext>;
  /** A client of service `definition` over `channel`. */
  create<D extends ServiceDefinition>(
    definition: D,
    channel: Channel,
    defaultOptions?: DefaultCallOptions<D, OptionsExt>,
  ): Client<D, OptionsExt>;
}

type AnyMiddleware = ClientMiddleware<unknown, unknown>;
type CallFunction = (request: unknown, options: TtrpcCallOptions) => unknown;

/** A client factory without middleware. */
export function createClientFactory(): ClientFactory {
  return factoryWith(undefined);
}

/** A typed client of service `definition` over `channel` (no middleware). */
export function createClient<D extends ServiceDefinition>(
  definition: D,
  channel: Channel,
  defaultOptions?: DefaultCallOptions<D>,
): Client<D> {
  return factoryWith(undefined).create(definition, channel, defaultOptions);
}

function factoryWith<OptionsExt>(chain: AnyMiddleware | undefined): ClientFactory<OptionsExt> {
  return {
    use<Ext>(middleware: ClientMiddleware<Ext, OptionsExt>) {
      const added = middleware as AnyMiddleware;
      return factoryWith<OptionsExt & Ext>(chain === undefined ? added : composeClientMiddleware(chain, added));
    },
    create<D extends ServiceDefinition>(
      definition: D,
      channel: Channel,
      defaultOptions: DefaultCallOptions<D, OptionsExt> = {},
    ) {
      const client: Record<string, CallFunction> = {};
      const defaults = defaultOptions as Record<string, TtrpcCallOptions | undefined>;
      for (const [key, method] of Object.entries(definition.methods)) {
        const call = withMiddleware(chain, definition.fullName, method, baseCall(channel, definition.fullName, method));
        const methodDefaults = { ...defaults["*"], ...defaults[key] };
        client[key] =
          Object.keys(methodDefaults).length === 0
            ? (request, options = {}) => call(request, options)
            : (request, options) => call(request, { ...methodDefaults, ...options });
      }
      return client as Client<D, OptionsExt>;
    },
  };
}

/** The call itself: encode, send over the channel, decode. */
function baseCall(channel: Channel, service: string, method: MethodDefinition): CallFunction {
  const path = methodPath(service, method.name);
  const { requestStream, responseStream } = method;
  const encode = (request: unknown): Uint8Array => {
    try {
      return encodeMessage(method.requestType, request);
    } catch (error) {
      throw new ClientError(path, Status.INTERNAL, `ttrpc: error marshaling payload: ${errorText(error)}`);
    }
  };
  const decode = (payload: Uint8Array): unknown => {
    try {
      return method.responseType.decode(payload);
    } catch (error) {
      throw new ClientError(path, Status.INTERNAL, `ttrpc: error unmarshalling payload: ${errorText(error)}`);
    }
  };
  const open = (request: unknown, options: TtrpcCallOptions): RawStream => {
    const stream = channel.stream(service, method.name, method, requestStream ? undefined : encode(request), options);
    if (requestStream) void pump(request as AsyncIterable<unknown>, stream, encode, path);
    return stream;
  };

  if (!requestStream && !responseStream) {
    return async (request, options) => decode(await channel.unary(service, method.name, encode(request), options));
  }
  if (responseStream) {
    return async function* (request: unknown, options: TtrpcCallOptions) {
      for await (const payload of open(request, options).responses) yield decode(payload);
    };
  }
  return async (requests, options) => {
    for await (const payload of open(requests, options).responses) return decode(payload);
    throw new ClientError(path, Status.INTERNAL, "ttrpc: the server ended the call without a response");
  };
}

/** Sends the request messages of a call, then closes its sending side. */
async function pump(
  requests: AsyncIterable<unknown>,
  stream: RawStream,
  encode: (request: unknown) => Uint8Array,
  path: string,
): Promise<void> {
  try {
    for await (const request of requests) {
      if (!(await stream.send(encode(request)))) return;
    }
    stream.closeSend();
  } catch (error) {
    stream.cancel(clientErrorFrom(path, error));
  }
}

/** Wraps a call in the middleware chain, which sees it as nice-grpc's ClientMiddlewareCall. */
function withMiddleware(
  chain: AnyMiddleware | undefined,
  service: string,
  method: MethodDefinition,
  call: CallFunction,
): CallFunction {
  if (chain === undefined) return call;
  const { requestStream, responseStream } = method;
  const descriptor = {
    path: methodPath(service, method.name),
    requestStream,
    responseStream,
    options: method.options ?? {},
  };
  const next = responseStream
    ? (request: unknown, options: TtrpcCallOptions) => call(request, options) as AsyncGenerator<unknown, void>
    : // biome-ignore lint/correctness/useYield: a unary call's next, as nice-grpc's middleware wants it: a generator that returns the response
      async function* (request: unknown, options: TtrpcCallOptions) {
        return await call(request, options);
      };
  const middlewareCall = (request: unknown) =>
    ({ method: descriptor, requestStream, request, responseStream, next }) as ClientMiddlewareCall<unknown, unknown>;
  if (responseStream) return (request, options) => chain(middlewareCall(request), options);
  return async (request, options) => {
    const step = await chain(middlewareCall(request), options).next();
    if (!step.done) throw new Error("ttrpc: a middleware yielded a response for a method without a response stream");
    return step.value;
  };
}
