import { existsSync } from "node:fs";
import { mkdtemp, readFile, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { PassThrough } from "node:stream";
import { setImmediate } from "node:timers/promises";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ExitRecord } from "../gen/nri_ts/exit_reporter/v1/exit_reporter.js";
import { JsonLinesOutput } from "./json-lines.js";
import { RotatingFile, streamSink } from "./line-sinks.js";

function exit(sequence: number): ExitRecord {
  return ExitRecord.fromPartial({
    sequence: BigInt(sequence),
    reportedAt: 1_767_225_601_000_000_000n,
    event: "StopContainer",
    container: { name: "app", id: "c1" },
    exitCode: 1,
    explanation: "x".repeat(100),
  });
}

async function lines(path: string): Promise<number[]> {
  const text = await readFile(path, "utf8");
  return text === ""
    ? []
    : text
        .trimEnd()
        .split("\n")
        .map((line) => (JSON.parse(line) as { sequence: number }).sequence);
}

describe("the JSON-lines output", () => {
  let dir: string;
  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), "exit-reporter-jsonl-"));
  });
  afterAll(() => rm(dir, { recursive: true, force: true }));

  it("writes one JSON object per line, as exitRecordToJson shapes it", async () => {
    const path = join(dir, "one.jsonl");
    const output = new JsonLinesOutput(await RotatingFile.open(path, { maxBytes: 1 << 20, keep: 1 }), {
      onDrop: () => {},
    });
    output.publish(exit(1));
    await output.close();
    expect(JSON.parse(await readFile(path, "utf8"))).toEqual({
      time: "2026-01-01T00:00:01.000000000Z",
      sequence: 1,
      event: "StopContainer",
      container: { name: "app", id: "c1" },
      exitCode: 1,
      explanation: "x".repeat(100),
    });
  });

  it("rotates by size, keeping the configured number of older files", async () => {
    const path = join(dir, "rotated.jsonl");
    await writeFile(path, "");
    const output = new JsonLinesOutput(await RotatingFile.open(path, { maxBytes: 1024, keep: 2 }), {
      onDrop: () => {},
    });
    for (let i = 1; i <= 20; i++) output.publish(exit(i));
    await output.close();
    // Each line is about 220 bytes: four fit in 1024.
    expect(await lines(path)).toEqual([17, 18, 19, 20]);
    expect(await lines(`${path}.1`)).toEqual([13, 14, 15, 16]);
    expect(await lines(`${path}.2`)).toEqual([9, 10, 11, 12]);
    expect(existsSync(`${path}.3`)).toBe(false);
  });

  it("with keep 0, starts the file afresh", async () => {
    const path = join(dir, "fresh.jsonl");
    const output = new JsonLinesOutput(await RotatingFile.open(path, { maxBytes: 1024, keep: 0 }), {
      onDrop: () => {},
    });
    for (let i = 1; i <= 6; i++) output.publish(exit(i));
    await output.close();
    expect(await lines(path)).toEqual([5, 6]);
    expect(existsSync(`${path}.1`)).toBe(false);
  });

  it("on a full disk, loses the records it cannot write, says why, and goes on", async () => {
    const drops: string[] = [];
    // /dev/full answers every write with ENOSPC, as a full disk does.
    const output = new JsonLinesOutput(await RotatingFile.open("/dev/full", { maxBytes: 1 << 30, keep: 1 }), {
      onDrop: (name, records, why) => drops.push(`${name} ${records}: ${why}`),
    });
    output.publish(exit(1));
    output.publish(exit(2));
    await output.close();
    expect(drops).toEqual([
      "json-lines 1: cannot write to /dev/full: ENOSPC: no space left on device, write",
      "json-lines 1: cannot write to /dev/full: ENOSPC: no space left on device, write",
    ]);
  });

  it("never waits for a stream that does not take lines: it drops what does not fit in its queue", async () => {
    const drops: number[] = [];
    // A pipe nobody reads: after its small buffer, writes never complete.
    const pipe = new PassThrough({ highWaterMark: 256 });
    const output = new JsonLinesOutput(streamSink(pipe, "a pipe"), {
      maxQueuedBytes: 2000,
      onDrop: (_, records) => drops.push(records),
    });
    for (let i = 1; i <= 30; i++) output.publish(exit(i));
    await setImmediate();
    expect(drops.length).toBeGreaterThan(15);
    // What was queued comes out once someone reads.
    const read: number[] = [];
    pipe.on("data", (chunk: Buffer) =>
      read.push(
        ...chunk
          .toString()
          .trimEnd()
          .split("\n")
          .map((line) => (JSON.parse(line) as { sequence: number }).sequence),
      ),
    );
    await output.close();
    expect(read.length + drops.length).toBe(30);
    expect(read).toEqual(Array.from({ length: read.length }, (_, i) => i + 1));
  });
});
