// Throughput of @nri-ts/mux against the upstream Go mux, measured in the same
// run: our mux to our mux over a unix socket pair in this process, and Go's
// mux to Go's mux over a socketpair inside cmd/mux-peer of the conformance
// package (skipped with a note when Go is missing).
//
// The figures are recorded for BENCHMARKS.md (@nri-ts/bench).
//
//   npx tsx bench/throughput.ts      (or: npm run bench)
//   NRI_BENCH_SMOKE=1 npm run bench  (a short run that proves the bench works)
import { execFile } from "node:child_process";
import { once } from "node:events";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { promisify } from "node:util";
import { type BenchResult, recordResults, result, smoke } from "@nri-ts/bench";
import { Mux, type MuxConnection, socketPair } from "../src/index.js";

const run = promisify(execFile);
const MiB = 1024 * 1024;
const REPEATS = smoke ? 1 : 5;

interface Pair {
  out: MuxConnection;
  in: MuxConnection;
  close(): void;
}

async function connectedPair(): Promise<Pair> {
  const { local, peer } = await socketPair();
  const a = new Mux(local);
  const b = new Mux(peer);
  return { out: a.open(1), in: b.open(1), close: () => a.close() };
}

/** Seconds to stream `total` bytes in messages of `size` bytes from one mux to the other. */
async function streamOurs(size: number, total: number): Promise<number> {
  const pair = await connectedPair();
  const message = Buffer.alloc(size, 0x5a);
  const count = Math.floor(total / size);
  const start = performance.now();
  const received = new Promise<void>((resolve) => {
    let left = count * size;
    pair.in.on("data", (chunk: Buffer) => {
      left -= chunk.length;
      if (left === 0) resolve();
    });
  });
  for (let i = 0; i < count; i++) {
    if (!pair.out.write(message)) await once(pair.out, "drain");
  }
  await received;
  const seconds = (performance.now() - start) / 1000;
  pair.close();
  return seconds;
}

/** Seconds to bounce one message of `size` bytes back and forth `trips` times. */
async function bounceOurs(size: number, trips: number): Promise<number> {
  const pair = await connectedPair();
  let inbound = 0;
  pair.in.on("data", (chunk: Buffer) => {
    inbound += chunk.length;
    if (inbound >= size) {
      inbound -= size;
      pair.in.write(Buffer.alloc(size));
    }
  });
  const message = Buffer.alloc(size, 0x5a);
  const start = performance.now();
  await new Promise<void>((resolve) => {
    let left = trips;
    let back = 0;
    pair.out.on("data", (chunk: Buffer) => {
      back += chunk.length;
      if (back < size) return;
      back -= size;
      if (--left === 0) resolve();
      else pair.out.write(message);
    });
    pair.out.write(message);
  });
  const seconds = (performance.now() - start) / 1000;
  pair.close();
  return seconds;
}

const conformanceDir = join(fileURLToPath(new URL(".", import.meta.url)), "..", "..", "conformance");

async function buildGoPeer(): Promise<string | undefined> {
  const binary = join(conformanceDir, "bin", "mux-peer");
  try {
    await run("go", ["build", "-o", binary, "./cmd/mux-peer"], { cwd: conformanceDir });
    return binary;
  } catch (error) {
    console.log(`Go side skipped: ${(error as Error).message.split("\n")[0]}`);
    return undefined;
  }
}

/** Seconds mux-peer reports, or undefined when that run failed (its stderr says why). */
async function goSeconds(binary: string, args: string[]): Promise<number | undefined> {
  try {
    const { stdout } = await run(binary, ["-bench", ...args]);
    return (JSON.parse(stdout) as { seconds: number }).seconds;
  } catch (error) {
    console.log(`a Go run failed: ${(error as { stderr?: string }).stderr?.trim() ?? String(error)}`);
    return undefined;
  }
}

/**
 * Fastest of REPEATS runs of each side, alternating ours and Go's so that
 * both meet the same load on a shared machine.
 */
async function bestOfBoth(
  ours: () => Promise<number>,
  go: (() => Promise<number | undefined>) | undefined,
): Promise<[number, number]> {
  let fastestOurs = Number.POSITIVE_INFINITY;
  let fastestGo = Number.POSITIVE_INFINITY;
  for (let i = 0; i < REPEATS; i++) {
    fastestOurs = Math.min(fastestOurs, await ours());
    fastestGo = Math.min(fastestGo, (await go?.()) ?? Number.POSITIVE_INFINITY);
  }
  return [fastestOurs, fastestGo];
}

interface Row {
  case: string;
  ours: string;
  go: string;
  "ours / go": string;
}

function row(name: string, ours: number, go: number, unit: string, scale: number): Row {
  const format = (rate: number): string =>
    Number.isFinite(rate) && rate > 0 ? `${(rate / scale).toFixed(1)} ${unit}` : "n/a";
  return { case: name, ours: format(ours), go: format(go), "ours / go": go > 0 ? (ours / go).toFixed(2) : "n/a" };
}

async function main(): Promise<void> {
  const binary = await buildGoPeer();
  const rows: Row[] = [];
  const results: BenchResult[] = [];
  const record = (what: string, ours: number, go: number, unit: string) =>
    results.push(
      result({
        group: "mux",
        what,
        ours,
        go: Number.isFinite(go) && go > 0 ? go : null,
        unit,
        target: null,
        note: `fastest of ${REPEATS} runs`,
      }),
    );
  const total = (smoke ? 4 : 128) * MiB;
  // Go's own mux overflows its 256-frame read queue when small messages are
  // streamed without pause, so streaming uses 64 KiB and 1 MiB messages.
  for (const size of [64 * 1024, MiB]) {
    const [ours, go] = await bestOfBoth(
      () => streamOurs(size, total),
      binary === undefined ? undefined : () => goSeconds(binary, ["-size", String(size), "-total", String(total)]),
    );
    rows.push(row(`stream ${size / 1024} KiB messages`, total / ours, total / go, "MiB/s", MiB));
    record(`stream ${size / 1024} KiB messages`, total / ours / MiB, total / go / MiB, "MiB/s");
  }
  const trips = smoke ? 200 : 20_000;
  for (const size of [100, 4096]) {
    const [ours, go] = await bestOfBoth(
      () => bounceOurs(size, trips),
      binary === undefined ? undefined : () => goSeconds(binary, ["-size", String(size), "-roundtrips", String(trips)]),
    );
    rows.push(row(`round trips of ${size} B`, trips / ours, trips / go, "k/s", 1000));
    record(`round trips of ${size} B`, trips / ours / 1000, trips / go / 1000, "k/s");
  }
  console.table(rows);
  recordResults(results);
}

await main();
