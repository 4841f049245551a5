/*
 * @nri-ts/ttrpc over @nri-ts/mux against Go's ttrpc v1.2.7 over Go's mux
 * (github.com/containerd/nri v0.12.2), live, on one unix stream socket, in
 * NRI's layout: the plugin serves on connection 1 and calls on connection 2,
 * the runtime calls on connection 1 and serves on connection 2. We play each
 * side against cmd/mux-peer -nri playing the other, and in each layout both
 * conversations run: our client → Go's server and Go's client → our server,
 * with the test service of test-service.ts (Go's twin in
 * internal/testservice).
 *
 * Go's ttrpc reads a mux connection through a 4096-byte buffer and a Go mux
 * connection fails a read into a smaller buffer than its next frame (ENOMEM),
 * which silently ends that ttrpc conversation. mux-peer reports such failures,
 * and the shared calls below fail at once when it does.
 */
import { setTimeout as sleep } from "node:timers/promises";
import { frameSizes, PLUGIN_SERVICE_CONN, RUNTIME_SERVICE_CONN } from "@nri-ts/mux";
import { Channel, createServer, MAX_DATA_LENGTH } from "@nri-ts/ttrpc";
import { ServerError, Status } from "nice-grpc-common";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { describeWithGo } from "./go.js";
import { buildPeer, type Session, start, stopPeers } from "./mux-peer.js";
import {
  BARRIER,
  channelClient,
  echoRequestLength,
  generateResponseLength,
  implementation,
  largestFill,
  observed,
  type Outcome,
  TestDefinition,
  type UnaryTestClient,
} from "./test-service.js";

const MiB = 1024 * 1024;

/** Frame data sizes: on a mux connection a frame is 10 + size bytes, so 4086 fills the 4096-byte first mux frame and 4087 spills one byte. */
const DATA_SIZES = [100, 4086, 4087, 10_000, MiB, 4 * MiB];

const OVERSIZED = "message length 4194305 exceed maximum message size of 4194304";

interface Layout {
  name: string;
  /** The role mux-peer plays. */
  goRole: "plugin" | "runtime";
  /** Where our server serves (and Go's client calls). */
  serveOn: number;
  /** Where our client calls (and Go's server serves). */
  callOn: number;
  /** How mux-peer gets the trunk: an inherited fd (a launched plugin) or by dialling our socket. */
  via: "fd" | "socket";
}

const layouts: Layout[] = [
  {
    name: "we are the plugin, Go is the runtime",
    goRole: "runtime",
    serveOn: PLUGIN_SERVICE_CONN,
    callOn: RUNTIME_SERVICE_CONN,
    via: "fd",
  },
  {
    name: "we are the runtime, Go is the plugin",
    goRole: "plugin",
    serveOn: RUNTIME_SERVICE_CONN,
    callOn: PLUGIN_SERVICE_CONN,
    via: "socket",
  },
];

/** Both conversations of one trunk. */
interface Peers {
  session: Session;
  /** Our client, over our mux, calling Go's server. */
  ours: UnaryTestClient;
  /** Go's client, over Go's mux, calling our server. */
  go: UnaryTestClient;
  channel: Channel;
}

/** Starts mux-peer in `layout`, with our server and our client on the other connections. */
async function connectPeers(layout: Layout): Promise<Peers> {
  const session = await start(["-nri", layout.goRole], { open: [1, 2], via: layout.via });
  const server = createServer().add(TestDefinition, implementation);
  void server.serve(session.conns.get(layout.serveOn)!, { peer: `mux:${layout.serveOn}` });
  const channel = new Channel(session.conns.get(layout.callOn)!);
  return { session, ours: channelClient(channel), go: goClient(session), channel };
}

/** Go's client in mux-peer: each call a JSON line on its stdin, its outcome a "result" event. */
function goClient(session: Session): UnaryTestClient {
  let nextId = 1;
  return {
    async unary(method, spec = {}) {
      const id = nextId++;
      session.command(JSON.stringify({ id, method, ...spec }));
      const result = await session.next((e) => e.event === "result" && e.id === id);
      const { code = -1, message = "", ...response } = result;
      const outcome: Outcome = { code, message };
      for (const field of ["key", "value", "valueLength", "list"] as const) {
        if (response[field] !== undefined) Object.assign(outcome, { [field]: response[field] });
      }
      return outcome;
    },
  };
}

/** `client`, whose calls fail at once when Go reports that a ttrpc connection of its failed or closed. */
function failingFast(client: UnaryTestClient, session: Session): UnaryTestClient {
  const trouble = session
    .next((e) => ["read-error", "conn-closed", "client-closed"].includes(e.event))
    .then((e): never => {
      throw new Error(`Go's ttrpc lost its mux connection: ${JSON.stringify(e)}`);
    });
  trouble.catch(() => {});
  return { unary: (method, spec) => Promise.race([client.unary(method, spec), trouble]) };
}

