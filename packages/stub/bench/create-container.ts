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
import { type ChildProcess, execFile, spawn } from "node:child_process";
import { once } from "node:events";
import { mkdtemp, readdir, readFile, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { setTimeout as sleep } from "node:timers/promises";
import { fileURLToPath } from "node:url";
import { promisify } from "node:util";
import { quantiles, recordResults, result, smoke } from "@nri-ts/bench";
import { build } from "esbuild";
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
/** Gives the CommonJS dependencies inside an ESM bundle their `require` (of Node's built-in modules). */
const BUNDLE_BANNER = "import { createRequire } from 'node:module'; const require = createRequire(import.meta.url);";
const pluginNodeArgs = (process.env.BENCH_PLUGIN_NODE_ARGS ?? "").split(" ").filter(Boolean);

const request = { pod: { id: "pod-1", name: "bench" }, container: { id: "ctr-1", podSandboxId: "pod-1", name: "c" } };

/** Go's stub; ours as installed (node_modules); ours bundled into one file (esbuild). */
type Kind = "go" | "ts" | "bundle";
const KINDS = ["go", "ts", "bundle"] as const;
/** The two whose calls are timed after warm-up: the bundle runs the same code. */
const WARM_KINDS = ["go", "ts"] as const;
const NAMES: Record<Kind, string> = { go: "Go pkg/stub", ts: "@nri-ts/stub", bundle: "@nri-ts/stub, bundled" };

/** A memory figure of /proc/PID/status in MiB: VmRSS, or RssAnon (the part that is not file-backed pages, such as the node binary's). */
async function statusMiB(pid: number, field: "VmRSS" | "RssAnon"): Promise<number> {
  const status = await readFile(`/proc/${pid}/status`, "utf8");
  return Number(new RegExp(`^${field}:\\s+(\\d+) kB$`, "m").exec(status)?.[1]) / 1024;
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
  return {
    p50: percentile(sorted, 50),
    p99: percentile(sorted, 99),
    mean: sorted.reduce((s, x) => s + x, 0) / sorted.length,
  };
}

const median = (values: readonly number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)]!;

/** One Go adaptation per plugin, each plugin registered and synchronized, and an idle bare Node.js beside them. */
class Plugins {
  readonly #hosts: Record<Kind, StubHost>;
  readonly #children: Record<Kind, ChildProcess>;
  readonly #bare: ChildProcess;

