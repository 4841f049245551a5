import { once } from "node:events";
import { connect, type Socket } from "node:net";
import { fileURLToPath } from "node:url";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { Flood, floodCost, MeasuredChild } from "./testing/flood.js";
import { keyValue, RawPeer, removeSocketDir, socketPath, TestDefinition } from "./testing/support.js";
import { encodeRequestFrame } from "./envelope.js";
import { encodeFrame, MessageType } from "./frame.js";

/*
 * A peer that sends 30 MB of requests and reads nothing back. The server,
 * in a child process so that its memory is its own, stops reading that
 * connection while its answers wait to be written, whatever the answers are
 * (Go's server does so for error statuses), keeps serving its other
 * connections, and answers everything once the peer reads again.
 */

const FLOOD_BYTES = 30 << 20;
/** What the flood may add to the server's resident set: a few MiB (it was 120 to 185 MiB). */
const RSS_BOUND = 4 << 20;

const target = fileURLToPath(new URL("./testing/flood-target.ts", import.meta.url));
const service = TestDefinition.fullName;

function request(id: number, method: string, payload: Uint8Array): Buffer {
  return encodeRequestFrame(id, 0, { service, method, payload, timeoutNano: 0n, metadata: [] });
}

/** Request makers, one per kind of answer the server writes. */
function increasing(frame: (id: number) => Buffer): () => Buffer {
  let id = -1;
  return () => frame((id += 2));
}

const floods: Record<string, () => () => Buffer> = {
  "replies to valid calls": () => increasing((id) => request(id, "Echo", keyValue("k", "v".repeat(64)))),
  "even stream ids (InvalidArgument)": () => () => request(2, "Echo", keyValue("k")),
  "re-used stream ids (InvalidArgument)": () => () => request(1, "Echo", keyValue("k")),
  "unknown methods (Unimplemented)": () => increasing((id) => request(id, "NoSuchMethod", new Uint8Array(0))),
  "undecodable requests (InvalidArgument)": () =>
    increasing((id) => encodeFrame(id, MessageType.Request, 0, Buffer.from([0xff, 0xff, 0xff]))),
  "undecodable payloads (Internal)": () => increasing((id) => request(id, "Echo", Buffer.from([0x0a, 0x7f]))),
};

let path: string;
let child: MeasuredChild;
let socket: Socket | undefined;
beforeAll(async () => {
  path = socketPath();
  child = await MeasuredChild.start(target, [path]);
});
afterAll(async () => {
  await child.stop();
  removeSocketDir(path);
});
afterEach(() => socket?.destroy());

describe("a peer that sends without reading", () => {
  for (const [name, makeFlood] of Object.entries(floods)) {
    it(`holds up its own connection only, with bounded memory: ${name}`, { timeout: 60_000 }, async () => {
      socket = connect(path);
      await once(socket, "connect");
      const flood = new Flood(socket, socket, makeFlood());
      const { written, rssBefore, rssAfter } = await floodCost(flood, child, FLOOD_BYTES);
      expect(written, "the server stopped reading").toBeLessThan(FLOOD_BYTES);
      expect(rssAfter - rssBefore, `RSS grew from ${rssBefore} to ${rssAfter}`).toBeLessThan(RSS_BOUND);

      const other = new RawPeer(connect(path));
      other.send(request(1, "Echo", keyValue("other")));
      expect((await other.next()).type).toBe(MessageType.Response);
      other.socket.destroy();

      await flood.recover();
    });
  }
});
