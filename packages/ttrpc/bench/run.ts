// Benchmarks @nri-ts/ttrpc against Go's ttrpc (v1.2.7) in one run:
// unary Echo round trips on one unix socket connection, for every pairing of
// client and server (TS→TS, Go→Go, TS→Go, Go→TS) with 1, 16 and 64 calls in
// flight, then the frame codec alone. Prints a table with ratios against
// Go→Go, and the CPU time each side spent per call (which other load on the
// machine disturbs less than wall-clock figures); last, how long closing a
// connection with many open calls stalls the event loop (bench/teardown.ts). BENCH_SECONDS sets the
// seconds per cell and round (default 1), BENCH_ROUNDS the rounds (default 3). The headline
// figures (TS→TS against Go→Go) go to the file NRI_BENCH_RESULTS names, as @nri-ts/bench has them.
//
//   npm run bench            (from packages/ttrpc; needs Go for the Go cells)
//   NRI_BENCH_SMOKE=1 npm run bench   (a short run that proves it works)
import { execFile, spawn } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { createInterface } from "node:readline";
import { fileURLToPath } from "node:url";
import { promisify } from "node:util";
import { recordResults, result, smoke } from "@nri-ts/bench";
import { connect, createClient } from "../src/index.js";
import { benchCodec } from "./codec.js";
import { benchTeardown } from "./teardown.js";
import { EchoDefinition } from "./echo-service.js";

const SECONDS = Number(process.env.BENCH_SECONDS ?? (smoke ? 0.05 : 1));
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? (smoke ? 1 : 3));
const VALUE_BYTES = 64;
const IN_FLIGHT = [1, 16, 64];
const here = dirname(fileURLToPath(import.meta.url));
const work = mkdtempSync(join(tmpdir(), "nri-ts-ttrpc-bench-"));

interface Cell {
  calls: number;
  callsPerSecond: number;
  p50Us: number;
  p99Us: number;
  /** Calls made before the measured ones, to warm up. */
  warmupCalls: number;
  /** The client's CPU time during the measured calls. */
  cpuSeconds: number;
}

/** A cell with the server's CPU time per call. */
interface Result extends Cell {
  serverCpuUsPerCall: number;
}

/** User and system time of a process so far, from /proc (Linux), in seconds. */
function processCpuSeconds(pid: number): number {
  const fields = readFileSync(`/proc/${pid}/stat`, "utf8").split(") ")[1].split(" ");
  return (Number(fields[11]) + Number(fields[12])) / 100; // utime, stime in clock ticks of 1/100 s
}

interface RunningServer {
  pid: number;
  stop(): void;
}

type Side = "ts" | "go";

/** Builds cmd/ttrpc-peer of packages/conformance; undefined (with a note) without Go. */
async function buildGoPeer(): Promise<string | undefined> {
  const binary = join(work, "ttrpc-peer");
  try {
    await promisify(execFile)("go", ["build", "-o", binary, "./cmd/ttrpc-peer"], {
      cwd: join(here, "../../conformance"),
    });
    return binary;
  } catch (error) {
    console.warn(`Go cells skipped: ${(error as Error).message.split("\n")[0]}`);
    return undefined;
  }
}

/** Starts a server process; resolves once it prints {"ready":true}. */
async function startServer(side: Side, socket: string, goPeer: string | undefined): Promise<RunningServer> {
  const child =
    side === "go"
      ? spawn(goPeer as string, ["serve", "-socket", socket])
      : spawn(process.execPath, ["--import", "tsx", "--conditions=@nri-ts/source", join(here, "ts-server.ts"), socket]);
  child.stderr.pipe(process.stderr);
  const lines = createInterface({ input: child.stdout });
  await new Promise<void>((resolve, reject) => {
    lines.once("line", () => resolve());
    child.once("exit", (code) => reject(new Error(`${side} server exited with ${code}`)));
  });
  return {
    pid: child.pid as number,
    stop() {
      child.stdin.end();
      child.kill();
    },
  };
}

