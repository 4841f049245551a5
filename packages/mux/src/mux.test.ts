import { once } from "node:events";
import { describe, expect, it } from "vitest";
import { MuxError } from "./errors.js";
import { PLUGIN_SERVICE_CONN, RUNTIME_SERVICE_CONN } from "./frame.js";
import { Mux } from "./mux.js";
import { socketPair } from "./sockets.js";
import { frame, MemoryTrunk, parseFrames, readAll, settle } from "./testing/support.js";

const MiB = 1024 * 1024;

describe("Mux.open", () => {
  it("names NRI's two connections", () => {
    expect([PLUGIN_SERVICE_CONN, RUNTIME_SERVICE_CONN]).toEqual([1, 2]);
  });

  it("opens an id once; opening it again while it is open is an error", () => {
    const mux = new Mux(new MemoryTrunk());
    expect(mux.open(1).id).toBe(1);
    expect(() => mux.open(1)).toThrow(new MuxError("ERR_MUX_ID_IN_USE", "connection 1 is already open"));
    expect(mux.open(0xffff_ffff).id).toBe(0xffff_ffff);
  });

  it("refuses the reserved id 0 and ids that are not u32", () => {
    const mux = new Mux(new MemoryTrunk());
    expect(() => mux.open(0)).toThrow(expect.objectContaining({ code: "ERR_MUX_RESERVED_ID" }));
    expect(() => mux.open(2 ** 32)).toThrow(expect.objectContaining({ code: "ERR_MUX_INVALID_ID" }));
  });

  it("opens an id again once its connection is closed", async () => {
    const mux = new Mux(new MemoryTrunk());
    const first = mux.open(1);
    first.destroy();
    expect(mux.open(1)).not.toBe(first);
    const third = mux.open(2);
    third.end();
    await once(third, "finish");
    expect(mux.open(2)).not.toBe(third);
  });

  it("refuses to open on a closed mux", () => {
    const mux = new Mux(new MemoryTrunk());
    mux.close();
    expect(() => mux.open(1)).toThrow(new MuxError("ERR_MUX_CLOSED", "cannot open connection 1: mux closed"));
  });
});

describe("writing", () => {
  it("sends each write as its own message, cut like Go's ttrpc cuts a message", async () => {
    const trunk = new MemoryTrunk();
    const mux = new Mux(trunk);
    const one = mux.open(1);
    const two = mux.open(2);
    // ttrpc messages with 0, 100, 4086, 4087, 10000 and 4 MiB payload bytes
    const sizes = [10, 110, 4096, 4097, 10010, 4 * MiB + 10];
    for (const size of sizes) {
      one.write(Buffer.alloc(size, 1));
      two.write(Buffer.alloc(3, 2));
    }
    await settle();
    const frames = parseFrames(trunk.bytes());
    expect(frames.filter((f) => f.id === 1).map((f) => f.payload.length)).toEqual([
      10, 110, 4096, 4096, 1, 4096, 5914, 4096, 4190218,
    ]);
    expect(frames.filter((f) => f.id === 2).map((f) => f.payload.length)).toEqual([3, 3, 3, 3, 3, 3]);
    expect(frames.map((f) => f.id)).toEqual([1, 2, 1, 2, 1, 2, 1, 1, 2, 1, 1, 2, 1, 1, 2]);
  });

  it("never merges two writes into one frame, even when they queue up", async () => {
    const trunk = new MemoryTrunk({ holdWrites: true, writableHighWaterMark: 1 });
    const conn = new Mux(trunk).open(1);
    for (let i = 0; i < 5; i++) conn.write(Buffer.from([i, i]));
    for (let i = 0; i < 5; i++) {
      trunk.release();
      await settle();
    }
    expect(parseFrames(trunk.bytes())).toEqual([0, 1, 2, 3, 4].map((i) => ({ id: 1, payload: Buffer.from([i, i]) })));
  });

  it("sends nothing for an empty write", async () => {
    const trunk = new MemoryTrunk();
    const conn = new Mux(trunk).open(1);
    await new Promise<void>((resolve, reject) => conn.write(Buffer.alloc(0), (e) => (e ? reject(e) : resolve())));
    expect(trunk.written).toEqual([]);
  });

  it("waits for the trunk to drain before taking more, keeping the order", async () => {
    const trunk = new MemoryTrunk({ holdWrites: true, writableHighWaterMark: 16 });
    const mux = new Mux(trunk);
    const one = mux.open(1);
    const two = mux.open(2);
    const done: string[] = [];
    one.write(Buffer.alloc(100, 0xa1), () => done.push("a1"));
    one.write(Buffer.alloc(10, 0xa2), () => done.push("a2"));
    two.write(Buffer.alloc(10, 0xb1), () => done.push("b1"));
    await settle();
    // the trunk holds a1 and b1 and is over its high-water mark: nobody is
    // told to go on, and a2 waits in its connection
    expect(done).toEqual([]);
    expect(trunk.writableLength).toBe(8 + 100 + 8 + 10);
    while (done.length < 3) {
      trunk.release();
      await settle();
    }
    expect(done).toEqual(["a1", "b1", "a2"]);
    expect(parseFrames(trunk.bytes()).map((f) => f.payload[0])).toEqual([0xa1, 0xb1, 0xa2]);
  });
});

