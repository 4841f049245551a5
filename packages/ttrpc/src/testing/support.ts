import { mkdtempSync, rmSync } from "node:fs";
import { createServer as createNetServer, connect as netConnect, type Socket } from "node:net";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { FrameDecoder } from "../frame-decoder.js";
import type { Frame } from "../frame.js";
import { KeyValue, StringList } from "../gen/ttrpc/request.js";

/** A fresh socket path in a new temporary directory (`removeSocketDir` removes it). */
export function socketPath(name = "ttrpc.sock"): string {
  return join(mkdtempSync(join(tmpdir(), "nri-ts-ttrpc-")), name);
}

/** Removes the temporary directory of a path from `socketPath`. */
export function removeSocketDir(path: string): void {
  rmSync(dirname(path), { recursive: true, force: true });
}

/** Two connected unix sockets: [client end, server end]. */
export async function socketPair(): Promise<[Socket, Socket]> {
  const path = socketPath();
  const listener = createNetServer();
  await new Promise<void>((resolve) => listener.listen(path, resolve));
  const accepted = new Promise<Socket>((resolve) => listener.once("connection", resolve));
  const client = netConnect(path);
  await new Promise((resolve) => client.once("connect", resolve));
  const server = await accepted;
  listener.close();
  removeSocketDir(path); // the connection outlives its socket file
  return [client, server];
}

/** A peer that speaks raw frames: what it receives is decoded, what it sends is bytes. */
export class RawPeer {
  readonly socket: Socket;
  readonly frames: Frame[] = [];
  private waiting: Array<() => void> = [];
  private read = 0;
  ended = false;

  constructor(socket: Socket) {
    this.socket = socket;
    const decoder = new FrameDecoder({
      frame: (streamId, type, flags, data) => {
        this.frames.push({ streamId, type, flags, length: data.length, data: Uint8Array.from(data) });
        this.wake();
      },
      oversized: (streamId, type, flags, length) => {
        this.frames.push({ streamId, type, flags, length, data: new Uint8Array(0) });
        this.wake();
      },
    });
    socket.on("data", (chunk: Buffer) => decoder.push(chunk));
    socket.on("close", () => {
      this.ended = true;
      this.wake();
    });
    socket.on("error", () => {});
  }

  send(bytes: Uint8Array): void {
    this.socket.write(bytes);
  }

  /** The next frame not yet returned; rejects if the connection closes first. */
  async next(): Promise<Frame> {
    while (this.read >= this.frames.length) {
      if (this.ended) throw new Error("connection closed");
      await new Promise<void>((resolve) => this.waiting.push(resolve));
    }
    return this.frames[this.read++];
  }

  /** Resolves once the connection is closed. */
  async closed(): Promise<void> {
    while (!this.ended) await new Promise<void>((resolve) => this.waiting.push(resolve));
  }

  private wake(): void {
    const waiting = this.waiting;
    this.waiting = [];
    for (const resolve of waiting) resolve();
  }
}

const method = <Req, Res, RS extends boolean, SS extends boolean>(
  name: string,
  requestType: Req,
  responseType: Res,
  requestStream: RS,
  responseStream: SS,
) => ({ name, requestType, responseType, requestStream, responseStream, options: {} });

/** A service over ttrpc's own messages, for tests. */
export const TestDefinition = {
  name: "Test",
  fullName: "nrits.test.Test",
  methods: {
    echo: method("Echo", KeyValue, KeyValue, false, false),
    fail: method("Fail", KeyValue, KeyValue, false, false),
    metadata: method("Metadata", KeyValue, StringList, false, false),
    collect: method("Collect", KeyValue, StringList, true, false),
    spread: method("Spread", KeyValue, KeyValue, false, true),
    chat: method("Chat", KeyValue, KeyValue, true, true),
  },
} as const;

/** Encoded KeyValue, as a request or response payload. */
export function keyValue(key: string, value = ""): Uint8Array {
  return KeyValue.encode({ key, value }).finish();
}

/** Resolves after `ms` milliseconds. */
export function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}

/** A promise with its resolve function, for a test to wait on an event. */
export function deferred<T = void>(): { promise: Promise<T>; resolve: (value: T) => void } {
  let resolve!: (value: T) => void;
  const promise = new Promise<T>((r) => (resolve = r));
  return { promise, resolve };
}
