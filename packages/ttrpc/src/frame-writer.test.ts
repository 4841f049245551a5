import { Writable } from "node:stream";
import { describe, expect, it } from "vitest";
import { encodeFrame } from "./frame.js";
import { FrameWriter } from "./frame-writer.js";
import { sleep } from "./testing/support.js";

/** A duplex stand-in that records each write() call and holds them until released. */
function slowSink(highWaterMark: number) {
  const calls: Buffer[] = [];
  const pending: Array<() => void> = [];
  const sink = new Writable({
    highWaterMark,
    write(chunk: Buffer, _encoding, done) {
      calls.push(chunk);
      pending.push(done);
    },
    writev(chunks, done) {
      for (const { chunk } of chunks) calls.push(chunk as Buffer);
      pending.push(done);
    },
  });
  const original = sink.write.bind(sink);
  const writeCalls: Buffer[] = [];
  sink.write = ((chunk: Buffer) => {
    writeCalls.push(chunk);
    return original(chunk);
  }) as typeof sink.write;
  return {
    sink,
    writeCalls,
    calls,
    release() {
      for (const done of pending.splice(0)) done();
    },
  };
}

const frame = (id: number, size = 20) => encodeFrame(id, 1, 0, new Uint8Array(size).fill(id));

describe("FrameWriter", () => {
  it("hands each frame to the duplex in one write() call, in order", async () => {
    const { sink, writeCalls, calls, release } = slowSink(1 << 20);
    const writer = new FrameWriter(sink as never);
    const frames = [1, 3, 5].map((id) => frame(id));
    for (const f of frames) writer.write(f);
    await sleep(1);
    release();
    expect(writeCalls).toEqual(frames);
    expect(calls).toEqual(frames);
  });

  it("queues frames while the duplex is full and writes them after 'drain', keeping order", async () => {
    const { sink, writeCalls, release } = slowSink(50);
    const writer = new FrameWriter(sink as never);
    writer.write(frame(1, 60));
    expect(writer.congested).toBe(true);
    writer.write(frame(3));
    writer.write(frame(5));
    expect(writeCalls.length).toBe(1);
    let ready = false;
    const waiting = writer.ready().then(() => (ready = true));
    await sleep(1);
    expect(ready).toBe(false);
    while (!ready) {
      release();
      await sleep(1);
    }
    await waiting;
    expect(writeCalls.map((f) => f[7])).toEqual([1, 3, 5]);
  });

  it("drops frames after close and releases waiters", async () => {
    const { sink, writeCalls } = slowSink(10);
    const writer = new FrameWriter(sink as never);
    writer.write(frame(1));
    writer.write(frame(3));
    const waiting = writer.ready();
    writer.close();
    await waiting;
    writer.write(frame(5));
    expect(writeCalls.length).toBe(1);
  });
});