/** Our client: `inFlight` loops of Echo calls for SECONDS, after a tenth of that to warm up. */
async function tsClientCell(socket: string, inFlight: number): Promise<Cell> {
  const channel = await connect(socket);
  const client = createClient(EchoDefinition, channel);
  const request = { key: "bench", value: "x".repeat(VALUE_BYTES) };
  const run = async (seconds: number, latencies: number[]) => {
    const end = performance.now() + seconds * 1000;
    await Promise.all(
      Array.from({ length: inFlight }, async () => {
        while (performance.now() < end) {
          const start = performance.now();
          await client.echo(request);
          latencies.push(performance.now() - start);
        }
      }),
    );
  };
  const warmup: number[] = [];
  await run(SECONDS / 10, warmup);
  const latencies: number[] = [];
  const cpuBefore = process.cpuUsage();
  const start = performance.now();
  await run(SECONDS, latencies);
  const elapsed = (performance.now() - start) / 1000;
  const cpu = process.cpuUsage(cpuBefore);
  channel.close();
  latencies.sort((a, b) => a - b);
  const quantile = (q: number) => latencies[Math.floor(q * (latencies.length - 1))] * 1000;
  return {
    calls: latencies.length,
    callsPerSecond: latencies.length / elapsed,
    p50Us: quantile(0.5),
    p99Us: quantile(0.99),
    warmupCalls: warmup.length,
    cpuSeconds: (cpu.user + cpu.system) / 1e6,
  };
}

/** Go's client: `ttrpc-peer bench`. */
async function goClientCell(goPeer: string, socket: string, inFlight: number): Promise<Cell> {
  const { stdout } = await promisify(execFile)(goPeer, [
    "bench",
    "-socket",
    socket,
    "-inflight",
    String(inFlight),
    "-duration",
    `${SECONDS * 1000}ms`,
    "-size",
    String(VALUE_BYTES),
  ]);
  return JSON.parse(stdout) as Cell;
}

async function main(): Promise<void> {
  const goPeer = await buildGoPeer();
  const sides: Side[] = goPeer === undefined ? ["ts"] : ["ts", "go"];
  const pairs: Array<[Side, Side]> = (
    [
      ["ts", "ts"],
      ["go", "go"],
      ["ts", "go"],
      ["go", "ts"],
    ] as Array<[Side, Side]>
  ).filter(([client, server]) => sides.includes(client) && sides.includes(server));
  const servers = new Map<Side, RunningServer & { socket: string }>();
  for (const side of sides) {
    const socket = join(work, `${side}-server.sock`);
    servers.set(side, { ...(await startServer(side, socket, goPeer)), socket });
  }
  // rounds interleave the cells, so that a burst of other load on the
  // machine hits all of them alike; each cell reports its median round
  const rounds = new Map<string, Result[]>();
  try {
    for (let round = 0; round < ROUNDS; round++) {
      for (const inFlight of IN_FLIGHT) {
        for (const [client, server] of pairs) {
          const running = servers.get(server) as RunningServer & { socket: string };
          const serverCpuBefore = processCpuSeconds(running.pid);
          const cell =
            client === "go"
              ? await goClientCell(goPeer as string, running.socket, inFlight)
              : await tsClientCell(running.socket, inFlight);
          // the server's time covers the warm-up calls too
          const serverCpu = processCpuSeconds(running.pid) - serverCpuBefore;
          const serverCpuUsPerCall = (serverCpu * 1e6) / (cell.calls + cell.warmupCalls);
          const key = `${client}-${server}-${inFlight}`;
          rounds.set(key, [...(rounds.get(key) ?? []), { ...cell, serverCpuUsPerCall }]);
        }
      }
    }
  } finally {
    for (const running of servers.values()) running.stop();
    // the Go peer's binary and the sockets: a bench leaves nothing behind
    rmSync(work, { recursive: true, force: true });
  }
  const results = new Map<string, Result>();
  for (const [key, cells] of rounds) {
    const sorted = [...cells].sort((a, b) => a.callsPerSecond - b.callsPerSecond);
    results.set(key, sorted[Math.floor(sorted.length / 2)]);
  }

  const name = (side: Side) => (side === "ts" ? "TS" : "Go");
  const rows = [
    [
      "client → server",
      "in flight",
      "calls/s",
      "p50 µs",
      "p99 µs",
      "calls/s vs Go→Go",
      "p50 vs Go→Go",
      "CPU µs/call client + server",
    ],
  ];
  for (const [client, server] of pairs) {
    for (const inFlight of IN_FLIGHT) {
      const cell = results.get(`${client}-${server}-${inFlight}`);
      if (!cell) continue;
      const go = results.get(`go-go-${inFlight}`);
      rows.push([
        `${name(client)} → ${name(server)}`,
        String(inFlight),
        cell.callsPerSecond.toFixed(0),
        cell.p50Us.toFixed(0),
        cell.p99Us.toFixed(0),
        go ? `${(cell.callsPerSecond / go.callsPerSecond).toFixed(2)}×` : "-",
        go ? `${(cell.p50Us / go.p50Us).toFixed(2)}×` : "-",
        `${((cell.cpuSeconds * 1e6) / cell.calls).toFixed(1)} + ${cell.serverCpuUsPerCall.toFixed(1)}`,
      ]);
    }
  }
  console.log(
    `\nUnary Echo (${VALUE_BYTES}-byte value) over one unix socket connection: ${SECONDS} s per cell, median of ${ROUNDS} rounds`,
  );
  printTable(rows);

  recordResults(headlines(results));

  console.log("\nFrame codec (one core)");
  printTable([
    ["frame data", "encode MB/s", "decode MB/s"],
    ...benchCodec().map((r) => [r.label, r.encodeMBps.toFixed(0), r.decodeMBps.toFixed(0)]),
  ]);

  console.log("\nClosing a connection with open calls (half unary, half bidirectional streams)");
  printTable([
    ["side", "open calls", "teardown ms", "longest event-loop stall ms"],
    ...(await benchTeardown(smoke ? [1000] : undefined)).map((r) => [
      r.side,
      String(r.calls),
      r.teardownMs.toFixed(0),
      r.longestStallMs.toFixed(0),
    ]),
  ]);
}