  private constructor(hosts: Record<Kind, StubHost>, socket: (kind: Kind) => string, bin: string, bundle: string) {
    this.#hosts = hosts;
    const node = (script: string, kind: Kind) =>
      spawn(process.execPath, [...pluginNodeArgs, script, socket(kind)], { stdio: "inherit" });
    this.#children = {
      go: spawnGoPlugin(bin, ["-socket", socket("go"), "-idx", "10", "-name", "noop-go", "-events", "CreateContainer"])
        .child,
      ts: node(join(here, "noop-plugin.mjs"), "ts"),
      bundle: node(bundle, "bundle"),
    };
    this.#bare = spawn(process.execPath, ["-e", "setInterval(() => {}, 1000)"], { stdio: "ignore" });
  }

  /** Starts the adaptations, then the plugins; resolves once every plugin is synchronized. */
  static async start(bin: string, bundle: string, dir: string, run: number): Promise<Plugins> {
    const socket = (kind: Kind) => join(dir, `${kind}-${run}.sock`);
    const hosts = Object.fromEntries(
      KINDS.map((kind) => [kind, new StubHost(bin, { socket: socket(kind) })]),
    ) as Record<Kind, StubHost>;
    await Promise.all(KINDS.map((kind) => hosts[kind].call("start")));
    const plugins = new Plugins(hosts, socket, bin, bundle);
    await Promise.all(KINDS.map((kind) => hosts[kind].call("wait-sync", { count: 1 })));
    return plugins;
  }

  /** On-CPU nanoseconds of each plugin so far. */
  async cpu(): Promise<Record<Kind, number>> {
    return this.#each((child) => cpuNs(child.pid!));
  }

  /** Resident memory of each plugin, and of the bare Node.js (all of it, or its anonymous part). */
  async rss(field: "VmRSS" | "RssAnon" = "VmRSS"): Promise<Record<Kind | "bare", number>> {
    return {
      ...(await this.#each((child) => statusMiB(child.pid!, field))),
      bare: await statusMiB(this.#bare.pid!, field),
    };
  }

  /** Nanoseconds of each of `count` CreateContainer calls through one adaptation. */
  async bench(kind: Kind, count: number): Promise<number[]> {
    const reply = await this.#hosts[kind].call<{ ns: Array<number | string> }>("bench", { count, request });
    return reply!.ns.map(Number);
  }

  async stop(): Promise<void> {
    this.#bare.kill();
    // SIGTERM: ours stop cleanly before their runtime goes away
    const exits = KINDS.map((kind) => this.#children[kind]).map((child) =>
      child.exitCode === null && child.signalCode === null ? once(child, "exit") : undefined,
    );
    for (const kind of KINDS) this.#children[kind].kill();
    await Promise.all(exits);
    await Promise.all(KINDS.map((kind) => this.#hosts[kind].stop()));
  }

  async #each(measure: (child: ChildProcess) => Promise<number>): Promise<Record<Kind, number>> {
    const values = await Promise.all(KINDS.map((kind) => measure(this.#children[kind])));
    return Object.fromEntries(KINDS.map((kind, i) => [kind, values[i]])) as Record<Kind, number>;
  }
}

const us = (ns: number): string => (ns / 1000).toFixed(1);
const row = (...cells: string[]): void => console.log(`| ${cells.join(" | ")} |`);

const perKind = <T>(make: () => T): Record<Kind, T> => ({ go: make(), ts: make(), bundle: make() });

async function main(): Promise<void> {
  const dir = await mkdtemp(join(tmpdir(), "nri-stub-bench-"));
  const bin = join(dir, "stub-host");
  const bundle = join(dir, "noop-plugin.bundle.mjs");
  await promisify(execFile)("go", ["build", "-o", bin, "./cmd/stub-host"], { cwd: conformanceDir });
  // what a deployment may ship: the plugin and its dependencies in one file, made as the README says
  await build({
    entryPoints: [join(here, "noop-plugin.mjs")],
    bundle: true,
    platform: "node",
    format: "esm",
    banner: { js: BUNDLE_BANNER },
    outfile: bundle,
    logLevel: "warning",
  });
  const cold = perKind((): number[] => []);
  const warm = perKind((): number[] => []);
  const warmCpuNs = perKind(() => 0);
  const idle: Array<Record<Kind | "bare", number>> = [];
  const idleAnon: Array<Record<Kind | "bare", number>> = [];
  const startCpu: Array<Record<Kind, number>> = [];
  try {
    for (let run = 0; run < coldRuns; run++) {
      const plugins = await Plugins.start(bin, bundle, dir, run);
      try {
        await sleep(idleMs);
        idle.push(await plugins.rss());
        idleAnon.push(await plugins.rss("RssAnon"));
        startCpu.push(await plugins.cpu());
        // who goes first rotates: the others wait idle meanwhile
        const order = [...KINDS.slice(run % KINDS.length), ...KINDS.slice(0, run % KINDS.length)];
        for (const kind of order) cold[kind].push(...(await plugins.bench(kind, FIRST_CALLS)));
        if (run < coldRuns - 1) continue;
        for (const kind of WARM_KINDS) await plugins.bench(kind, warmup);
        for (let round = 0; round < rounds; round++) {
          for (const kind of WARM_KINDS) {
            const before = await plugins.cpu();
            warm[kind].push(...(await plugins.bench(kind, calls)));
            warmCpuNs[kind] += (await plugins.cpu())[kind] - before[kind];
          }
        }
      } finally {
        await plugins.stop();
      }
    }
  } finally {
    await rm(dir, { recursive: true, force: true });
  }

  const rss = { ...perKind(() => 0), bare: median(idle.map((x) => x.bare)) };
  for (const kind of KINDS) rss[kind] = median(idle.map((x) => x[kind]));
  const anon = (kind: Kind | "bare") => median(idleAnon.map((x) => x[kind]));
  const startMs = perKind(() => 0);
  for (const kind of KINDS) startMs[kind] = median(startCpu.map((x) => x[kind])) / 1e6;
  const c = perKind(() => summary([0]));
  for (const kind of KINDS) c[kind] = summary(cold[kind]);
  const w = { go: summary(warm.go), ts: summary(warm.ts) };
  const cpuPerCall = { go: warmCpuNs.go / warm.go.length, ts: warmCpuNs.ts / warm.ts.length };

  const ratio = (a: number, b: number) => `${(a / b).toFixed(2)}`;
  console.log("CreateContainer round trip through the Go adaptation, one no-op plugin");
  console.log(
    `first ${FIRST_CALLS} calls after registration of ${coldRuns} fresh plugins each; then ${rounds} alternating rounds of ${calls} calls after ${warmup} warm-up calls; node ${process.version}`,
  );
  console.log("");
  row(
    "plugin",
    "first 100 p50 µs",
    "first 100 p99 µs",
    "warm p50 µs",
    "warm p99 µs",
    "warm mean µs",
    "CPU µs/call",
    "CPU ms to register",
    "idle RSS MiB",
  );
  row("---", "---", "---", "---", "---", "---", "---", "---", "---");
  for (const kind of KINDS) {
    const timed = kind === "bundle" ? undefined : { w: w[kind], cpu: cpuPerCall[kind] };
    const warmCells = timed
      ? [us(timed.w.p50), us(timed.w.p99), us(timed.w.mean), us(timed.cpu)]
      : ["–", "–", "–", "–"];
    row(NAMES[kind], us(c[kind].p50), us(c[kind].p99), ...warmCells, startMs[kind].toFixed(1), rss[kind].toFixed(1));
  }
  for (const kind of ["ts", "bundle"] as const) {
    const warmCells =
      kind === "ts"
        ? [
            ratio(w.ts.p50, w.go.p50),
            ratio(w.ts.p99, w.go.p99),
            ratio(w.ts.mean, w.go.mean),
            ratio(cpuPerCall.ts, cpuPerCall.go),
          ]
        : ["–", "–", "–", "–"];
    row(
      `ratio ${kind === "ts" ? "ours" : "bundled"}/Go`,
      ratio(c[kind].p50, c.go.p50),
      ratio(c[kind].p99, c.go.p99),
      ...warmCells,
      ratio(startMs[kind], startMs.go),
      ratio(rss[kind], rss.go),
    );
  }
  console.log("");
  console.log(
    `An idle bare Node.js (node -e): ${rss.bare.toFixed(1)} MiB RSS; ours is ${(rss.ts - rss.bare).toFixed(1)} MiB above it, bundled ${(rss.bundle - rss.bare).toFixed(1)} MiB.`,
  );
  console.log(
    `Anonymous memory (RssAnon, the RSS without file-backed pages such as the node binary's): bare Node.js ${anon("bare").toFixed(1)} MiB, ` +
      `ours ${anon("ts").toFixed(1)}, bundled ${anon("bundle").toFixed(1)}, Go ${anon("go").toFixed(1)}.`,
  );

  const what = "CreateContainer hook under the Go adaptation";
  const warmNote = `${rounds} alternating rounds of ${calls} calls after ${warmup} warm-up calls, one no-op plugin, timed by the Go adaptation`;
  const coldNote = (kind: Kind) =>
    `the first ${FIRST_CALLS} calls after registration, ${coldRuns} fresh plugins each, pooled${kind === "bundle" ? "; ours bundled into one file by esbuild" : ""}`;
  const microseconds = (ns: readonly number[]) => quantiles(ns).map((x) => x / 1000);
  const rssTarget = `<= ${(rss.bare + 8).toFixed(1)} MiB`; // on ours: bare Node.js measured in this run, plus 8 MiB
  const rssNote = (how: string, kind: Kind) =>
    `${how}; ${idleMs} ms after registration, median of ${coldRuns} plugins; target: bare Node.js (node -e, ${rss.bare.toFixed(1)} MiB here) + 8 MiB; ` +
    `anonymous memory (RssAnon) ${anon(kind).toFixed(1)} MiB against bare Node.js's ${anon("bare").toFixed(1)}, the rest file-backed pages, mostly the node binary's`;
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
    result({
      group: "stub",
      what: `${what}, p99 after warm-up`,
      ours: w.ts.p99 / 1000,
      go: w.go.p99 / 1000,
      unit: "µs",
      target: "<= 1.0x",
      note: warmNote,
    }),
    result({
      group: "stub",
      what: `${what}, the plugin's CPU time per call after warm-up`,
      ours: cpuPerCall.ts / 1000,
      go: cpuPerCall.go / 1000,
      unit: "µs",
      target: null,
      note: "on-CPU time of all the plugin's threads (schedstat) over the timed rounds; other load disturbs it less than wall-clock time",
    }),
    ...(["ts", "bundle"] as const).flatMap((kind) =>
      (["p50", "p99"] as const).map((p) =>
        result({
          group: "stub",
          what: `${what}, ${p} of the first ${FIRST_CALLS} calls${kind === "bundle" ? ", bundled plugin" : ""}`,
          ours: c[kind][p] / 1000,
          go: c.go[p] / 1000,
          unit: "µs",
          target: "<= 2x",
          note: coldNote(kind),
          ...(kind === "ts" && p === "p50"
            ? { distribution: { unit: "µs", ours: microseconds(cold.ts), go: microseconds(cold.go) } }
            : {}),
        }),
      ),
    ),
    result({
      group: "stub",
      what: "CPU time to start and register a plugin",
      ours: startMs.ts,
      go: startMs.go,
      unit: "ms",
      target: null,
      note: `all threads, from exec to idle after registration, median of ${coldRuns}; bundled: ${startMs.bundle.toFixed(1)} ms`,
    }),
    result({
      group: "stub",
      what: "idle plugin RSS",
      ours: rss.ts,
      go: rss.go,
      unit: "MiB",
      target: rssTarget,
      note: rssNote("the plugin as installed (node_modules)", "ts"),
    }),
    result({
      group: "stub",
      what: "idle plugin RSS, bundled plugin",
      ours: rss.bundle,
      go: rss.go,
      unit: "MiB",
      target: rssTarget,
      note: rssNote("the same plugin bundled into one ESM file by esbuild", "bundle"),
    }),
    result({
      group: "stub",
      what: "idle bare Node.js RSS (node -e), for scale",
      ours: rss.bare,
      go: null,
      unit: "MiB",
      target: null,
      note: `beside each set of plugins, median of ${coldRuns}`,
    }),
  ]);
}

await main();