async function until(condition: () => boolean): Promise<void> {
  while (!condition()) await sleep(5);
}

for (const layout of layouts) {
  describeWithGo(`ttrpc over the mux: ${layout.name}`, () => {
    const goCallsOn = layout.serveOn;
    let peers: Peers;
    let ours: UnaryTestClient;
    let go: UnaryTestClient;

    beforeAll(async () => {
      await buildPeer();
      peers = await connectPeers(layout);
      ours = failingFast(peers.ours, peers.session);
      go = failingFast(peers.go, peers.session);
    }, 120_000);
    afterAll(stopPeers);

    const directions = [
      { name: "our client → Go's server", client: () => ours, serverIs: "go" },
      { name: "Go's client → our server", client: () => go, serverIs: "ts" },
    ] as const;

    for (const direction of directions) {
      describe(direction.name, () => {
        it("carries requests of 100 B, 4086 B, 4087 B (the 4096-byte first mux frame), 10 000 B, 1 MiB and exactly 4 MiB, and an empty one", async () => {
          for (const size of DATA_SIZES) {
            const fill = largestFill(echoRequestLength, size);
            expect(echoRequestLength(fill)).toBe(size);
            expect(await direction.client().unary("Echo", { fill }), `request of ${size} B`).toMatchObject({
              code: 0,
              valueLength: fill,
            });
          }
          expect(await direction.client().unary("Echo")).toMatchObject({ code: 0, key: "", valueLength: 0 });
          // how our mux cut the frames of 4086 and 4087 bytes of data
          expect([frameSizes(10 + 4086), frameSizes(10 + 4087)]).toEqual([[4096], [4096, 1]]);
        });

        it("returns responses of 0 B, 100 B, 4086 B, 4087 B, 10 000 B, 1 MiB and exactly 4 MiB", async () => {
          for (const size of [0, ...DATA_SIZES]) {
            const fill = largestFill(generateResponseLength, size);
            expect(generateResponseLength(fill)).toBe(size);
            expect(
              await direction.client().unary("Generate", { key: String(fill) }),
              `response of ${size} B`,
            ).toMatchObject({
              code: 0,
              valueLength: fill,
            });
          }
        });

        it("refuses a request of 4 MiB + 1 with ResourceExhausted before sending it, and the connection goes on", async () => {
          const fill = largestFill(echoRequestLength) + 1;
          expect(echoRequestLength(fill)).toBe(MAX_DATA_LENGTH + 1);
          // Go's OversizedMessageErr wraps its status, so status.FromError gives Go's caller the whole text
          const message =
            direction.serverIs === "go" ? OVERSIZED : `rpc error: code = ResourceExhausted desc = ${OVERSIZED}`;
          expect(await direction.client().unary("Echo", { fill })).toEqual({
            code: Status.RESOURCE_EXHAUSTED,
            message,
          });
          expect(await direction.client().unary("Echo", { key: "after" })).toMatchObject({ code: 0, key: "after" });
        });

        if (direction.serverIs === "ts") {
          it("answers a response of 4 MiB + 1 with ResourceExhausted, and the connection goes on", async () => {
            const fill = largestFill(generateResponseLength) + 1;
            expect(generateResponseLength(fill)).toBe(MAX_DATA_LENGTH + 1);
            expect(await direction.client().unary("Generate", { key: String(fill) })).toMatchObject({
              code: Status.RESOURCE_EXHAUSTED,
              message: OVERSIZED,
            });
            expect(await direction.client().unary("Echo", { key: "after" })).toMatchObject({ code: 0, key: "after" });
          });
        }

        it("carries every status code 0–16 with its message", async () => {
          const outcomes: Array<[number, string]> = [];
          for (let code = 0; code <= 16; code++) {
            const { code: got, message } = await direction
              .client()
              .unary("Fail", { key: String(code), value: `status ${code}` });
            outcomes.push([got, message]);
          }
          expect(outcomes).toEqual(
            Array.from({ length: 17 }, (_, code) => (code === 0 ? [0, ""] : [code, `status ${code}`])),
          );
        });

        it("sends the deadline as timeout_nano, which the server sees", async () => {
          const withDeadline = await direction.client().unary("Deadline", { timeoutMs: 5000 });
          expect(withDeadline).toMatchObject({ code: 0, key: "set" });
          const left = Number(withDeadline.value);
          expect(left).toBeGreaterThan(0);
          expect(left).toBeLessThanOrEqual(5_000_000_000);
          expect(await direction.client().unary("Deadline")).toMatchObject({ code: 0, key: "none" });
        });

        it("fails a call at its deadline with DeadlineExceeded, the server's handler sees the deadline pass, and the connection goes on", async () => {
          observed.sleepAborts.length = 0;
          const outcome = await direction.client().unary("Sleep", { key: "10000", timeoutMs: 100 });
          expect(outcome).toEqual({ code: Status.DEADLINE_EXCEEDED, message: "context deadline exceeded" });
          if (direction.serverIs === "ts") {
            await until(() => observed.sleepAborts.length > 0);
            expect(observed.sleepAborts).toEqual([
              new ServerError(Status.DEADLINE_EXCEEDED, "context deadline exceeded"),
            ]);
          } else {
            expect(await peers.session.next((e) => e.event === "slept")).toEqual({
              event: "slept",
              error: "context deadline exceeded",
            });
          }
          expect(await direction.client().unary("Echo", { key: "after" })).toMatchObject({ code: 0, key: "after" });
        });

        it("carries metadata to the server", async () => {
          const outcome = await direction.client().unary("Metadata", {
            metadata: [
              ["trace-id", "abc"],
              ["multi", "1"],
              ["multi", "2"],
            ],
          });
          // nice-grpc's Metadata holds one string per key: our client joins the values
          // of a key before sending, our server on receipt
          expect(outcome).toEqual({ code: 0, message: "", list: ["multi=1, 2", "trace-id=abc"] });
        });
      });
    }

    it("runs 64 calls each way at the same time", async () => {
      // each server holds its Echo "barrier" calls until 64 are in flight
      const calls = (client: UnaryTestClient) =>
        Array.from({ length: BARRIER }, (_, i) => client.unary("Echo", { key: "barrier", value: `call ${i}` }));
      const outcomes = await Promise.all([...calls(ours), ...calls(go)]);
      const expected = Array.from({ length: BARRIER }, (_, i) => [0, "barrier", `call ${i}`]);
      expect(outcomes.map((o: Outcome) => [o.code, o.key, o.value])).toEqual([...expected, ...expected]);
      expect(peers.session.mux.closeReason).toBeUndefined();
    });

    it("meets Go's server dropping its connection over a response of 4 MiB + 1: nothing on the mux tells us, so our calls there go unanswered", async () => {
      const own = await connectPeers(layout);
      const fill = largestFill(generateResponseLength) + 1;
      const dropped = own.ours.unary("Generate", { key: String(fill) });
      expect(await own.session.next((e) => e.event === "conn-closed")).toEqual({
        event: "conn-closed",
        conn: layout.callOn,
      });
      // Go's mux now drops what we send on that connection
      expect(await own.ours.unary("Echo", { key: "lost", timeoutMs: 100 })).toEqual({
        code: Status.DEADLINE_EXCEEDED,
        message: "context deadline exceeded",
      });
      // ... while the other conversation goes on
      expect(await own.go.unary("Echo", { key: "after" })).toMatchObject({ code: 0, key: "after" });
      own.channel.close();
      expect(await dropped).toEqual({ code: Status.UNAVAILABLE, message: "ttrpc: closed" });
    });

    /** Starts a Sleep call each way and resolves once both handlers run. */
    async function sleepingCalls(own: Peers): Promise<{ ours: Promise<Outcome>; go: Promise<Outcome> }> {
      observed.sleepsStarted = 0;
      observed.sleepAborts.length = 0;
      const calls = { ours: own.ours.unary("Sleep", { key: "10000" }), go: own.go.unary("Sleep", { key: "10000" }) };
      await own.session.next((e) => e.event === "sleeping");
      await until(() => observed.sleepsStarted === 1);
      return calls;
    }

    /** What both sides see of a trunk that closed under two pending calls. */
    async function expectPendingCallsFailed(
      own: Peers,
      calls: { ours: Promise<Outcome>; go: Promise<Outcome> },
    ): Promise<void> {
      expect(await calls.ours).toEqual({ code: Status.UNAVAILABLE, message: "ttrpc: closed" });
      expect(await calls.go).toMatchObject({ code: Status.UNKNOWN, message: "ttrpc: closed" });
      expect(await own.session.next((e) => e.event === "client-closed")).toEqual({
        event: "client-closed",
        conn: goCallsOn,
      });
      // both servers' handlers were cancelled
      expect(await own.session.next((e) => e.event === "slept")).toEqual({ event: "slept", error: "context canceled" });
      await until(() => observed.sleepAborts.length > 0);
      expect(observed.sleepAborts).toEqual([new ServerError(Status.CANCELLED, "ttrpc: connection closed")]);
    }

    it("closing the trunk on our side fails our pending calls with Unavailable, and Go's client closes", async () => {
      const own = await connectPeers(layout);
      const calls = await sleepingCalls(own);
      own.session.mux.close();
      await expectPendingCallsFailed(own, calls);
    });

    it("closing the trunk on Go's side does the same", async () => {
      const own = await connectPeers(layout);
      const calls = await sleepingCalls(own);
      own.session.command("close");
      await expectPendingCallsFailed(own, calls);
      expect(own.session.mux.closeReason?.code).toBe("ERR_MUX_TRUNK_ENDED");
      expect(await own.session.exit).toBe(0);
    });
  });
}