describe("closing a connection", () => {
  it.each(["end", "destroy"] as const)("%s() sends nothing and drops later frames for its id", async (how) => {
    const trunk = new MemoryTrunk();
    const dropped: Array<[number, number]> = [];
    const mux = new Mux(trunk, { onDroppedFrame: (id, length) => dropped.push([id, length]) });
    const conn = mux.open(1);
    conn[how]();
    await once(conn, how === "end" ? "finish" : "close");
    trunk.push(frame(1, [1, 2, 3]));
    await settle();
    expect(trunk.written).toEqual([]);
    expect(dropped).toEqual([[1, 3]]);
    expect(mux.closeReason).toBeUndefined();
  });
});

describe("closing the mux", () => {
  it("ends every connection after its buffered bytes and closes the trunk, once", async () => {
    const trunk = new MemoryTrunk();
    const mux = new Mux(trunk);
    const conn = mux.open(1);
    const reasons: MuxError[] = [];
    mux.on("close", (reason) => reasons.push(reason));
    trunk.push(frame(1, Buffer.from("last words")));
    await settle();
    mux.close(new Error("shutting down"));
    expect(await readAll(conn)).toEqual(Buffer.from("last words"));
    expect(reasons).toEqual([new MuxError("ERR_MUX_CLOSED", "mux closed")]);
    expect(reasons[0].cause).toEqual(new Error("shutting down"));
    expect(trunk.destroyed).toBe(true);
    mux.close();
    expect(reasons).toHaveLength(1);
  });

  it("lets writes already on the trunk go out, and fails the writes behind them as a connection error", async () => {
    const trunk = new MemoryTrunk({ holdWrites: true, writableHighWaterMark: 1 });
    const mux = new Mux(trunk);
    const conn = mux.open(1);
    const handedOver = new Promise((resolve) => conn.write(Buffer.from("x"), resolve));
    const queued = new Promise((resolve) => conn.write(Buffer.from("y"), resolve));
    const connError = once(conn, "error");
    mux.close();
    expect(await handedOver).toBeNull();
    expect(await queued).toBe(mux.closeReason);
    expect(await connError).toEqual([mux.closeReason]);
    expect(trunk.destroyed).toBe(false);
    trunk.release();
    await once(trunk, "close");
    expect(parseFrames(trunk.bytes())).toEqual([{ id: 1, payload: Buffer.from("x") }]);
  });

  it("fails waiting writes with the reason when the trunk fails", async () => {
    const trunk = new MemoryTrunk({ holdWrites: true, writableHighWaterMark: 1 });
    const conn = new Mux(trunk).open(1);
    conn.on("error", () => {});
    const pending = new Promise((resolve) => conn.write(Buffer.from("x"), resolve));
    trunk.destroy(new Error("EPIPE"));
    expect(await pending).toMatchObject({ code: "ERR_MUX_TRUNK_ERROR", message: "trunk failed: EPIPE" });
  });

  it("fails writes made after it closed with the reason", async () => {
    const mux = new Mux(new MemoryTrunk());
    const conn = mux.open(1);
    conn.on("error", () => {});
    mux.close();
    const error = await new Promise((resolve) => conn.write(Buffer.from("late"), resolve));
    expect(error).toBe(mux.closeReason);
  });

  it("flushes what is queued on the trunk before closing it, so the peer reads it all and then sees the end", async () => {
    const { local, peer } = await socketPair();
    const sender = new Mux(local);
    const receiver = new Mux(peer);
    const message = Buffer.alloc(4 * MiB + 10, 9);
    sender.open(1).write(message);
    sender.close();
    const [received, [reason]] = await Promise.all([readAll(receiver.open(1)), once(receiver, "close")]);
    expect(received.equals(message)).toBe(true);
    expect(reason).toMatchObject({ code: "ERR_MUX_TRUNK_ENDED", message: "trunk ended by the peer" });
  });

  it("closes when the trunk fails, with the trunk's error as the cause", async () => {
    const trunk = new MemoryTrunk();
    const mux = new Mux(trunk);
    const conn = mux.open(1);
    const boom = new Error("boom");
    trunk.destroy(boom);
    const [reason] = await once(mux, "close");
    expect(reason).toMatchObject({ code: "ERR_MUX_TRUNK_ERROR", message: "trunk failed: boom", cause: boom });
    expect(await readAll(conn)).toEqual(Buffer.alloc(0));
  });

  it("closes when someone else destroys the trunk", async () => {
    const trunk = new MemoryTrunk();
    const mux = new Mux(trunk);
    trunk.destroy();
    const [reason] = await once(mux, "close");
    expect(reason).toMatchObject({ code: "ERR_MUX_TRUNK_CLOSED", message: "trunk closed" });
  });

  it("closes at once over a trunk that is already gone", async () => {
    const trunk = new MemoryTrunk();
    trunk.destroy();
    const mux = new Mux(trunk);
    const [reason] = await once(mux, "close");
    expect(reason.code).toBe("ERR_MUX_TRUNK_CLOSED");
  });
});