/** The figures: our client and server against Go's client and server, in flight 64 and 1. */
function headlines(results: ReadonlyMap<string, Result>) {
  const ours = (inFlight: number) => results.get(`ts-ts-${inFlight}`);
  const go = (inFlight: number) => results.get(`go-go-${inFlight}`) ?? null;
  const note = (inFlight: number) =>
    `unary Echo (${VALUE_BYTES}-byte value), ${inFlight} in flight on one unix socket, TS client → TS server against Go → Go; ${SECONDS} s per cell, median of ${ROUNDS} interleaved rounds`;
  const figure = (
    inFlight: number,
    what: string,
    unit: string,
    target: string | null,
    pick: (cell: Result) => number,
  ) => {
    const goCell = go(inFlight);
    return result({
      group: "ttrpc",
      what,
      ours: pick(ours(inFlight)!),
      go: goCell && pick(goCell),
      unit,
      target,
      note: note(inFlight),
    });
  };
  return [
    figure(64, "Echo throughput, 64 in flight", "calls/s", ">= 1.5x", (cell) => cell.callsPerSecond),
    figure(1, "Echo p99, 1 in flight", "µs", "<= 1.0x", (cell) => cell.p99Us),
    figure(1, "Echo p50, 1 in flight", "µs", null, (cell) => cell.p50Us),
    figure(1, "Echo throughput, 1 in flight", "calls/s", null, (cell) => cell.callsPerSecond),
    figure(64, "Echo p99, 64 in flight", "µs", null, (cell) => cell.p99Us),
    // what CPU contention disturbs least: under load, Go's several threads per process get more of the CPU than Node's one
    figure(64, "Echo CPU time per call, client + server, 64 in flight", "µs", null, cpuUsPerCall),
    figure(1, "Echo CPU time per call, client + server, 1 in flight", "µs", null, cpuUsPerCall),
  ];
}

/** The client's and the server's CPU time per call, together. */
function cpuUsPerCall(cell: Result): number {
  return (cell.cpuSeconds * 1e6) / cell.calls + cell.serverCpuUsPerCall;
}

function printTable(rows: string[][]): void {
  const widths = rows[0].map((_, column) => Math.max(...rows.map((row) => row[column].length)));
  for (const [index, row] of rows.entries()) {
    console.log(`| ${row.map((cell, column) => cell.padEnd(widths[column])).join(" | ")} |`);
    if (index === 0) console.log(`|${widths.map((width) => "-".repeat(width + 2)).join("|")}|`);
  }
}

await main();
