/**
 * CreateContainer round trips through the real Go adaptation
 * (packages/conformance/cmd/stub-host) with one no-op plugin: ours
 * (noop-plugin.mjs, on the built @nri-ts/stub) against the Go stub's
 * (`stub-host plugin`), in the same run, alternating. The Go side times each
 * call. Measured:
 * - the first 100 calls after registration, over BENCH_COLD_RUNS fresh pairs
 *   of plugins (a JIT has not warmed up yet; Go's code is compiled ahead);
 * - BENCH_ROUNDS alternating rounds of BENCH_CALLS calls after BENCH_WARMUP
 *   warm-up calls, on the last pair;
 * - each plugin's resident memory while idle after registration, beside an
 *   idle `node -e` (bare Node.js).
 *
 *   npm run bench            (builds, needs Go)
 *   BENCH_ROUNDS=20 BENCH_CALLS=2000 npm run bench
 *   BENCH_PLUGIN_NODE_ARGS="--cpu-prof" npm run bench   (node flags for our plugin)
 *   NRI_BENCH_SMOKE=1 npm run bench                     (a short run that proves it works)
 *
 * The figures go to the file NRI_BENCH_RESULTS names, as @nri-ts/bench has them.
 */
import { execFile, spawn } from "node:child_process";
import { once } from "node:events";
import { mkdtemp, readdir, readFile, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { setTimeout as sleep } from "node:timers/promises";
import { fileURLToPath } from "node:url";
import { promisify } from "node:util";
import { quantiles, recordResults, result, smoke } from "@nri-ts/bench";
import { spawnGoPlugin, StubHost } from "../../conformance/fixtures/stub/harness.js";

const here = dirname(fileURLToPath(import.meta.url));
const conformanceDir = join(here, "../../conformance");
const setting = (name: string, normal: number, short: number) => Number(process.env[name] ?? (smoke ? short : normal));
const rounds = setting("BENCH_ROUNDS", 10, 1);
const calls = setting("BENCH_CALLS", 1000, 20);
const warmup = setting("BENCH_WARMUP", 2000, 20);
const coldRuns = setting("BENCH_COLD_RUNS", 5, 1);
const idleMs = setting("BENCH_IDLE_MS", 2000, 200);
const FIRST_CALLS = 100;
const pluginNodeArgs = (process.env.BENCH_PLUGIN_NODE_ARGS ?? "").split(" ").filter(Boolean);

const request = { pod: { id: "pod-1", name: "bench" }, container: { id: "ctr-1", podSandboxId: "pod-1", name: "c" } };

type Kind = "go" | "ts";
const KINDS = ["go", "ts"] as const;

async function rssMiB(pid: number): Promise<number> {
  const status = await readFile(`/proc/${pid}/status`, "utf8");
  return Number(/^VmRSS:\s+(\d+) kB$/m.exec(status)?.[1]) / 1024;
}

/** On-CPU nanoseconds of all threads of a process so far (Linux schedstat: finer than /proc/PID/stat's ticks). */
async function cpuNs(pid: number): Promise<number> {
  let sum = 0;
  for (const task of await readdir(`/proc/${pid}/task`)) {
    const stat = await readFile(`/proc/${pid}/task/${task}/schedstat`, "utf8").catch(() => "0");
    sum += Number(stat.split(" ")[0]);
  }
  return sum;
}

function percentile(sorted: readonly number[], p: number): number {
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))]!;
}

function summary(samples: readonly number[]): { p50: number; p99: number; mean: number } {
  const sorted = [...samples].sort((a, b) => a - b);
  return { p50: percentile(sorted, 50), p99: percentile(sorted, 99), mean: sorted.reduce((s, x) => s + x, 0) / sorted.length };
}

const median = (values: readonly number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)]!;

/** One Go adaptation per plugin, each plugin registered and synchronized, and an idle bare Node.js beside them. */
class Pair {
  readonly #hosts: Record<Kind, StubHost>;
  readonly #go: ReturnType<typeof spawnGoPlugin>;
  readonly #ts: ReturnType<typeof spawn>;
  readonly #bare: ReturnType<typeof spawn>;

