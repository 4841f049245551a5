/*
 * @nri-ts/ttrpc against Go's github.com/containerd/ttrpc v1.2.7 (the version
 * NRI v0.12.2 pins), over plain unix sockets. The Go side is
 * cmd/ttrpc-peer: it serves the test service of internal/testservice, or calls it
 * as a client driven by JSON lines. The TypeScript side implements the same
 * service (test-service.ts), so each check runs in both directions: Go client → our
 * server, our client → Go server. Wire transcripts then show that our frames
 * are Go's frames, byte for byte.
 */
import { type ChildProcessWithoutNullStreams, spawn } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import {
  createServer as createNetServer,
  connect as netConnect,
  type Server as NetServer,
  type Socket,
} from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createInterface } from "node:readline";
import { setTimeout as sleep } from "node:timers/promises";
import {
  connect,
  createServer,
  encodeFrame,
  encodeRequestFrame,
  Flag,
  type Frame,
  FrameDecoder,
  KeyValue,
  MAX_DATA_LENGTH,
  MessageType,
  Response,
  writeFrameHeader,
} from "@nri-ts/ttrpc";
import { ServerError, Status } from "nice-grpc-common";
import { afterAll, beforeAll, expect, it } from "vitest";
import { describeWithGo, goCommand } from "./go.js";
import {
  BARRIER,
  channelClient,
  echoRequestLength,
  generateResponseLength,
  implementation,
  largestFill,
  type Outcome,
  observed,
  SERVICE,
  type TestClient,
  TestDefinition,
} from "./test-service.js";

