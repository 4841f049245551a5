// Its types use Node's (streams, sockets, Buffer): the reference stays in the .d.ts for projects with "types": [].
/// <reference types="node" preserve="true" />
export { type ChannelOptions, Channel, connect, type RawStream, type StreamKind } from "./channel.js";
export { type ClientFactory, createClient, createClientFactory, type DefaultCallOptions } from "./client.js";
export type {
  AnyMessageType,
  Client,
  ClientMethod,
  DeepPartial,
  MessageCodec,
  MethodDefinition,
  RequestOf,
  ResponseOf,
  ServerMethod,
  ServiceDefinition,
  ServiceImplementation,
  TtrpcCallContext,
  TtrpcCallOptions,
} from "./definition.js";
export {
  decodeRequest,
  decodeResponse,
  encodeRequestFrame,
  encodeResponseFrame,
  type RequestEnvelope,
  type ResponseEnvelope,
  type StatusEnvelope,
} from "./envelope.js";
export {
  assertDataLength,
  encodeFrame,
  Flag,
  type Frame,
  FRAME_HEADER_LENGTH,
  type FrameHeader,
  MAX_DATA_LENGTH,
  MessageType,
  OversizedMessageError,
  readFrameHeader,
  writeFrameHeader,
} from "./frame.js";
export { FrameDecoder, type FrameSink, TruncatedFrameError } from "./frame-decoder.js";
export { KeyValue, Request, Response, StringList } from "./gen/ttrpc/request.js";
export { Status as RpcStatus } from "./gen/google/rpc/status.js";
export { Any } from "./gen/google/protobuf/any.js";
export type { ReadPressure } from "./message-queue.js";
export type { AnyHandler, RegisteredMethod } from "./server-connection.js";
export { listenBacklog } from "./listen-backlog.js";
export { metadataFromPairs, metadataToPairs } from "./metadata.js";
export { createServer, type ServeOptions, Server } from "./server.js";
export { StatusText, statusFromError } from "./status.js";
