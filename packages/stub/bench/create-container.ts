/**
 * CreateContainer round trips through the real Go adaptation
 * (packages/conformance/cmd/stub-host) with one no-op plugin: ours
 * (noop-plugin.mjs on the built @nri-ts/stub, its compile cache filled by a
 * first start; bundled; and, on Node 26, as a single executable) against
 * the Go stub's (`stub-host plugin`), in the same run, alternating. The Go
 * side times each call. Measured:
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
import { mkdtemp, rm } from "node:fs/promises";
import { homedir, tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { setTimeout as sleep } from "node:timers/promises";
import { fileURLToPath } from "node:url";
import { promisify } from "node:util";
import { quantiles, recordResults, result, smoke } from "@nri-ts/bench";
import { cpuNs, median, statusMiB } from "@nri-ts/bench/process";
import { build } from "esbuild";
import { spawnGoPlugin, StubHost } from "../../conformance/fixtures/stub/harness.js";
// by path, as a script of the repository: tools/ is no dependency of this package
import { buildSea } from "../../../tools/src/sea.js";

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

/**
 * Go's stub; ours as installed (node_modules); ours bundled into one file
 * (esbuild); ours as one executable (`npm run sea`'s way, on a Node.js with
 * `--build-sea`: 25.5 and later).
 */
type Kind = "go" | "ts" | "bundle" | "sea";
const SEA = Number(process.versions.node.split(".")[0]) >= 26;
const KINDS: readonly Kind[] = SEA ? ["go", "ts", "bundle", "sea"] : ["go", "ts", "bundle"];
/** Ours in the ways a plugin may be deployed. */
const OURS = KINDS.filter((kind) => kind !== "go") as Array<Exclude<Kind, "go">>;
/** The two whose calls are timed after warm-up: the bundle and the executable run the same code. */
const WARM_KINDS = ["go", "ts"] as const;
const NAMES: Record<Kind, string> = {
  go: "Go pkg/stub",
  ts: "@nri-ts/stub",
  bundle: "@nri-ts/stub, bundled",
  sea: "@nri-ts/stub, single executable",
};
/** The single executable of the bench's plugin, kept while the bundle is the same (the first build writes 150 MB). */
const SEA_FILE = join(process.env.XDG_CACHE_HOME || join(homedir(), ".cache"), "nri-ts-bench", "noop-plugin-sea");

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

/** One Go adaptation per plugin, each plugin registered and synchronized, and an idle bare Node.js beside them. */
class Plugins {
  readonly #hosts: Record<Kind, StubHost>;
  readonly #children: Record<Kind, ChildProcess>;
  readonly #bare: ChildProcess;