const socketDirs: string[] = [];
afterAll(() => {
  for (const dir of socketDirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});

/** A fresh socket path in a new temporary directory, removed after this file's tests. */
function socketPath(name: string): string {
  const dir = mkdtempSync(join(tmpdir(), "nri-ts-conformance-"));
  socketDirs.push(dir);
  return join(dir, name);
}

/** A running cmd/ttrpc-peer: JSON lines in, JSON lines out. */
class GoPeer {
  private readonly child: ChildProcessWithoutNullStreams;
  private readonly waiting = new Map<number, (result: Record<string, unknown>) => void>();
  private readonly lines: Array<Record<string, unknown>> = [];
  private nextId = 1;
  private readonly exited: Promise<number | null>;
  private stderr = "";
  private hasExited = false;

  constructor(binary: string, args: string[]) {
    this.child = spawn(binary, args, { stdio: ["pipe", "pipe", "pipe"] });
    this.child.stderr.on("data", (chunk) => (this.stderr += chunk));
    this.exited = new Promise((resolve) =>
      this.child.on("exit", (code) => {
        this.hasExited = true;
        if (code !== 0 && code !== null) console.error(`ttrpc-peer exited with ${code}: ${this.stderr}`);
        resolve(code);
      }),
    );
    createInterface({ input: this.child.stdout }).on("line", (line) => {
      const result = JSON.parse(line) as Record<string, unknown>;
      const resolve = this.waiting.get(result.id as number);
      if (resolve) {
        this.waiting.delete(result.id as number);
        resolve(result);
      } else this.lines.push(result);
    });
  }

  /** Waits for the {"ready":true} line of `serve`. */
  async ready(): Promise<void> {
    while (!this.lines.some((line) => line.ready === true)) {
      if (this.hasExited) throw new Error(`ttrpc-peer exited before it was ready: ${this.stderr}`);
      await sleep(5);
    }
  }

  /** Runs one command of the client driver. */
  run(command: Record<string, unknown>): Promise<Record<string, unknown>> {
    const id = this.nextId++;
    return new Promise((resolve) => {
      this.waiting.set(id, resolve);
      this.child.stdin.write(`${JSON.stringify({ ...command, id })}\n`);
    });
  }

  async stop(): Promise<number | null> {
    this.child.stdin.end();
    return this.exited;
  }
}

/** Go's client, through `ttrpc-peer client`. */
async function goClient(socket: string): Promise<TestClient> {
  const peer = new GoPeer(await goCommand("ttrpc-peer"), ["client", "-socket", socket]);
  const outcome = (result: Record<string, unknown>): Outcome => ({
    code: result.code as number,
    message: result.message as string,
    key: result.key as string,
    value: result.value as string,
    valueLength: result.valueLength as number,
    ...(result.list ? { list: result.list as string[] } : {}),
    ...(result.messages ? { messages: result.messages as Outcome["messages"] } : {}),
  });
  return {
    unary: async (method, spec = {}) => outcome(await peer.run({ op: "unary", method, ...spec })),
    collect: async (keys) => outcome(await peer.run({ op: "collect", messages: keys.map((key) => ({ key })) })),
    spread: async (key, value) => outcome(await peer.run({ op: "spread", key, value })),
    chat: async (keys) => outcome(await peer.run({ op: "chat", messages: keys.map((key) => ({ key })) })),
    close: async () => void (await peer.stop()),
  };
}

/** Our client. */
async function tsClient(socket: string): Promise<TestClient> {
  return channelClient(await connect(socket));
}

/** Our server with the test service on a fresh socket. */
async function tsServer(): Promise<{ socket: string; stop(): Promise<void> }> {
  const socket = socketPath("ts-server.sock");
  const server = createServer().add(TestDefinition, implementation);
  await server.listen(socket);
  return { socket, stop: async () => server.forceShutdown() };
}

/** Go's server with the test service on a fresh socket. */
async function goServer(): Promise<{ socket: string; stop(): Promise<void> }> {
  const socket = socketPath("go-server.sock");
  const peer = new GoPeer(await goCommand("ttrpc-peer"), ["serve", "-socket", socket]);
  await peer.ready();
  return { socket, stop: async () => void (await peer.stop()) };
}

const directions = [
  { name: "Go client → our server", server: tsServer, client: goClient, serverIs: "ts" },
  { name: "our client → Go server", server: goServer, client: tsClient, serverIs: "go" },
] as const;

for (const direction of directions) {
  describeWithGo(`ttrpc conformance: ${direction.name}`, () => {
    let server: { socket: string; stop(): Promise<void> };
    let client: TestClient;

    beforeAll(async () => {
      server = await direction.server();
      client = await direction.client(server.socket);
    });

    afterAll(async () => {
      await client?.close();
      await server?.stop();
    });

    it("echoes payloads from 0 bytes to exactly the 4 MiB limit", async () => {
      const exact = largestFill(echoRequestLength);
      expect(echoRequestLength(exact)).toBe(MAX_DATA_LENGTH);
      for (const fill of [0, 1, 1000, 65_536, 1 << 20, exact]) {
        expect(await client.unary("Echo", { fill })).toMatchObject({ code: 0, valueLength: fill });
      }
      expect(await client.unary("Echo")).toMatchObject({ code: 0, key: "", valueLength: 0 });
    });

    it("refuses a request one byte over the limit on the client, and the connection goes on", async () => {
      const over = largestFill(echoRequestLength) + 1;
      expect(echoRequestLength(over)).toBe(MAX_DATA_LENGTH + 1);
      const outcome = await client.unary("Echo", { fill: over });
      expect(outcome.code).toBe(Status.RESOURCE_EXHAUSTED);
      expect(outcome.message).toContain("message length 4194305 exceed maximum message size of 4194304");
      expect(await client.unary("Echo", { key: "after" })).toMatchObject({ code: 0, key: "after" });
    });

    it("returns responses of exactly the 4 MiB limit", async () => {
      const exact = largestFill(generateResponseLength);
      expect(generateResponseLength(exact)).toBe(MAX_DATA_LENGTH);
      expect(await client.unary("Generate", { key: String(exact) })).toMatchObject({ code: 0, valueLength: exact });
    });

    it("fails a response one byte over the limit", async () => {
      const over = largestFill(generateResponseLength) + 1;
      expect(generateResponseLength(over)).toBe(MAX_DATA_LENGTH + 1);
      // a connection of its own: Go's server drops the connection when its answer is too large
      const own = await direction.client(server.socket);
      const outcome = await own.unary("Generate", { key: String(over) });
      if (direction.serverIs === "ts") {
        // ours answers that call with ResourceExhausted and keeps the connection
        expect(outcome.code).toBe(Status.RESOURCE_EXHAUSTED);
        expect(outcome.message).toBe("message length 4194305 exceed maximum message size of 4194304");
        expect(await own.unary("Echo", { key: "after" })).toMatchObject({ code: 0, key: "after" });
      } else {
        expect(outcome).toMatchObject({ code: Status.UNAVAILABLE, message: "ttrpc: closed" });
      }
      await own.close();
    });

    it("carries every status code with its message", async () => {
      for (let code = 0; code <= 16; code++) {
        const outcome = await client.unary("Fail", { key: String(code), value: `status ${code}` });
        expect([outcome.code, outcome.message]).toEqual(code === 0 ? [0, ""] : [code, `status ${code}`]);
      }
    });

    it("sends the deadline as timeout_nano, and the server sees it", async () => {
      const withDeadline = await client.unary("Deadline", { timeoutMs: 5000 });
      expect(withDeadline).toMatchObject({ code: 0, key: "set" });
      const left = Number(withDeadline.value);
      expect(left).toBeGreaterThan(0);
      expect(left).toBeLessThanOrEqual(5_000_000_000);
      expect(await client.unary("Deadline")).toMatchObject({ code: 0, key: "none" });
    });

    it("fails a call at its deadline with DeadlineExceeded", async () => {
      observed.sleepAborts.length = 0;
      const outcome = await client.unary("Sleep", { key: "10000", timeoutMs: 100 });
      expect(outcome.code).toBe(Status.DEADLINE_EXCEEDED);
      expect(outcome.message).toBe("context deadline exceeded");
      if (direction.serverIs === "ts") {
        // our server's handler saw its signal fire at the deadline the Go client sent
        while (observed.sleepAborts.length === 0) await sleep(5);
        expect(observed.sleepAborts).toEqual([new ServerError(Status.DEADLINE_EXCEEDED, "context deadline exceeded")]);
      }
      expect(await client.unary("Echo", { key: "after" })).toMatchObject({ code: 0, key: "after" });
    });

    it("carries metadata to the server", async () => {
      const outcome = await client.unary("Metadata", {
        metadata: [
          ["trace-id", "abc"],
          ["multi", "1"],
          ["multi", "2"],
        ],
      });
      // nice-grpc's Metadata holds one string per key, so our side joins the values of a key
      // (our client before sending, our server on receipt)
      expect(outcome.list).toEqual(["multi=1, 2", "trace-id=abc"]);
    });

    it("runs 64 calls at once on one connection", async () => {
      const keys = Array.from({ length: BARRIER }, () => "barrier");
      const outcomes = await Promise.all(keys.map((key, i) => client.unary("Echo", { key, value: `call ${i}` })));
      expect(outcomes.every((o) => o.code === 0 && o.key === "barrier")).toBe(true);
    });

    it("streams requests to the server (client streaming)", async () => {
      expect(await client.collect(["a", "b", "c"])).toMatchObject({ code: 0, list: ["a", "b", "c"] });
      expect(await client.collect([])).toMatchObject({ code: 0 });
    });

    it("streams responses from the server (server streaming), also when it fails midway", async () => {
      expect(await client.spread("3", "v")).toMatchObject({
        code: 0,
        messages: [
          { key: "0", value: "v" },
          { key: "1", value: "v" },
          { key: "2", value: "v" },
        ],
      });
      expect(await client.spread("0", "v")).toMatchObject({ code: 0, messages: [] });
      expect(await client.spread("2", "fail")).toMatchObject({
        code: Status.ABORTED,
        message: "spread failed",
        messages: [
          { key: "0", value: "fail" },
          { key: "1", value: "fail" },
        ],
      });
    });

    it("streams both ways (bidirectional)", async () => {
      expect(await client.chat(["x", "y", "z"])).toMatchObject({
        code: 0,
        messages: [
          { key: "x", value: "" },
          { key: "y", value: "" },
          { key: "z", value: "" },
        ],
      });
    });
  });
}

/* ------------------------------------------------------------------------
 * Wire transcripts: the same bytes in, the same bytes out.
 * ---------------------------------------------------------------------- */

const hexOf = (frame: Frame) =>
  Buffer.from(encodeFrame(frame.streamId, frame.type, frame.flags, frame.data)).toString("hex");

/** Collects the frames arriving on a socket. */
class FrameLog {
  readonly frames: Frame[] = [];
  private readonly decoder = new FrameDecoder({
    frame: (streamId, type, flags, data) =>
      this.frames.push({ streamId, type, flags, length: data.length, data: Uint8Array.from(data) }),
    oversized: (streamId, type, flags, length) =>
      this.frames.push({ streamId, type, flags, length, data: new Uint8Array(0) }),
  });

  push(chunk: Uint8Array): void {
    this.decoder.push(chunk);
  }

  /** Waits until `count` frames arrived in all. */
  async atLeast(count: number): Promise<Frame[]> {
    while (this.frames.length < count) await sleep(2);
    return this.frames;
  }
}

/** One step of a server transcript: frames to send and how many frames answer them. */
interface Step {
  name: string;
  send: Uint8Array[];
  answers: number;
  /** Compare only type, id, flags and status code and the message up to ": " (Go's protobuf error texts differ from ours). */
  loosely?: boolean;
}

const request = (
  id: number,
  method: string,
  payload: Uint8Array,
  flags = 0,
  metadata: Array<{ key: string; value: string }> = [],
) => encodeRequestFrame(id, flags, { service: SERVICE, method, payload, timeoutNano: 0n, metadata });
const kv = (key: string, value = "") => KeyValue.encode({ key, value }).finish();
const data = (id: number, payload: Uint8Array, flags = 0) => encodeFrame(id, MessageType.Data, flags, payload);
const closeSend = (id: number) => data(id, new Uint8Array(0), Flag.RemoteClosed | Flag.NoData);

function oversizedFrame(id: number): Uint8Array {
  const frame = new Uint8Array(10 + MAX_DATA_LENGTH + 1);
  writeFrameHeader(frame, 0, MAX_DATA_LENGTH + 1, id, MessageType.Request, 0);
  return frame;
}

/** Sends the steps over a fresh connection, one after another; returns each step's answers. */
async function serverTranscript(socket: string, steps: Step[]): Promise<Frame[][]> {
  const connection = netConnect(socket);
  await new Promise((resolve) => connection.once("connect", resolve));
  const log = new FrameLog();
  connection.on("data", (chunk: Buffer) => log.push(chunk));
  const transcript: Frame[][] = [];
  let seen = 0;
  for (const step of steps) {
    for (const frame of step.send) connection.write(frame);
    const frames = (await log.atLeast(seen + step.answers)).slice(seen, seen + step.answers);
    seen += step.answers;
    // calls run concurrently: order the answers of one step by stream id
    transcript.push([...frames].sort((a, b) => a.streamId - b.streamId));
  }
  await sleep(20);
  expect(log.frames.length, "no answers beyond the expected ones").toBe(seen);
  connection.destroy();
  return transcript;
}

function summary(frame: Frame, loosely: boolean | undefined): string {
  if (!loosely) return hexOf(frame);
  const status = frame.type === MessageType.Response ? Response.decode(frame.data).status : undefined;
  return `${frame.streamId}/${frame.type}/${frame.flags} ${status?.code}: ${status?.message.split(": ")[0]}`;
}

describeWithGo("ttrpc conformance: our server answers what Go's server answers, byte for byte", () => {
  const failures = Array.from({ length: 16 }, (_, i) => i + 1);
  const steps: Step[] = [
    { name: "even stream id", send: [request(2, "Echo", kv("a"))], answers: 1 },
    { name: "a unary call", send: [request(1, "Echo", kv("a", "b"))], answers: 1 },
    { name: "a re-used stream id", send: [request(1, "Echo", kv("a"))], answers: 1 },
    {
      name: "an unknown service",
      send: [
        encodeRequestFrame(3, 0, {
          service: "no.Such",
          method: "Echo",
          payload: kv("a"),
          timeoutNano: 0n,
          metadata: [],
        }),
      ],
      answers: 1,
    },
    { name: "an unknown method", send: [request(5, "Nope", kv("a"))], answers: 1 },
    { name: "an empty request and reply", send: [request(7, "Echo", new Uint8Array(0))], answers: 1 },
    { name: "an oversized frame", send: [oversizedFrame(9)], answers: 1 },
    {
      name: "an unknown frame type",
      send: [encodeFrame(11, 9, 0, kv("?")), request(13, "Echo", kv("after"))],
      answers: 1,
    },
    ...failures.map((code) => ({
      name: `status ${code}`,
      send: [request(13 + 2 * code, "Fail", kv(String(code), `status ${code}`))],
      answers: 1,
    })),
    {
      name: "metadata",
      send: [request(51, "Metadata", new Uint8Array(0), 0, [{ key: "trace-id", value: "abc" }])],
      answers: 1,
    },
    {
      name: "a client stream",
      send: [
        request(53, "Collect", new Uint8Array(0), Flag.RemoteOpen),
        data(53, kv("a")),
        data(53, kv("b")),
        closeSend(53),
      ],
      answers: 1,
    },
    { name: "a server stream", send: [request(55, "Spread", kv("2", "v"), Flag.RemoteClosed)], answers: 3 },
    { name: "a failing server stream", send: [request(57, "Spread", kv("2", "fail"), Flag.RemoteClosed)], answers: 3 },
    {
      name: "a bidirectional stream opens",
      send: [request(59, "Chat", new Uint8Array(0), Flag.RemoteOpen), data(59, kv("x"))],
      answers: 1,
    },
    { name: "a bidirectional stream closes", send: [data(59, kv("y")), closeSend(59)], answers: 2 },
    {
      name: "an empty stream message",
      send: [request(61, "Collect", new Uint8Array(0), Flag.RemoteOpen), data(61, new Uint8Array(0)), closeSend(61)],
      answers: 1,
    },
    { name: "concurrent calls", send: [63, 65, 67, 69].map((id) => request(id, "Echo", kv(String(id)))), answers: 4 },
    {
      name: "an undecodable payload",
      send: [request(71, "Echo", Uint8Array.of(0x0a, 0x09, 0x41))],
      answers: 1,
      loosely: true,
    },
    {
      name: "an undecodable request",
      send: [encodeFrame(73, MessageType.Request, 0, Uint8Array.of(0x0a, 0x05, 0x41))],
      answers: 1,
      loosely: true,
    },
  ];
  let ours: Frame[][];
  let theirs: Frame[][];

  beforeAll(async () => {
    const go = await goServer();
    const ts = await tsServer();
    try {
      theirs = await serverTranscript(go.socket, steps);
      ours = await serverTranscript(ts.socket, steps);
    } finally {
      await go.stop();
      await ts.stop();
    }
  }, 60_000);

  it.each(steps.map((step, index) => [step.name, index] as const))("%s", (_name, index) => {
    const loosely = steps[index].loosely;
    expect(ours[index].map((frame) => summary(frame, loosely))).toEqual(
      theirs[index].map((frame) => summary(frame, loosely)),
    );
  });

  it("answers an empty reply with a frame of length 0, as Go does", () => {
    expect(ours[5].map(hexOf)).toEqual(["00000000000000070200"]);
  });
});

/** A unix socket that forwards to `target` and records the frames clients send. */
async function recordingProxy(target: string): Promise<{ socket: string; log: FrameLog; close(): void }> {
  const socket = socketPath("proxy.sock");
  const log = new FrameLog();
  const sockets: Socket[] = [];
  const proxy: NetServer = createNetServer((client) => {
    const upstream = netConnect(target);
    sockets.push(client, upstream);
    client.on("data", (chunk: Buffer) => {
      log.push(chunk);
      upstream.write(chunk);
    });
    upstream.pipe(client);
    client.on("close", () => upstream.destroy());
    upstream.on("close", () => client.destroy());
  });
  await new Promise<void>((resolve) => proxy.listen(socket, resolve));
  return {
    socket,
    log,
    close() {
      for (const s of sockets) s.destroy();
      proxy.close();
    },
  };
}

describeWithGo("ttrpc conformance: our client sends what Go's client sends, byte for byte", () => {
  /** The same calls, one after another, from either client. */
  async function script(client: TestClient): Promise<void> {
    await client.unary("Echo", { key: "a", value: "b", metadata: [["trace-id", "abc"]] });
    await client.unary("Echo", {});
    await client.unary("Fail", { key: "5", value: "gone" });
    await client.collect(["a", "b"]);
    await client.collect([]);
    await client.spread("2", "v");
    await client.chat(["x", "y"]);
  }

  let server: { socket: string; stop(): Promise<void> };
  beforeAll(async () => {
    server = await tsServer();
  });
  afterAll(async () => server?.stop());

  it("sends the same frames for unary calls and for every kind of stream", async () => {
    const transcripts: string[][] = [];
    for (const makeClient of [goClient, tsClient]) {
      const proxy = await recordingProxy(server.socket);
      const client = await makeClient(proxy.socket);
      await script(client);
      await client.close();
      transcripts.push(proxy.log.frames.map(hexOf));
      proxy.close();
    }
    const [go, ours] = transcripts;
    expect(go.length).toBeGreaterThan(10);
    expect(ours).toEqual(go);
  });
});
