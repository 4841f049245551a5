import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { MuxError } from "./errors.js";
import { MAX_PAYLOAD, frameSizes } from "./frame.js";
import { Mux } from "./mux.js";
import { frame, MemoryTrunk, parseFrames, readAll, settle } from "./testing/support.js";

/** Cuts `bytes` into pieces at the given fractions of its length. */
function cut(bytes: Buffer, fractions: number[]): Buffer[] {
  const points = [...new Set(fractions.map((f) => Math.floor(f * bytes.length)))].sort((a, b) => a - b);
  const pieces: Buffer[] = [];
  let start = 0;
  for (const point of [...points, bytes.length]) {
    pieces.push(bytes.subarray(start, point));
    start = point;
  }
  return pieces;
}

const writes = fc.array(
  fc.record({
    id: fc.integer({ min: 1, max: 3 }),
    bytes: fc.oneof(
      { weight: 4, arbitrary: fc.uint8Array({ maxLength: 200 }) },
      { weight: 1, arbitrary: fc.uint8Array({ minLength: 4000, maxLength: 20_000 }) },
    ),
  }),
  { maxLength: 25 },
);
const cuts = fc.array(fc.double({ min: 0, max: 1, noNaN: true }), { maxLength: 40 });

describe("reading", () => {
  it("reassembles any writes on several connections, however the trunk stream is cut", async () => {
    await fc.assert(
      fc.asyncProperty(writes, cuts, async (sent, fractions) => {
        const sendTrunk = new MemoryTrunk();
        const sender = new Mux(sendTrunk);
        const outs = [1, 2, 3].map((id) => sender.open(id));
        for (const { id, bytes } of sent) outs[id - 1].write(bytes);
        await settle();
        const wire = sendTrunk.bytes();
        // every write became its own frames, cut by the rule
        expect(parseFrames(wire).map((f) => [f.id, f.payload.length])).toEqual(
          sent.flatMap(({ id, bytes }) => frameSizes(bytes.length).map((size) => [id, size])),
        );

        const receiveTrunk = new MemoryTrunk();
        const receiver = new Mux(receiveTrunk);
        const streams = [1, 2, 3].map((id) => readAll(receiver.open(id)));
        for (const piece of cut(wire, fractions)) receiveTrunk.push(piece);
        receiveTrunk.push(null);
        const received = await Promise.all(streams);
        for (const id of [1, 2, 3]) {
          const expected = Buffer.concat(sent.filter((w) => w.id === id).map((w) => w.bytes));
          expect(received[id - 1].equals(expected)).toBe(true);
        }
      }),
      { numRuns: 200 },
    );
  });

  it("takes a zero-length frame in its stride", async () => {
    const trunk = new MemoryTrunk();
    const conn = new Mux(trunk).open(1);
    trunk.push(Buffer.concat([frame(1, []), frame(1, Buffer.from("ab")), frame(1, [])]));
    trunk.push(null);
    expect(await readAll(conn)).toEqual(Buffer.from("ab"));
  });

  it("accepts a frame of the maximum payload", async () => {
    const trunk = new MemoryTrunk();
    const mux = new Mux(trunk);
    const conn = mux.open(1);
    trunk.push(frame(1, Buffer.alloc(MAX_PAYLOAD, 5)));
    trunk.push(null);
    expect((await readAll(conn)).equals(Buffer.alloc(MAX_PAYLOAD, 5))).toBe(true);
    expect(mux.closeReason?.code).toBe("ERR_MUX_TRUNK_ENDED");
  });

  it("drops frames for id 0 and ids not open, telling the hook", async () => {
    const trunk = new MemoryTrunk();
    const dropped: Array<[number, number]> = [];
    const mux = new Mux(trunk, { onDroppedFrame: (id, length) => dropped.push([id, length]) });
    const conn = mux.open(1);
    trunk.push(Buffer.concat([frame(0, [0]), frame(7, [7, 7]), frame(1, [1]), frame(0xffff_ffff, [])]));
    trunk.push(null);
    expect(await readAll(conn)).toEqual(Buffer.from([1]));
    expect(dropped).toEqual([
      [0, 1],
      [7, 2],
      [0xffff_ffff, 0],
    ]);
  });

  it("drops the rest of a frame whose connection closed while it arrived, also for a new connection with its id", async () => {
    const trunk = new MemoryTrunk();
    const mux = new Mux(trunk);
    const old = mux.open(1);
    const oldBytes: Buffer[] = [];
    old.on("data", (chunk: Buffer) => oldBytes.push(chunk));
    const message = frame(1, Buffer.from("abcdef"));
    trunk.push(message.subarray(0, 11));
    await settle();
    old.destroy();
    const fresh = mux.open(1);
    trunk.push(Buffer.concat([message.subarray(11), frame(1, Buffer.from("new"))]));
    trunk.push(null);
    expect(await readAll(fresh)).toEqual(Buffer.from("new"));
    expect(Buffer.concat(oldBytes)).toEqual(Buffer.from("abc"));
  });

  it("stops delivering within a chunk once a reader closes the mux", async () => {
    const trunk = new MemoryTrunk();
    const dropped: number[] = [];
    const mux = new Mux(trunk, { onDroppedFrame: (id) => dropped.push(id) });
    const conn = mux.open(1);
    const seen: Buffer[] = [];
    conn.on("data", (chunk: Buffer) => {
      seen.push(chunk);
      mux.close();
    });
    await settle();
    trunk.push(Buffer.concat([frame(1, Buffer.from("first")), frame(9, [9]), frame(1, Buffer.from("second"))]));
    await settle();
    expect(seen).toEqual([Buffer.from("first")]);
    expect(dropped).toEqual([]);
  });

  it("closes on a frame longer than the maximum payload, ending the connections", async () => {
    const trunk = new MemoryTrunk();
    const mux = new Mux(trunk);
    const conn = mux.open(1);
    const reading = readAll(conn);
    trunk.push(Buffer.concat([frame(1, Buffer.from("ok")), frame(2, [], 0xffff_ffff)]));
    expect(await reading).toEqual(Buffer.from("ok"));
    expect(mux.closeReason).toEqual(
      new MuxError("ERR_MUX_FRAME_TOO_LARGE", "conn 2: frame payload 4294967295 bytes, maximum is 4194314"),
    );
    expect(trunk.destroyed).toBe(true);
  });

  it("survives random trunk bytes: that mux stays up or closes with a clear error, and no other mux notices", async () => {
    await fc.assert(
      fc.asyncProperty(fc.array(fc.uint8Array({ maxLength: 100 }), { maxLength: 10 }), async (chunks) => {
        const bystanderTrunk = new MemoryTrunk();
        const bystander = new Mux(bystanderTrunk);
        const bystanderConn = bystander.open(1);

        const trunk = new MemoryTrunk();
        const mux = new Mux(trunk);
        const conns = [1, 2].map((id) => mux.open(id));
        for (const conn of conns) conn.resume();
        for (const chunk of chunks) trunk.push(Buffer.from(chunk));
        await settle();
        expect([undefined, "ERR_MUX_FRAME_TOO_LARGE"]).toContain(mux.closeReason?.code);

        bystanderTrunk.push(frame(1, Buffer.from("still here")));
        bystanderTrunk.push(null);
        expect(await readAll(bystanderConn)).toEqual(Buffer.from("still here"));
      }),
    );
  });
});

