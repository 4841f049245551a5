import { spawn } from "node:child_process";
import { lstat, mkdtemp, rm, writeFile } from "node:fs/promises";
import { connect as connectHttp2, constants as http2 } from "node:http2";
import { createConnection } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { setImmediate } from "node:timers/promises";
import { ClientError, Status } from "nice-grpc-common";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { connectExitReporter, type ExitReporterConnection } from "../client.js";
import { ExitHub } from "./exit-hub.js";
import { ExitRecord, WatchExitsRequest } from "../gen/nri_ts/exit_reporter/v1/exit_reporter.js";
import { GrpcOutput } from "./grpc-output.js";

function exit(sequence: number, fields: Partial<ExitRecord> = {}): ExitRecord {
  return ExitRecord.fromPartial({
    sequence: BigInt(sequence),
    event: "StopContainer",
    pod: { namespace: sequence % 2 ? "shop" : "ops", name: `web-${sequence % 3}`, uid: "u" },
    container: { name: sequence % 2 ? "app" : "sidecar", id: `ctr${sequence}` },
    exitCode: sequence % 4 === 0 ? 0 : 137,
    explanation: `exit number ${sequence}`,
    ...fields,
  });
}

describe("ExitHub", () => {
  it("keeps the last exits in a bounded ring and filters them", () => {
    const hub = new ExitHub({ recent: 5, onSubscriberDropped: () => {} });
    for (let i = 1; i <= 8; i++) hub.publish(exit(i));
    expect(hub.recent(undefined).map((record) => Number(record.sequence))).toEqual([4, 5, 6, 7, 8]);
    expect(hub.recent(undefined, 2).map((record) => Number(record.sequence))).toEqual([7, 8]);
    const filter = { namespace: "shop", pod: "", container: "", nonZeroOnly: false };
    expect(hub.recent(filter).map((record) => Number(record.sequence))).toEqual([5, 7]);
    expect(
      hub.recent({ ...filter, namespace: "", nonZeroOnly: true }).map((record) => Number(record.sequence)),
    ).toEqual([5, 6, 7]);
    expect(
      hub.recent({ ...filter, namespace: "", pod: "web-1", container: "app" }).map((record) => Number(record.sequence)),
    ).toEqual([7]);
  });

  it("drops a watcher that falls behind, tells why, and ends its stream with RESOURCE_EXHAUSTED", async () => {
    const dropped: string[] = [];
    const hub = new ExitHub({
      subscriberBuffer: 3,
      onSubscriberDropped: (peer, why) => dropped.push(`${peer}: ${why}`),
    });
    const slow = hub.subscribe(undefined, "unix:slow");
    const filtered = hub.subscribe(
      { namespace: "nowhere", pod: "", container: "", nonZeroOnly: false },
      "unix:filtered",
    );
    for (let i = 1; i <= 4; i++) hub.publish(exit(i));
    expect(dropped).toEqual(["#1 (unix:slow): it fell 3 exits behind (the limit is 3)"]);
    expect(hub.watchers).toBe(1);
    await expect(slow.next()).rejects.toThrow("dropped by the exit reporter: it fell 3 exits behind (the limit is 3)");
    await expect(slow.next()).rejects.toMatchObject({ code: Status.RESOURCE_EXHAUSTED });
    filtered.end();
    expect(await filtered.next()).toEqual({ value: undefined, done: true });
    expect(hub.watchers).toBe(0);
  });

  it("ends at once a watcher whose call was cancelled before it subscribed", async () => {
    // nice-grpc aborts the call's signal before the handler runs when the cancel came first;
    // a filter that matches nothing would never fill the queue to drop the watcher either.
    const hub = new ExitHub({ onSubscriberDropped: () => {} });
    const nowhere = { namespace: "nowhere", pod: "", container: "", nonZeroOnly: false };
    const gone = hub.subscribe(nowhere, "unix:gone", AbortSignal.abort());
    expect(hub.watchers).toBe(0);
    expect(await gone.next()).toEqual({ value: undefined, done: true });
    const live = new AbortController();
    hub.subscribe(nowhere, "unix:live", live.signal);
    expect(hub.watchers).toBe(1);
    live.abort();
    expect(hub.watchers).toBe(0);
  });

  it("keeps the ring within its bytes as well as its count, the oldest going first", () => {
    const size = ExitRecord.encode(exit(1, { notes: ["x".repeat(10_000)] })).finish().length;
    const hub = new ExitHub({ recent: 100, recentBytes: 3 * size + 10, onSubscriberDropped: () => {} });
    for (let i = 1; i <= 10; i++) hub.publish(exit(i, { notes: ["x".repeat(10_000)] }));
    expect(hub.recent(undefined).map((record) => Number(record.sequence))).toEqual([8, 9, 10]);
    // one record bigger than the whole budget is still kept, alone
    hub.publish(exit(11, { notes: ["x".repeat(100_000)] }));
    expect(hub.recent(undefined).map((record) => Number(record.sequence))).toEqual([11]);
  });
});

