import { ClientError, Metadata, Status } from "nice-grpc-common";
import { describe, expect, it } from "vitest";
import { deferred, keyValue, RawPeer, socketPair } from "./testing/support.js";
import { Channel } from "./channel.js";
import { encodeResponseFrame } from "./envelope.js";
import { encodeFrame, Flag, MAX_DATA_LENGTH, MessageType, OversizedMessageError, writeFrameHeader } from "./frame.js";
import { Request } from "./gen/ttrpc/request.js";

const EMPTY = new Uint8Array(0);

/** A Channel connected to a scripted raw server. */
async function connected(options: ConstructorParameters<typeof Channel>[1] = {}) {
  const [client, server] = await socketPair();
  return { channel: new Channel(client, options), server: new RawPeer(server) };
}

/** The error a promise rejects with. */
async function failure(promise: Promise<unknown>): Promise<ClientError> {
  try {
    await promise;
  } catch (error) {
    return error as ClientError;
  }
  throw new Error("expected a failure");
}

describe("Channel unary calls", () => {
  it("sends each call as one Request with odd, increasing stream ids, and matches responses by id", async () => {
    const { channel, server } = await connected();
    const calls = ["a", "b", "c"].map((key) => channel.unary("svc.S", "M", keyValue(key)));
    const requests = [await server.next(), await server.next(), await server.next()];
    expect(requests.map((f) => [f.streamId, f.type, f.flags])).toEqual([
      [1, 1, 0],
      [3, 1, 0],
      [5, 1, 0],
    ]);
    expect(Request.decode(requests[1].data)).toEqual({
      service: "svc.S",
      method: "M",
      payload: Buffer.from(keyValue("b")),
      timeoutNano: 0n,
      metadata: [],
    });
    // answered out of order
    for (const id of [5, 1, 3]) server.send(encodeResponseFrame(id, undefined, keyValue(`reply ${id}`)));
    expect(await Promise.all(calls)).toEqual(
      [keyValue("reply 1"), keyValue("reply 3"), keyValue("reply 5")].map(Buffer.from),
    );
  });

  it("sends metadata as key/value pairs, binary values in base64", async () => {
    const { channel, server } = await connected();
    const metadata = Metadata({ "Trace-Id": "abc", "blob-bin": Uint8Array.of(1, 2, 255) }).append("multi", "1");
    void channel.unary("svc.S", "M", EMPTY, { metadata });
    expect(Request.decode((await server.next()).data).metadata).toEqual([
      { key: "trace-id", value: "abc" },
      { key: "blob-bin", value: "AQL/" },
      { key: "multi", value: "1" },
    ]);
  });

  it("sends the time left as timeout_nano and fails locally at the deadline; a late answer is dropped", async () => {
    const { channel, server } = await connected();
    const sent = Date.now();
    const call = channel.unary("svc.S", "Slow", EMPTY, { deadline: new Date(sent + 100) });
    const timeout = Request.decode((await server.next()).data).timeoutNano;
    expect(timeout).toBeGreaterThan(0n);
    expect(timeout).toBeLessThanOrEqual(100_000_000n);
    const error = await failure(call);
    expect(error).toBeInstanceOf(ClientError);
    expect(error).toMatchObject({
      code: Status.DEADLINE_EXCEEDED,
      details: "context deadline exceeded",
      path: "/svc.S/Slow",
    });
    server.send(encodeResponseFrame(1, undefined, keyValue("late")));
    const next = channel.unary("svc.S", "M", EMPTY);
    expect((await server.next()).streamId).toBe(3);
    server.send(encodeResponseFrame(3, undefined, keyValue("on time")));
    expect(await next).toEqual(Buffer.from(keyValue("on time")));
  });

  it("fails a call whose deadline has passed without sending it", async () => {
    const { channel, server } = await connected();
    const error = await failure(channel.unary("svc.S", "M", EMPTY, { deadline: Date.now() - 1 }));
    expect(error.code).toBe(Status.DEADLINE_EXCEEDED);
    void channel.unary("svc.S", "M", EMPTY);
    expect((await server.next()).streamId).toBe(1);
  });

  it("refuses a deadline that is no valid time, and clamps a far one to the int64 range", async () => {
    const { channel, server } = await connected();
    expect(await failure(channel.unary("svc.S", "M", EMPTY, { deadline: new Date("no such day") }))).toMatchObject({
      code: Status.INVALID_ARGUMENT,
      details: "ttrpc: the deadline is not a valid time",
    });
    void channel.unary("svc.S", "M", EMPTY, { deadline: 1e300 });
    expect(Request.decode((await server.next()).data).timeoutNano).toBe(2n ** 63n - 1n);
  });

  it("rejects with the signal's reason when the signal aborts, before or during the call", async () => {
    const { channel, server } = await connected();
    const controller = new AbortController();
    const call = channel.unary("svc.S", "M", EMPTY, { signal: controller.signal });
    await server.next();
    controller.abort(new Error("changed my mind"));
    await expect(call).rejects.toThrow("changed my mind");
    await expect(channel.unary("svc.S", "M", EMPTY, { signal: controller.signal })).rejects.toThrow("changed my mind");
  });

  it("treats a status with code 0 as success, and any other code as a ClientError", async () => {
    const { channel, server } = await connected();
    const ok = channel.unary("svc.S", "M", EMPTY);
    const notFound = channel.unary("svc.S", "M", EMPTY);
    server.send(encodeResponseFrame(1, { code: 0, message: "fine" }, EMPTY));
    server.send(encodeResponseFrame(3, { code: Status.NOT_FOUND, message: "no such thing" }, EMPTY));
    expect(await ok).toEqual(Buffer.alloc(0));
    const error = await failure(notFound);
    expect(error).toMatchObject({
      code: Status.NOT_FOUND,
      details: "no such thing",
      message: "/svc.S/M NOT_FOUND: no such thing",
    });
  });

  it("refuses a request over 4 MiB for that call only, using up its stream id as Go does", async () => {
    const { channel, server } = await connected();
    const error = await failure(channel.unary("svc.S", "M", new Uint8Array(MAX_DATA_LENGTH)));
    expect(error).toMatchObject({ code: Status.RESOURCE_EXHAUSTED, path: "/svc.S/M" });
    expect(error.details).toMatch(/^message length 41943\d\d exceed maximum message size of 4194304$/);
    expect(error.cause).toBeInstanceOf(OversizedMessageError);
    void channel.unary("svc.S", "M", EMPTY);
    expect((await server.next()).streamId).toBe(3);
  });

  it("fails a call whose response is over 4 MiB with ResourceExhausted, and goes on", async () => {
    const { channel, server } = await connected();
    const big = channel.unary("svc.S", "M", EMPTY);
    const small = channel.unary("svc.S", "M", EMPTY);
    const header = new Uint8Array(10);
    writeFrameHeader(header, 0, MAX_DATA_LENGTH + 1, 1, MessageType.Response, 0);
    server.send(header);
    server.send(new Uint8Array(MAX_DATA_LENGTH + 1));
    server.send(encodeResponseFrame(3, undefined, keyValue("small")));
    expect(await failure(big)).toMatchObject({
      code: Status.RESOURCE_EXHAUSTED,
      details: "message length 4194305 exceed maximum message size of 4194304",
    });
    expect(await small).toEqual(Buffer.from(keyValue("small")));
  });

  it("fails a unary call that gets a Data frame", async () => {
    const { channel, server } = await connected();
    const call = channel.unary("svc.S", "M", EMPTY);
    server.send(encodeFrame(1, MessageType.Data, 0, keyValue("x")));
    expect(await failure(call)).toMatchObject({
      code: Status.UNKNOWN,
      details: 'unexpected "data" message received: protocol error',
    });
  });
});