describe("read back-pressure", () => {
  it("pauses the trunk while a reader is behind and resumes it when the reader catches up", async () => {
    const trunk = new MemoryTrunk();
    const mux = new Mux(trunk);
    const slow = mux.open(1);
    const other = mux.open(2);
    const otherBytes: Buffer[] = [];
    other.on("data", (chunk: Buffer) => otherBytes.push(chunk));
    await settle();
    const chunk = frame(1, Buffer.alloc(4096, 1));
    for (let i = 0; i < 100; i++) trunk.push(chunk);
    trunk.push(frame(2, Buffer.from("behind the slow one")));
    await settle();
    // the slow reader holds about its high-water mark (Node's default: 16 KiB before Node 22, 64 KiB since);
    // the rest waits in the trunk
    expect(trunk.isPaused()).toBe(true);
    expect(slow.readableLength).toBeLessThanOrEqual(slow.readableHighWaterMark + chunk.length);
    expect(trunk.readableLength).toBeGreaterThanOrEqual(100 * chunk.length - slow.readableHighWaterMark - chunk.length);
    expect(otherBytes).toEqual([]);

    trunk.push(null);
    expect((await readAll(slow)).length).toBe(100 * 4096);
    expect(Buffer.concat(otherBytes)).toEqual(Buffer.from("behind the slow one"));
  });

  it("resumes the trunk when the connection that was behind is closed", async () => {
    const trunk = new MemoryTrunk();
    const mux = new Mux(trunk);
    const slow = mux.open(1);
    const other = mux.open(2);
    const reading = readAll(other);
    await settle();
    // twice what the slow reader holds before it is behind
    const frames = Math.ceil((2 * slow.readableHighWaterMark) / 4096);
    for (let i = 0; i < frames; i++) trunk.push(frame(1, Buffer.alloc(4096)));
    trunk.push(frame(2, Buffer.from("go on")));
    await settle();
    expect(trunk.isPaused()).toBe(true);
    slow.destroy();
    trunk.push(null);
    expect(await reading).toEqual(Buffer.from("go on"));
  });
});

describe("blocked read", () => {
  it("leaves early bytes in the trunk until unblock(), so connections opened late still get them", async () => {
    const trunk = new MemoryTrunk();
    const mux = new Mux(trunk, { blockedRead: true });
    trunk.push(frame(2, Buffer.from("RegisterPlugin")));
    await settle();
    expect(trunk.readableLength).toBe(8 + 14);
    const conn = mux.open(2);
    const reading = readAll(conn);
    mux.unblock();
    mux.unblock();
    trunk.push(null);
    expect(await reading).toEqual(Buffer.from("RegisterPlugin"));
  });

  it("without it, bytes for a connection not yet open are dropped", async () => {
    const trunk = new MemoryTrunk();
    const dropped: number[] = [];
    const mux = new Mux(trunk, { onDroppedFrame: (id) => dropped.push(id) });
    await settle();
    trunk.push(frame(2, Buffer.from("RegisterPlugin")));
    const conn = mux.open(2);
    trunk.push(null);
    expect(await readAll(conn)).toEqual(Buffer.alloc(0));
    expect(dropped).toEqual([2]);
  });
});