describe("the gRPC output, with a nice-grpc client", () => {
  let dir: string;
  let output: GrpcOutput;
  let connection: ExitReporterConnection;
  const dropped: string[] = [];
  const causes: unknown[] = [];

  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), "exit-reporter-grpc-"));
    output = await GrpcOutput.start({
      address: { kind: "unix", path: join(dir, "exits.sock") },
      recent: 100,
      subscriberBuffer: 20,
      onSubscriberDropped: (_peer, why) => dropped.push(why),
      attachCause: (request) => {
        causes.push(request);
        return { replaced: false };
      },
    });
    connection = connectExitReporter(`unix://${join(dir, "exits.sock")}`);
  });

  afterAll(async () => {
    connection.close();
    await output.close();
    await rm(dir, { recursive: true, force: true });
  });

  afterEach(() => {
    dropped.length = 0;
  });

  async function watchers(count: number): Promise<void> {
    while (output.hub.watchers !== count) await setImmediate();
  }

  it("streams exits as they are published, filtered", async () => {
    const seen: number[] = [];
    const stop = new AbortController();
    const watching = (async () => {
      for await (const { exit } of connection.client.watchExits(
        { filter: { nonZeroOnly: true } },
        { signal: stop.signal },
      )) {
        seen.push(Number(exit!.sequence));
        if (seen.length === 3) stop.abort();
      }
    })().catch((error: Error) => error.name);
    await watchers(1);
    for (let i = 1; i <= 4; i++) output.publish(exit(i));
    expect(await watching).toBe("AbortError");
    expect(seen).toEqual([1, 2, 3]);
    await watchers(0);
  });

  it("forgets the watchers of streams reset as soon as they are opened", async () => {
    // Raw HTTP/2: each request and its reset leave in one write, so the reset can reach the
    // server before the handler runs (most of them did, before the fix).
    const session = connectHttp2("http://localhost", {
      createConnection: () => createConnection(join(dir, "exits.sock")),
    });
    session.on("error", () => {});
    const call = (method: string, message: Uint8Array) => {
      const request = session.request({
        ":method": "POST",
        ":path": `/nri_ts.exit_reporter.v1.ExitReporterService/${method}`,
        "content-type": "application/grpc",
        te: "trailers",
      });
      request.on("error", () => {});
      request.end(Buffer.concat([Buffer.from([0, 0, 0, 0, message.length]), message]));
      return request;
    };
    const nowhere = { namespace: "nowhere", pod: "", container: "", nonZeroOnly: false };
    const watch = WatchExitsRequest.encode({ filter: nowhere }).finish();
    for (let i = 0; i < 200; i++) call("WatchExits", watch).close(http2.NGHTTP2_CANCEL);
    // The server reads a connection's frames in order: once it answers this, it has seen every reset.
    const answered = call("ListRecentExits", new Uint8Array());
    answered.resume();
    await new Promise((resolve) => answered.once("end", resolve));
    session.destroy();
    await expect.poll(() => output.hub.watchers).toBe(0);
  });

  it("answers the recent exits, newest last, with the ring's size", async () => {
    const { exits, capacity } = await connection.client.listRecentExits({ limit: 2 });
    expect(capacity).toBe(100);
    expect(exits.map((record) => record.explanation)).toEqual(["exit number 3", "exit number 4"]);
    expect(exits[0]).toEqual(exit(3));
  });

  it("hands AttachCause to the reporter, and its refusals to the caller", async () => {
    expect(
      await connection.client.attachCause({ containerId: "ctr9", declaredBy: "10-evictor", reason: "Evicted" }),
    ).toEqual({
      replaced: false,
    });
    expect(causes).toEqual([
      expect.objectContaining({ containerId: "ctr9", declaredBy: "10-evictor", reason: "Evicted" }),
    ]);
  });

  it("drops a watcher that stops reading, and keeps serving one that reads", async () => {
    // Big records, so that the transport's buffers fill and the slow watcher really falls behind.
    const padding = "x".repeat(16 * 1024);
    const slow = connection.client.watchExits({})[Symbol.asyncIterator]();
    const first = slow.next();
    const fast: number[] = [];
    const stop = new AbortController();
    const reading = (async () => {
      for await (const { exit } of connection.client.watchExits({}, { signal: stop.signal })) {
        fast.push(Number(exit!.sequence));
        if (fast.length === 400) stop.abort();
      }
    })().catch(() => {});
    await watchers(2);
    for (let i = 1; i <= 400; i++) {
      output.publish(exit(i, { notes: [padding] }));
      await setImmediate();
    }
    await reading;
    expect(fast).toHaveLength(400);
    expect(dropped).toEqual(["it fell 20 exits behind (the limit is 20)"]);
    // The slow watcher gets what was already on its way, then the reason it was dropped.
    expect((await first).done).toBe(false);
    let error: unknown;
    try {
      for (let result = await slow.next(); !result.done; result = await slow.next());
    } catch (caught) {
      error = caught;
    }
    expect(error).toBeInstanceOf(ClientError);
    expect(error).toMatchObject({
      code: Status.RESOURCE_EXHAUSTED,
      details: "dropped by the exit reporter: it fell 20 exits behind (the limit is 20)",
    });
  });
});