  private constructor(hosts: Record<Kind, StubHost>, socket: (kind: Kind) => string, bin: string, bundle: string) {
    this.#hosts = hosts;
    const node = (script: string, kind: Kind) =>
      spawn(process.execPath, [...pluginNodeArgs, script, socket(kind)], { stdio: "inherit" });
    const start: Record<Kind, () => ChildProcess> = {
      go: () =>
        spawnGoPlugin(bin, ["-socket", socket("go"), "-idx", "10", "-name", "noop-go", "-events", "CreateContainer"])
          .child,
      ts: () => node(join(here, "noop-plugin.mjs"), "ts"),
      bundle: () => node(bundle, "bundle"),
      // node flags reach it through NODE_OPTIONS
      sea: () =>
        spawn(SEA_FILE, [socket("sea")], {
          stdio: "inherit",
          env: { ...process.env, NODE_OPTIONS: pluginNodeArgs.join(" ") },
        }),
    };
    this.#children = Object.fromEntries(KINDS.map((kind) => [kind, start[kind]()])) as Record<Kind, ChildProcess>;
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

  /** On-CPU nanoseconds of the bare Node.js so far: what starting Node.js alone costs. */
  bareCpu(): Promise<number> {
    return cpuNs(this.#bare.pid!);
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

const perKind = <T>(make: () => T): Record<Kind, T> => ({ go: make(), ts: make(), bundle: make(), sea: make() });

async function main(): Promise<void> {
  const dir = await mkdtemp(join(tmpdir(), "nri-stub-bench-"));
  const bin = join(dir, "stub-host");
  const bundle = join(dir, "noop-plugin.bundle.mjs");
  await promisify(execFile)("go", ["build", "-o", bin, "./cmd/stub-host"], { cwd: conformanceDir });
  // what a deployment may ship: the plugin and its dependencies in one file, made as the README says
  await build({
    entryPoints: [join(here, "noop-program.mjs")],
    bundle: true,
    platform: "node",
    format: "esm",
    banner: { js: BUNDLE_BANNER },
    outfile: bundle,
    logLevel: "warning",
  });
  if (SEA) await buildSea({ entry: join(here, "noop-program.mjs"), output: SEA_FILE, node: process.execPath });
  // fills Node's compile cache for the installed plugin, as its first start on a node would
  await promisify(execFile)(process.execPath, [join(here, "noop-plugin.mjs"), join(dir, "none.sock")]).catch(() => {});
  const cold = perKind((): number[] => []);
  const warm = perKind((): number[] => []);
  const warmCpuNs = perKind(() => 0);
  const idle: Array<Record<Kind | "bare", number>> = [];
  const idleAnon: Array<Record<Kind | "bare", number>> = [];
  const startCpu: Array<Record<Kind, number>> = [];
  const bareCpu: number[] = [];
  try {
    for (let run = 0; run < coldRuns; run++) {
      const plugins = await Plugins.start(bin, bundle, dir, run);
      try {
        await sleep(idleMs);
        idle.push(await plugins.rss());
        idleAnon.push(await plugins.rss("RssAnon"));
        startCpu.push(await plugins.cpu());
        bareCpu.push(await plugins.bareCpu());
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
  const SHORT: Record<Exclude<Kind, "go">, string> = { ts: "ours", bundle: "bundled", sea: "single executable" };
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
    const timed = kind === "go" || kind === "ts" ? { w: w[kind], cpu: cpuPerCall[kind] } : undefined;
    const warmCells = timed
      ? [us(timed.w.p50), us(timed.w.p99), us(timed.w.mean), us(timed.cpu)]
      : ["–", "–", "–", "–"];
    row(NAMES[kind], us(c[kind].p50), us(c[kind].p99), ...warmCells, startMs[kind].toFixed(1), rss[kind].toFixed(1));
  }
  for (const kind of OURS) {
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
      `ratio ${SHORT[kind]}/Go`,
      ratio(c[kind].p50, c.go.p50),
      ratio(c[kind].p99, c.go.p99),
      ...warmCells,
      ratio(startMs[kind], startMs.go),
      ratio(rss[kind], rss.go),
    );
  }
  console.log("");
  console.log(
    `An idle bare Node.js (node -e): ${rss.bare.toFixed(1)} MiB RSS; ${OURS.map((kind) => `${SHORT[kind]} ${(rss[kind] - rss.bare).toFixed(1)} MiB above it`).join(", ")}.`,
  );
  console.log(
    `Anonymous memory (RssAnon, the RSS without file-backed pages such as the node binary's): bare Node.js ${anon("bare").toFixed(1)} MiB, ` +
      `${OURS.map((kind) => `${SHORT[kind]} ${anon(kind).toFixed(1)}`).join(", ")}, Go ${anon("go").toFixed(1)}.`,
  );

  const what = "CreateContainer hook under the Go adaptation";
  const warmNote = `${rounds} alternating rounds of ${calls} calls after ${warmup} warm-up calls, one no-op plugin, timed by the Go adaptation`;
  /** How each of ours was deployed, for the notes; and the suffix of its rows. */
  const HOW: Record<Exclude<Kind, "go">, { note: string; suffix: string }> = {
    ts: { note: "the plugin as installed (node_modules)", suffix: "" },
    bundle: { note: "the same plugin bundled into one ESM file by esbuild", suffix: ", bundled plugin" },
    sea: {
      note: "the same plugin as one executable (npm run sea's way: bundled, minified, node --build-sea with V8's code cache)",
      suffix: ", single-executable plugin",
    },
  };
  const coldNote = (kind: Exclude<Kind, "go">) =>
    `the first ${FIRST_CALLS} calls after registration, ${coldRuns} fresh plugins each, pooled${kind === "ts" ? "" : `; ${HOW[kind].note}`}`;
  const microseconds = (ns: readonly number[]) => quantiles(ns).map((x) => x / 1000);
  // on ours: bare Node.js measured in this run, plus 8 MiB as installed, 6 MiB in one file
  const rssAbove = (kind: Exclude<Kind, "go">) => (kind === "ts" ? 8 : 6);
  const rssNote = (kind: Exclude<Kind, "go">) =>
    `${HOW[kind].note}; ${idleMs} ms after registration, median of ${coldRuns} plugins; target: bare Node.js (node -e, ${rss.bare.toFixed(1)} MiB here) + ${rssAbove(kind)} MiB; ` +
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
    ...OURS.flatMap((kind) =>
      (["p50", "p99"] as const).map((p) =>
        result({
          group: "stub",
          what: `${what}, ${p} of the first ${FIRST_CALLS} calls${HOW[kind].suffix}`,
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
    ...OURS.map((kind) =>
      result({
        group: "stub",
        what: `CPU time to start and register a plugin${HOW[kind].suffix}`,
        ours: startMs[kind],
        go: startMs.go,
        unit: "ms",
        target: "<= 5x",
        note: `${HOW[kind].note}; all threads, from exec to idle after registration, median of ${coldRuns}; a bare Node.js (node -e) takes ${(median(bareCpu) / 1e6).toFixed(1)} ms to start`,
      }),
    ),
    ...OURS.map((kind) =>
      result({
        group: "stub",
        what: `idle plugin RSS${HOW[kind].suffix}`,
        ours: rss[kind],
        go: rss.go,
        unit: "MiB",
        target: `<= ${(rss.bare + rssAbove(kind)).toFixed(1)} MiB`,
        note: rssNote(kind),
      }),
    ),
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