  private constructor(hosts: Record<Kind, StubHost>, socket: (kind: Kind) => string, bin: string) {
    this.#hosts = hosts;
    this.#go = spawnGoPlugin(bin, ["-socket", socket("go"), "-idx", "10", "-name", "noop-go", "-events", "CreateContainer"]);
    this.#ts = spawn(process.execPath, [...pluginNodeArgs, join(here, "noop-plugin.mjs"), socket("ts")], { stdio: "inherit" });
    this.#bare = spawn(process.execPath, ["-e", "setInterval(() => {}, 1000)"], { stdio: "ignore" });
  }

  /** Starts both adaptations, then the plugins; resolves once both plugins are synchronized. */
  static async start(bin: string, dir: string, run: number): Promise<Pair> {
    const socket = (kind: Kind) => join(dir, `${kind}-${run}.sock`);
    const hosts = { go: new StubHost(bin, { socket: socket("go") }), ts: new StubHost(bin, { socket: socket("ts") }) };
    await Promise.all(KINDS.map((kind) => hosts[kind].call("start")));
    const pair = new Pair(hosts, socket, bin);
    await Promise.all(KINDS.map((kind) => hosts[kind].call("wait-sync", { count: 1 })));
    return pair;
  }

  /** On-CPU nanoseconds of each plugin so far. */
  async cpu(): Promise<Record<Kind, number>> {
    return { go: await cpuNs(this.#go.child.pid!), ts: await cpuNs(this.#ts.pid!) };
  }

  async rss(): Promise<{ go: number; ts: number; bare: number }> {
    return { go: await rssMiB(this.#go.child.pid!), ts: await rssMiB(this.#ts.pid!), bare: await rssMiB(this.#bare.pid!) };
  }

  /** Nanoseconds of each of `count` CreateContainer calls through one adaptation. */
  async bench(kind: Kind, count: number): Promise<number[]> {
    const reply = await this.#hosts[kind].call<{ ns: Array<number | string> }>("bench", { count, request });
    return reply!.ns.map(Number);
  }

  async stop(): Promise<void> {
    this.#bare.kill();
    this.#go.child.kill();
    this.#ts.kill(); // SIGTERM: it stops cleanly before its runtime goes away
    await Promise.all([this.#go.exited, this.#ts.exitCode === null ? once(this.#ts, "exit") : undefined]);
    await Promise.all(KINDS.map((kind) => this.#hosts[kind].stop()));
  }
}

const us = (ns: number): string => (ns / 1000).toFixed(1);
const row = (...cells: string[]): void => console.log(`| ${cells.join(" | ")} |`);

async function main(): Promise<void> {
  const dir = await mkdtemp(join(tmpdir(), "nri-stub-bench-"));
  const bin = join(dir, "stub-host");
  await promisify(execFile)("go", ["build", "-o", bin, "./cmd/stub-host"], { cwd: conformanceDir });
  const cold: Record<Kind, number[]> = { go: [], ts: [] };
  const warm: Record<Kind, number[]> = { go: [], ts: [] };
  const warmCpuNs: Record<Kind, number> = { go: 0, ts: 0 };
  const idle: Array<{ go: number; ts: number; bare: number }> = [];
  try {
    for (let run = 0; run < coldRuns; run++) {
      const pair = await Pair.start(bin, dir, run);
      try {
        await sleep(idleMs);
        idle.push(await pair.rss());
        // who goes first alternates: the other one waits idle meanwhile
        for (const kind of run % 2 === 0 ? KINDS : [...KINDS].reverse()) cold[kind].push(...(await pair.bench(kind, FIRST_CALLS)));
        if (run < coldRuns - 1) continue;
        for (const kind of KINDS) await pair.bench(kind, warmup);
        for (let round = 0; round < rounds; round++) {
          for (const kind of KINDS) {
            const before = await pair.cpu();
            warm[kind].push(...(await pair.bench(kind, calls)));
            warmCpuNs[kind] += (await pair.cpu())[kind] - before[kind];
          }
        }
      } finally {
        await pair.stop();
      }
    }
  } finally {
    await rm(dir, { recursive: true, force: true });
  }

  const rss = { go: median(idle.map((x) => x.go)), ts: median(idle.map((x) => x.ts)), bare: median(idle.map((x) => x.bare)) };
  const stats = { cold: { go: summary(cold.go), ts: summary(cold.ts) }, warm: { go: summary(warm.go), ts: summary(warm.ts) } };
  const ratio = (a: number, b: number) => `${(a / b).toFixed(2)}`;
  console.log("CreateContainer round trip through the Go adaptation, one no-op plugin");
  console.log(
    `first ${FIRST_CALLS} calls after registration of ${coldRuns} fresh plugins each; then ${rounds} alternating rounds of ${calls} calls after ${warmup} warm-up calls; node ${process.version}`,
  );
  console.log("");
  const cpuPerCall = { go: warmCpuNs.go / warm.go.length, ts: warmCpuNs.ts / warm.ts.length };
  row("plugin", "first 100 p50 µs", "first 100 p99 µs", "warm p50 µs", "warm p99 µs", "warm mean µs", "plugin CPU µs/call", "idle RSS MiB");
  row("---", "---", "---", "---", "---", "---", "---", "---");
  for (const [name, kind] of [["Go pkg/stub", "go"], ["@nri-ts/stub", "ts"]] as const) {
    const { cold: c, warm: w } = { cold: stats.cold[kind], warm: stats.warm[kind] };
    row(name, us(c.p50), us(c.p99), us(w.p50), us(w.p99), us(w.mean), us(cpuPerCall[kind]), rss[kind].toFixed(1));
  }
  const { cold: c, warm: w } = stats;
  row("ratio ours/Go", ratio(c.ts.p50, c.go.p50), ratio(c.ts.p99, c.go.p99), ratio(w.ts.p50, w.go.p50), ratio(w.ts.p99, w.go.p99), ratio(w.ts.mean, w.go.mean), ratio(cpuPerCall.ts, cpuPerCall.go), ratio(rss.ts, rss.go));
  console.log("");
  console.log(`An idle bare Node.js (node -e): ${rss.bare.toFixed(1)} MiB RSS; ours is ${(rss.ts - rss.bare).toFixed(1)} MiB above it.`);

  const what = "CreateContainer hook under the Go adaptation";
  const warmNote = `${rounds} alternating rounds of ${calls} calls after ${warmup} warm-up calls, one no-op plugin, timed by the Go adaptation`;
  const coldNote = `the first ${FIRST_CALLS} calls after registration, ${coldRuns} fresh plugins each, pooled`;
  const microseconds = (ns: readonly number[]) => quantiles(ns).map((x) => x / 1000);
  recordResults([
    result({
      group: "stub",
      what: `${what}, p50 after warm-up`,
      ours: w.ts.p50 / 1000,
      go: w.go.p50 / 1000,
      unit: "µs",
      target: "<= 0.8x",
      note: warmNote,
      distribution: { unit: "µs", ours: microseconds(warm.ts), go: microseconds(warm.go) },
    }),
    result({ group: "stub", what: `${what}, p99 after warm-up`, ours: w.ts.p99 / 1000, go: w.go.p99 / 1000, unit: "µs", target: "<= 1.0x", note: warmNote }),
    result({
      group: "stub",
      what: `${what}, the plugin's CPU time per call after warm-up`,
      ours: cpuPerCall.ts / 1000,
      go: cpuPerCall.go / 1000,
      unit: "µs",
      target: null,
      note: `on-CPU time of all the plugin's threads (schedstat) over the timed rounds; other load disturbs it less than wall-clock time`,
    }),
    result({
      group: "stub",
      what: `${what}, p50 of the first ${FIRST_CALLS} calls`,
      ours: c.ts.p50 / 1000,
      go: c.go.p50 / 1000,
      unit: "µs",
      target: "<= 2x",
      note: coldNote,
      distribution: { unit: "µs", ours: microseconds(cold.ts), go: microseconds(cold.go) },
    }),
    result({ group: "stub", what: `${what}, p99 of the first ${FIRST_CALLS} calls`, ours: c.ts.p99 / 1000, go: c.go.p99 / 1000, unit: "µs", target: "<= 2x", note: coldNote }),
    result({
      group: "stub",
      what: "idle plugin RSS",
      ours: rss.ts,
      go: rss.go,
      unit: "MiB",
      // the target is on ours: bare Node.js measured in this run, plus 8 MiB
      target: `<= ${(rss.bare + 8).toFixed(1)} MiB`,
      note: `${idleMs} ms after registration, median of ${coldRuns} plugins; target: bare Node.js (node -e, ${rss.bare.toFixed(1)} MiB here) + 8 MiB`,
    }),
    result({
      group: "stub",
      what: "idle bare Node.js RSS (node -e), for scale",
      ours: rss.bare,
      go: null,
      unit: "MiB",
      target: null,
      note: `beside each plugin pair, median of ${coldRuns}`,
    }),
  ]);
}

await main();