describe("where the gRPC output listens", () => {
  let dir: string;
  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), "exit-reporter-listen-"));
  });
  afterAll(() => rm(dir, { recursive: true, force: true }));

  const start = (address: Parameters<typeof GrpcOutput.start>[0]["address"]) =>
    GrpcOutput.start({ address, onSubscriberDropped: () => {}, attachCause: () => ({ replaced: false }) });

  it("on TCP by option", async () => {
    const output = await start({ kind: "tcp", host: "127.0.0.1", port: 0 });
    const address = output.address;
    expect(address.kind === "tcp" && address.port > 0).toBe(true);
    const { client, close } = connectExitReporter(`127.0.0.1:${address.kind === "tcp" ? address.port : 0}`);
    expect((await client.listRecentExits({})).capacity).toBe(1000);
    close();
    await output.close();
  });

  it("replaces a socket file left behind by a process that is gone", async () => {
    const path = join(dir, "stale.sock");
    // A process that listens on it and is killed, as in a crash: its socket file stays.
    const crashing = spawn(process.execPath, [
      "-e",
      "require('net').createServer().listen(process.argv[1], () => console.log('up'))",
      path,
    ]);
    await new Promise((resolve) => crashing.stdout.once("data", resolve));
    crashing.kill("SIGKILL");
    await new Promise((resolve) => crashing.once("exit", resolve));
    expect((await lstat(path)).isSocket()).toBe(true);
    const output = await start({ kind: "unix", path });
    const socket = createConnection(path);
    await new Promise<void>((resolve, reject) => socket.once("connect", resolve).once("error", reject));
    socket.destroy();
    await output.close();
  });

  it("refuses a path that is no socket, or one another process serves", async () => {
    const file = join(dir, "file.sock");
    await writeFile(file, "");
    await expect(start({ kind: "unix", path: file })).rejects.toThrow(
      `cannot listen on unix://${file}: ${file} exists and is not a socket`,
    );
    const busy = join(dir, "busy.sock");
    const first = await start({ kind: "unix", path: busy });
    await expect(start({ kind: "unix", path: busy })).rejects.toThrow(`another process is listening on ${busy}`);
    await first.close();
    await expect(start({ kind: "unix", path: "/nonexistent-dir/exits.sock" })).rejects.toThrow(
      "cannot listen on unix:///nonexistent-dir/exits.sock",
    );
  });
});
