import type { BinaryWriter } from "@bufbuild/protobuf/wire";
import type { CallContext, CallOptions } from "nice-grpc-common";

/*
 * Service definitions in the shape ts-proto generates with
 * `outputServices=generic-definitions`, and the handler and client types
 * derived from them: the same object drives a server and a client.
 */

/** A generated message codec (ts-proto's `MessageFns<T>` fits). */
export interface MessageCodec<T> {
  /** Encodes into `writer` when given (ttrpc reuses one), else into a new one. */
  encode(message: T, writer?: BinaryWriter): { finish(): Uint8Array };
  decode(input: Uint8Array): T;
  fromPartial(object: DeepPartial<T>): T;
}

/** One method of a service definition. */
export interface MethodDefinition {
  /** The bare method name sent on the wire, e.g. "Configure". */
  readonly name: string;
  readonly requestType: AnyMessageType;
  readonly responseType: AnyMessageType;
  readonly requestStream: boolean;
  readonly responseStream: boolean;
  readonly options?: { readonly idempotencyLevel?: "IDEMPOTENT" | "NO_SIDE_EFFECTS" };
}

/** A service definition; `methods` is keyed by the camel-case name used in code. */
export interface ServiceDefinition {
  readonly name?: string;
  /** The full proto name sent on the wire, e.g. "nri.pkg.api.v1alpha1.Plugin". */
  readonly fullName: string;
  readonly methods: { readonly [key: string]: MethodDefinition };
}

/** Any message codec, whatever its message type. */
export interface AnyMessageType {
  encode(message: never, writer?: BinaryWriter): { finish(): Uint8Array };
  decode(input: Uint8Array): unknown;
  fromPartial(object: never): unknown;
}

/** The decoded request message of a method. */
export type RequestOf<M extends MethodDefinition> = ReturnType<M["requestType"]["decode"]>;
/** The decoded response message of a method. */
export type ResponseOf<M extends MethodDefinition> = ReturnType<M["responseType"]["decode"]>;

// biome-ignore lint/complexity/noBannedTypes: functions are left as they are, whatever their type
type Builtin = Date | Function | Uint8Array | string | number | boolean | undefined;

/** What `fromPartial` accepts: any field may be left out; 64-bit integers also as number or string. */
export type DeepPartial<T> = T extends bigint
  ? bigint | number | string
  : T extends Builtin
    ? T
    : T extends Array<infer U>
      ? Array<DeepPartial<U>>
      : T extends ReadonlyArray<infer U>
        ? ReadonlyArray<DeepPartial<U>>
        : T extends object
          ? { [K in keyof T]?: DeepPartial<T[K]> }
          : Partial<T>;

/** What a server handler gets besides its request: nice-grpc's CallContext and the call's deadline. */
export type TtrpcCallContext = CallContext & {
  /** When the client's deadline (timeout_nano) passes; undefined when it sent none. */
  readonly deadline: Date | undefined;
};

/** A server handler for method M, typed by whether each side streams. */
// biome-ignore lint/complexity/noBannedTypes: extensions default to {} as nice-grpc's do, so that `CallContext & ContextExt` is CallContext
export type ServerMethod<M extends MethodDefinition, ContextExt = {}> = M["requestStream"] extends true
  ? M["responseStream"] extends true
    ? (
        requests: AsyncIterable<RequestOf<M>>,
        context: TtrpcCallContext & ContextExt,
      ) => AsyncIterable<DeepPartial<ResponseOf<M>>>
    : (
        requests: AsyncIterable<RequestOf<M>>,
        context: TtrpcCallContext & ContextExt,
      ) => Promise<DeepPartial<ResponseOf<M>>>
  : M["responseStream"] extends true
    ? (request: RequestOf<M>, context: TtrpcCallContext & ContextExt) => AsyncIterable<DeepPartial<ResponseOf<M>>>
    : (request: RequestOf<M>, context: TtrpcCallContext & ContextExt) => Promise<DeepPartial<ResponseOf<M>>>;

/** Handlers for the methods of D; a method left out answers Unimplemented "method X". */
// biome-ignore lint/complexity/noBannedTypes: extensions default to {} as nice-grpc's do, so that `CallContext & ContextExt` is CallContext
export type ServiceImplementation<D extends ServiceDefinition, ContextExt = {}> = {
  [K in keyof D["methods"]]?: ServerMethod<D["methods"][K], ContextExt>;
};

/** Options of one client call. */
export type TtrpcCallOptions = CallOptions & {
  /** When the call times out (a Date or milliseconds since the epoch); sent as timeout_nano. */
  deadline?: Date | number;
};

/** A client method for method M, typed by whether each side streams. */
// biome-ignore lint/complexity/noBannedTypes: extensions default to {} as nice-grpc's do, so that `CallOptions & OptionsExt` is CallOptions
export type ClientMethod<M extends MethodDefinition, OptionsExt = {}> = M["requestStream"] extends true
  ? M["responseStream"] extends true
    ? (
        requests: AsyncIterable<DeepPartial<RequestOf<M>>>,
        options?: TtrpcCallOptions & OptionsExt,
      ) => AsyncIterable<ResponseOf<M>>
    : (
        requests: AsyncIterable<DeepPartial<RequestOf<M>>>,
        options?: TtrpcCallOptions & OptionsExt,
      ) => Promise<ResponseOf<M>>
  : M["responseStream"] extends true
    ? (request: DeepPartial<RequestOf<M>>, options?: TtrpcCallOptions & OptionsExt) => AsyncIterable<ResponseOf<M>>
    : (request: DeepPartial<RequestOf<M>>, options?: TtrpcCallOptions & OptionsExt) => Promise<ResponseOf<M>>;

/** A typed client for service D. */
// biome-ignore lint/complexity/noBannedTypes: extensions default to {} as nice-grpc's do, so that `CallOptions & OptionsExt` is CallOptions
export type Client<D extends ServiceDefinition, OptionsExt = {}> = {
  [K in keyof D["methods"]]: ClientMethod<D["methods"][K], OptionsExt>;
};

/** "/service/Method", the path middleware and errors name a method by. */
export function methodPath(service: string, method: string): string {
  return `/${service}/${method}`;
}
