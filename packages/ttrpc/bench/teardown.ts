// How long closing a connection with many open calls holds up the event
// loop, on each side: the server of a peer that opened N calls (half unary,
// half bidirectional streams) and went away, and a client whose server went
// away with N of its calls pending. The peer is a raw socket, so that only
// the side measured runs in this process.
import { once } from "node:events";
import { createServer as createNetServer, connect as netConnect, type Socket } from "node:net";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { Channel, createServer, encodeRequestFrame, Flag, KeyValue } from "../src/index.js";

const HangDefinition = {
  name: "Hang",
  fullName: "nrits.bench.Hang",
  methods: {
    hang: {
      name: "Hang",
      requestType: KeyValue,
      responseType: KeyValue,
      requestStream: false,
      responseStream: false,
      options: {},
    },
    chat: {
      name: "Chat",
      requestType: KeyValue,
      responseType: KeyValue,
      requestStream: true,
      responseStream: true,
      options: {},
    },
  },
} as const;

export interface TeardownResult {
  side: "server" | "client";
  calls: number;
  /** From the close until every call is over, in ms. */
  teardownMs: number;
  /** The longest time the event loop did not get a turn meanwhile, in ms. */
  longestStallMs: number;
}

async function socketPair(): Promise<[Socket, Socket]> {
  const dir = mkdtempSync(join(tmpdir(), "nri-ts-teardown-"));
  const path = join(dir, "s");
  const listener = createNetServer();
  listener.listen(path);
  await once(listener, "listening");
  const accepted = once(listener, "connection") as Promise<[Socket]>;
  const near = netConnect(path);
  await once(near, "connect");
  const [far] = await accepted;
  listener.close();
  // (the connection outlives its socket file)
  rmSync(dir, { recursive: true, force: true });
  return [near, far];
}

/** Runs `close`, then measures until `over` resolves. */
async function measure(
  close: () => void,
  over: Promise<unknown>,
): Promise<{ teardownMs: number; longestStallMs: number }> {
  let longest = 0;
  let last = performance.now();
  const ticker = setInterval(() => {
    const now = performance.now();
    longest = Math.max(longest, now - last);
    last = now;
  }, 1);
  await new Promise((resolve) => setTimeout(resolve, 20));
  longest = 0;
  last = performance.now();
  const start = performance.now();
  close();
  await over;
  const teardownMs = performance.now() - start;
  await new Promise((resolve) => setTimeout(resolve, 20));
  clearInterval(ticker);
  return { teardownMs, longestStallMs: Math.max(longest, performance.now() - last) };
}

async function serverSide(calls: number): Promise<TeardownResult> {
  const [peer, end] = await socketPair();
  let started = 0;
  const server = createServer().add(HangDefinition, {
    hang: () => {
      started++;
      return new Promise(() => {});
    },
    async *chat(requests) {
      started++;
      for await (const request of requests) yield request;
    },
  });
  const served = server.serve(end);
  const service = HangDefinition.fullName;
  for (let i = 0; i < calls; i++) {
    const chat = i % 2 === 1;
    const flags = chat ? Flag.RemoteOpen : 0;
    peer.write(
      encodeRequestFrame(2 * i + 1, flags, {
        service,
        method: chat ? "Chat" : "Hang",
        payload: new Uint8Array(0),
        timeoutNano: 0n,
        metadata: [],
      }),
    );
  }
  while (started < calls) await new Promise((resolve) => setTimeout(resolve, 10));
  return { side: "server", calls, ...(await measure(() => peer.destroy(), served)) };
}

async function clientSide(calls: number): Promise<TeardownResult> {
  const [near, far] = await socketPair();
  far.resume(); // reads and drops every request
  const channel = new Channel(near);
  const endings: Promise<unknown>[] = [];
  for (let i = 0; i < calls; i++) {
    if (i % 2 === 0) {
      endings.push(channel.unary(HangDefinition.fullName, "Hang", new Uint8Array(0)).catch(() => {}));
    } else {
      const stream = channel.stream(
        HangDefinition.fullName,
        "Chat",
        { requestStream: true, responseStream: true },
        undefined,
      );
      endings.push(
        (async () => {
          try {
            for await (const _ of stream.responses);
          } catch {}
        })(),
      );
    }
  }
  await new Promise((resolve) => setTimeout(resolve, 100));
  return { side: "client", calls, ...(await measure(() => far.destroy(), Promise.all(endings))) };
}

/** Both sides, for each number of calls. */
export async function benchTeardown(counts: readonly number[] = [10_000, 50_000, 100_000]): Promise<TeardownResult[]> {
  const results: TeardownResult[] = [];
  for (const calls of counts) {
    results.push(await serverSide(calls));
    results.push(await clientSide(calls));
  }
  return results;
}
