// Our mux against the upstream Go mux (github.com/containerd/nri/pkg/net/multiplex)
// in cmd/mux-peer, over unix stream sockets.
import { once } from "node:events";
import { frameSizes, MAX_PAYLOAD, Mux, type MuxConnection, type MuxError, socketPair } from "@nri-ts/mux";
import { afterEach, beforeAll, expect, it } from "vitest";
import { describeWithGo } from "./go.js";
import { buildPeer, type Session, start, stopPeers } from "./mux-peer.js";

const MiB = 1024 * 1024;

/** Message k on connection `id`: the same bytes mux-peer makes. */
function pattern(id: number, k: number, size: number): Buffer {
  const bytes = Buffer.allocUnsafe(size);
  for (let i = 0; i < size; i++) bytes[i] = (7 * id + 13 * k + i) % 251;
  return bytes;
}

afterEach(stopPeers);

/** Reads exactly `length` bytes from a connection. */
async function readBytes(conn: MuxConnection, length: number): Promise<Buffer> {
  const chunks: Buffer[] = [];
  let got = 0;
  while (got < length) {
    const chunk = conn.read() as Buffer | null;
    if (chunk) {
      chunks.push(chunk);
      got += chunk.length;
    } else if (conn.readableEnded || conn.destroyed) {
      throw new Error(`connection ${conn.id} ended after ${got} of ${length} bytes`);
    } else {
      await Promise.race([once(conn, "readable"), once(conn, "close")]);
    }
  }
  expect(got).toBe(length);
  return Buffer.concat(chunks);
}

/**
 * Frame lengths mux-peer reported for connection `id`, once it has reported
 * `count` of them (its reports travel on stdout, which may lag the trunk).
 */
async function framesSeen(session: Session, id: number, count: number): Promise<number[]> {
  const lengths = (): number[] => session.events.filter((e) => e.event === "frame" && e.conn === id).map((e) => e.len!);
  await session.next(() => lengths().length >= count);
  return lengths();
}

