// Its types use Node's (streams, sockets, Buffer): the reference stays in the .d.ts for projects with "types": [].
/// <reference types="node" preserve="true" />
export { type ConnectionHost, MuxConnection } from "./connection.js";
export { MuxError, type MuxErrorCode } from "./errors.js";
export {
  FIRST_FRAME_LIMIT,
  frameSizes,
  HEADER_LENGTH,
  MAX_PAYLOAD,
  PLUGIN_SERVICE_CONN,
  RUNTIME_SERVICE_CONN,
} from "./frame.js";
export { Mux, type MuxEvents, type MuxOptions } from "./mux.js";
export { connectFd, type SocketPair, socketPair } from "./sockets.js";