describe("Channel closing", () => {
  it("fails every pending call at once with Unavailable when closed, and tells onClose", async () => {
    const closed = deferred<Error | undefined>();
    const { channel, server } = await connected({ onClose: closed.resolve });
    const calls = [channel.unary("svc.S", "A", EMPTY), channel.unary("svc.S", "B", EMPTY)];
    await server.next();
    await server.next();
    channel.close();
    for (const call of calls) {
      expect(await failure(call)).toMatchObject({ code: Status.UNAVAILABLE, details: "ttrpc: closed" });
    }
    expect(await closed.promise).toBeUndefined();
    expect(await channel.closed).toBeUndefined();
    expect(channel.isClosed).toBe(true);
    expect(await failure(channel.unary("svc.S", "C", EMPTY))).toMatchObject({ code: Status.UNAVAILABLE });
    await server.closed();
  });

  it("fails pending calls when the server goes away", async () => {
    const closed = deferred<Error | undefined>();
    const { channel, server } = await connected({ onClose: closed.resolve });
    const call = channel.unary("svc.S", "A", EMPTY);
    await server.next();
    server.send(Uint8Array.of(0, 0, 0)); // a partial header, then the end
    server.socket.end();
    expect(await failure(call)).toMatchObject({ code: Status.UNAVAILABLE, path: "/svc.S/A" });
    expect(await closed.promise).toMatchObject({ name: "TruncatedFrameError" });
  });
});