describeWithGo("mux against the Go mux", () => {
  beforeAll(buildPeer, 120_000);

  it("carries byte streams on connections 1 and 2 to Go and back, messages of 0 bytes to 4 MiB+10, interleaved", async () => {
    const session = await start(["-echo", "1,2"], { open: [1, 2] });
    const sizes = [0, 1, 10, 100, 4086, 4096, 4097, 4106, 10_000, 65_536, MiB, 4 * MiB + 10];
    const sent = new Map<number, Buffer[]>([
      [1, []],
      [2, []],
    ]);
    sizes.forEach((size, k) => {
      for (const id of [1, 2]) {
        const message = pattern(id, k, id === 1 ? size : sizes[sizes.length - 1 - k]);
        sent.get(id)!.push(message);
        session.conns.get(id)!.write(message);
      }
    });
    // both read at once: a connection nobody reads holds up the trunk
    const received = await Promise.all(
      [1, 2].map((id) => readBytes(session.conns.get(id)!, Buffer.concat(sent.get(id)!).length)),
    );
    for (const id of [1, 2]) {
      expect(received[id - 1].equals(Buffer.concat(sent.get(id)!))).toBe(true);
      // Go saw each message cut the way its own ttrpc cuts one
      const expectedFrames = sent.get(id)!.flatMap((m) => frameSizes(m.length));
      expect(await framesSeen(session, id, expectedFrames.length)).toEqual(expectedFrames);
    }
  });

  it("reads what Go writes: zero-length frames, frames of the maximum payload and Go's cuts beyond it", async () => {
    const dropped: Array<[number, number]> = [];
    const plan = [0, 100, 4097, 4_194_314, 4_194_315, 9_000_000, 0];
    const session = await start(["-send", `1:${plan.join(",")};2:${[...plan].reverse().join(",")};5:10,20`], {
      open: [1, 2],
      onDroppedFrame: (id, length) => dropped.push([id, length]),
    });
    const expected1 = Buffer.concat(plan.map((size, k) => pattern(1, k, size)));
    const expected2 = Buffer.concat([...plan].reverse().map((size, k) => pattern(2, k, size)));
    const [got1, got2] = await Promise.all([
      readBytes(session.conns.get(1)!, expected1.length),
      readBytes(session.conns.get(2)!, expected2.length),
    ]);
    expect(got1.equals(expected1)).toBe(true);
    expect(got2.equals(expected2)).toBe(true);
    await session.next((e) => e.event === "sent" && e.conn === 5);
    // frames for a connection we never opened are dropped, and counted; Go's
    // close comes after them on the trunk
    session.command("close");
    await once(session.mux, "close");
    expect(dropped).toEqual([
      [5, 10],
      [5, 20],
    ]);
  });

  it("is torn down like Go v0.12.5 tears down: a frame over 4 194 314 bytes, even for an unknown id, closes the mux with Go's text", async () => {
    const header = (id: number, length: number): Buffer => {
      const bytes = Buffer.alloc(8);
      bytes.writeUInt32BE(id, 0);
      bytes.writeUInt32BE(length, 4);
      return bytes;
    };
    const session = await start(["-echo", "1,2", "-quiet"], { open: [1, 2] });
    // exactly the maximum passes: Go reads it and echoes it back
    const largest = pattern(1, 0, MAX_PAYLOAD);
    session.mux.trunk.write(Buffer.concat([header(1, MAX_PAYLOAD), largest]));
    expect((await readBytes(session.conns.get(1)!, MAX_PAYLOAD)).equals(largest)).toBe(true);

    session.mux.trunk.write(header(7, MAX_PAYLOAD + 1));
    const closed = await Promise.all([1, 2].map((id) => session.next((e) => e.event === "closed" && e.conn === id)));
    const goText = "conn 7: frame payload 4194315 bytes, maximum is 4194314";
    expect(closed.map((e) => e.error)).toEqual([goText, goText]);
    // Go closed the trunk: our mux hears it
    await expect.poll(() => session.mux.closeReason?.code).toBe("ERR_MUX_TRUNK_ENDED");

    // the same bytes to our mux: the same text
    const { local, peer } = await socketPair();
    const ours = new Mux(local);
    peer.resume().end(header(7, MAX_PAYLOAD + 1));
    const [reason] = (await once(ours, "close")) as [MuxError];
    expect([reason.code, reason.message]).toEqual(["ERR_MUX_FRAME_TOO_LARGE", goText]);
    peer.destroy();
  });

  it("keeps many concurrent messages within Go's 256-frame queue: one frame per small message", async () => {
    const session = await start(["-echo", "1,2", "-quiet"], { open: [1, 2] });
    const count = 250;
    const expected = new Map<number, Buffer>();
    for (const id of [1, 2]) {
      const messages = Array.from({ length: count }, (_, k) => pattern(id, k, 10 + ((k * 37) % 4087)));
      for (const message of messages) session.conns.get(id)!.write(message);
      expected.set(id, Buffer.concat(messages));
    }
    const received = await Promise.all([1, 2].map((id) => readBytes(session.conns.get(id)!, expected.get(id)!.length)));
    for (const id of [1, 2]) expect(received[id - 1].equals(expected.get(id)!)).toBe(true);
    expect(session.mux.closeReason).toBeUndefined();
  });

  it("shows the Go peer's limit: a 257th unread frame on one connection makes Go close the whole trunk", async () => {
    const session = await start(["-stall", "1", "-echo", "2"], { open: [1, 2] });
    const stalled = session.conns.get(1)!;
    for (let k = 0; k < 256; k++) stalled.write(pattern(1, k, 10));
    session.conns.get(2)!.write("still up?");
    expect((await readBytes(session.conns.get(2)!, 9)).toString()).toBe("still up?");

    stalled.write(pattern(1, 256, 10));
    const [reason] = await once(session.mux, "close");
    expect(reason.code).toBe("ERR_MUX_TRUNK_ENDED");
    expect(await session.next((e) => e.event === "closed")).toMatchObject({
      conn: 2,
      error: "failed to queue payload for reading",
    });
  });

  it("is dropped by Go, like Go is dropped by us, for id 0 and ids the other side did not open", async () => {
    const session = await start(["-echo", "1"], { open: [1, 7] });
    session.mux.trunk.write(Buffer.from([0, 0, 0, 0, 0, 0, 0, 4, 0x7a, 0x65, 0x72, 0x6f]));
    session.conns.get(7)!.write("seven");
    session.conns.get(1)!.write("one");
    expect((await readBytes(session.conns.get(1)!, 3)).toString()).toBe("one");
    expect(await framesSeen(session, 1, 1)).toEqual([3]);
    // Go has no reader for 0 or 7: it read those frames and dropped them
    expect(session.events.filter((e) => e.event === "frame" && e.conn !== 1)).toEqual([]);
  });

  it("tells Go when we close: every Go connection ends with EOF", async () => {
    const session = await start(["-echo", "1,2"], { open: [1, 2] });
    session.mux.close();
    const closed = await Promise.all([1, 2].map((id) => session.next((e) => e.event === "closed" && e.conn === id)));
    expect(closed.map((e) => e.error)).toEqual(["EOF", "EOF"]);
  });

  it("hears when Go closes: the mux closes and every connection ends", async () => {
    const session = await start(["-echo", "1,2"], { open: [1, 2] });
    const ends = [1, 2].map((id) => once(session.conns.get(id)!.resume(), "end"));
    session.command("close");
    const [reason] = await once(session.mux, "close");
    expect(reason.code).toBe("ERR_MUX_TRUNK_ENDED");
    await Promise.all(ends);
    expect(await session.exit).toBe(0);
  });

  it("with blocked reads, keeps what Go sent before our connections were open until unblock()", async () => {
    const dropped: number[] = [];
    const session = await start(["-send", "2:14"], {
      blockedRead: true,
      onDroppedFrame: (id) => dropped.push(id),
    });
    await session.next((e) => e.event === "sent");
    const conn = session.mux.open(2);
    session.mux.unblock();
    expect((await readBytes(conn, 14)).equals(pattern(2, 0, 14))).toBe(true);
    expect(dropped).toEqual([]);
  });

  it("without blocked reads, drops what Go sent before our connection was open (Go's rule too)", async () => {
    let droppedId: (id: number) => void = () => {};
    const dropped = new Promise<number>((resolve) => (droppedId = resolve));
    const session = await start(["-send", "2:14"], { onDroppedFrame: (id) => droppedId(id) });
    expect(await dropped).toBe(2);
    expect(session.mux.closeReason).toBeUndefined();
  });

  it("reaches a Go mux with blocked reads once Go unblocks", async () => {
    const session = await start(["-blocked", "-echo", "1"], { open: [1] });
    session.conns.get(1)!.write("early");
    session.command("unblock");
    expect((await readBytes(session.conns.get(1)!, 5)).toString()).toBe("early");
  });
});