describe("Channel closing with many calls", () => {
  // CPU-bound: 1-2 s at load 7-10, up to 8 s beside two busy loops at load 11: too close to vitest's default 20 s for a loaded CI machine.
  it("fails 50,000 pending calls and streams when the server goes away, each with its method's Unavailable", {
    timeout: 120_000,
  }, async () => {
    const CALLS = 25_000;
    const { channel, server } = await connected();
    const unary = Array.from({ length: CALLS }, () => failure(channel.unary("svc.S", "Hang", EMPTY)));
    const streams = Array.from({ length: CALLS }, async () => {
      const stream = channel.stream("svc.S", "Chat", { requestStream: true, responseStream: true }, undefined);
      return failure(
        (async () => {
          for await (const _ of stream.responses);
        })(),
      );
    });
    for (let i = 0; i < 2 * CALLS; i++) await server.next();
    server.socket.destroy();
    const errors = await Promise.all([...unary, ...streams]);
    expect(errors.slice(0, CALLS).every((e) => e.code === Status.UNAVAILABLE && e.path === "/svc.S/Hang")).toBe(true);
    expect(errors.slice(CALLS).every((e) => e.code === Status.UNAVAILABLE && e.path === "/svc.S/Chat")).toBe(true);
    expect(errors[0].details).toBe("ttrpc: closed");
  });
});

describe("Channel streams", () => {
  it("opens a client stream with [remote open], sends Data, and closes with [remote closed, no data]", async () => {
    const { channel, server } = await connected();
    const stream = channel.stream("svc.S", "Collect", { requestStream: true, responseStream: false }, undefined);
    expect(await stream.send(keyValue("a"))).toBe(true);
    expect(await stream.send(EMPTY)).toBe(true);
    stream.closeSend();
    const frames = [await server.next(), await server.next(), await server.next(), await server.next()];
    expect(frames.map((f) => [f.streamId, f.type, f.flags, f.length])).toEqual([
      [
        1,
        MessageType.Request,
        Flag.RemoteOpen,
        Request.encode(Request.fromPartial({ service: "svc.S", method: "Collect" })).finish().length,
      ],
      [1, MessageType.Data, 0, keyValue("a").length],
      [1, MessageType.Data, 0, 0],
      [1, MessageType.Data, Flag.RemoteClosed | Flag.NoData, 0],
    ]);
    server.send(encodeResponseFrame(1, undefined, keyValue("total")));
    const responses = [];
    for await (const response of stream.responses) responses.push(response);
    expect(responses).toEqual([Buffer.from(keyValue("total"))]);
  });

  it("opens a server stream with [remote closed] and the request inside, reading Data until [remote closed]", async () => {
    const { channel, server } = await connected();
    const stream = channel.stream("svc.S", "Spread", { requestStream: false, responseStream: true }, keyValue("3"));
    const open = await server.next();
    expect([open.type, open.flags]).toEqual([MessageType.Request, Flag.RemoteClosed]);
    expect(Request.decode(open.data).payload).toEqual(Buffer.from(keyValue("3")));
    server.send(encodeFrame(1, MessageType.Data, 0, keyValue("0")));
    server.send(encodeFrame(1, MessageType.Data, Flag.NoData, EMPTY)); // an empty message
    server.send(encodeFrame(1, MessageType.Data, Flag.RemoteClosed, keyValue("last")));
    const responses = [];
    for await (const response of stream.responses) responses.push(Buffer.from(response).toString("hex"));
    expect(responses).toEqual([
      Buffer.from(keyValue("0")).toString("hex"),
      "",
      Buffer.from(keyValue("last")).toString("hex"),
    ]);
  });

  it("ends a stream with the status of a final Response", async () => {
    const { channel, server } = await connected();
    const stream = channel.stream("svc.S", "Spread", { requestStream: false, responseStream: true }, EMPTY);
    await server.next();
    server.send(encodeFrame(1, MessageType.Data, 0, keyValue("0")));
    server.send(encodeResponseFrame(1, { code: Status.ABORTED, message: "spread failed" }, EMPTY));
    const responses: Uint8Array[] = [];
    const error = await failure(
      (async () => {
        for await (const response of stream.responses) responses.push(response);
      })(),
    );
    expect(responses).toHaveLength(1);
    expect(error).toMatchObject({ code: Status.ABORTED, details: "spread failed", path: "/svc.S/Spread" });
  });
});