// ttrpc over the mux, with frames built by hand: Go's ttrpc reads a mux
// connection through a 4096-byte bufio.Reader and fails on a frame it cannot
// take in one Read, so this is where our cutting rule is proven.

const ECHO_SERVICE = "nri_ts.conformance.Echo";
const REQUEST = 1;
const RESPONSE = 2;

function varint(value: number): Buffer {
  const bytes: number[] = [];
  for (; value > 0x7f; value = Math.floor(value / 128)) bytes.push((value & 0x7f) | 0x80);
  bytes.push(value);
  return Buffer.from(bytes);
}

/** A length-delimited protobuf field. */
function field(number: number, bytes: Buffer): Buffer {
  return Buffer.concat([varint((number << 3) | 2), varint(bytes.length), bytes]);
}

/** The length-delimited fields of a protobuf message (others skipped). */
function fields(message: Buffer): Map<number, Buffer> {
  const found = new Map<number, Buffer>();
  let offset = 0;
  const readVarint = (): number => {
    let value = 0;
    for (let shift = 1; ; shift *= 128) {
      const byte = message[offset++];
      value += (byte & 0x7f) * shift;
      if (byte < 0x80) return value;
    }
  };
  while (offset < message.length) {
    const key = readVarint();
    if ((key & 7) === 0) readVarint();
    else {
      const length = readVarint();
      found.set(key >> 3, message.subarray(offset, offset + length));
      offset += length;
    }
  }
  return found;
}

function ttrpcFrame(streamId: number, type: number, data: Buffer): Buffer {
  const header = Buffer.alloc(10);
  header.writeUInt32BE(data.length, 0);
  header.writeUInt32BE(streamId, 4);
  header[8] = type;
  return Buffer.concat([header, data]);
}

/** Calls `onFrame` for each ttrpc frame arriving on a connection. */
function readTtrpc(conn: MuxConnection, onFrame: (streamId: number, type: number, data: Buffer) => void): void {
  let pending = Buffer.alloc(0);
  conn.on("data", (chunk: Buffer) => {
    pending = Buffer.concat([pending, chunk]);
    while (pending.length >= 10 && pending.length >= 10 + pending.readUInt32BE(0)) {
      const length = pending.readUInt32BE(0);
      onFrame(pending.readUInt32BE(4), pending[8], pending.subarray(10, 10 + length));
      pending = pending.subarray(10 + length);
    }
  });
}

describeWithGo("ttrpc over our mux against Go's ttrpc over Go's mux", () => {
  beforeAll(buildPeer, 120_000);

  it("calls Go's ttrpc server on connection 1 and serves Go's ttrpc client on connection 2", async () => {
    // payload sizes Go's client sends us, all at once
    const goCalls = [0, 100, 4070, 4087, 10_000, MiB, 4 * MiB - 64];
    const session = await start(["-ttrpc", "-calls", goCalls.join(",")], { open: [1, 2], via: "socket" });
    const [toGo, fromGo] = [session.conns.get(1)!, session.conns.get(2)!];

    // serve Echo to Go's client: the response payload is the request payload
    readTtrpc(fromGo, (streamId, type, data) => {
      expect(type).toBe(REQUEST);
      const request = fields(data);
      expect(request.get(1)?.toString()).toBe(ECHO_SERVICE);
      expect(request.get(2)?.toString()).toBe("Echo");
      fromGo.write(ttrpcFrame(streamId, RESPONSE, field(2, request.get(3) ?? Buffer.alloc(0))));
    });

    // call Go's Echo server, all calls at once, each request one write
    const ourCalls = [0, 100, 4040, 4041, 4090, 10_000, MiB, 4 * MiB - 64];
    const answers = new Map<number, Buffer>();
    const allAnswered = new Promise<void>((resolve) => {
      readTtrpc(toGo, (streamId, type, data) => {
        expect(type).toBe(RESPONSE);
        const response = fields(data);
        expect(response.has(1)).toBe(false); // no status: success
        answers.set(streamId, fields(response.get(2) ?? Buffer.alloc(0)).get(1) ?? Buffer.alloc(0));
        if (answers.size === ourCalls.length) resolve();
      });
    });
    const sentFrames: number[] = [];
    ourCalls.forEach((size, k) => {
      const request = Buffer.concat([
        field(1, Buffer.from(ECHO_SERVICE)),
        field(2, Buffer.from("Echo")),
        field(3, size > 0 ? field(1, pattern(1, k, size)) : Buffer.alloc(0)),
      ]);
      expect(request.length).toBeLessThanOrEqual(4 * MiB);
      const frame = ttrpcFrame(2 * k + 1, REQUEST, request);
      sentFrames.push(frame.length);
      toGo.write(frame);
    });
    expect(sentFrames.some((length) => length > 4096 && length < 8192)).toBe(true);
    await allAnswered;
    ourCalls.forEach((size, k) => {
      expect(answers.get(2 * k + 1)!.equals(pattern(1, k, size))).toBe(true);
    });

    await session.next((e) => e.event === "calls-done");
    const calls = session.events.filter((e) => e.event === "call");
    expect(calls.map((e) => e.size).sort((a, b) => a! - b!)).toEqual(goCalls);
    expect(calls.map((e) => e.error)).toEqual(goCalls.map(() => ""));
    expect(session.mux.closeReason).toBeUndefined();
  });
});
