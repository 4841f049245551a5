/**
 * What tracing costs a plugin: CreateContainer round trips through the real
 * Go adaptation (packages/conformance/cmd/stub-host) with one no-op plugin,
 * in the same run: the Go stub's, ours without an OpenTelemetry SDK
 * (noop-plugin.mjs: the stub checks for one, finds none and makes no span),
 * and ours with an SDK registered (noop-plugin-traced.mjs: a span per call,
 * batched and dropped). The Go adaptation sends no trace context, so ours
 * makes root spans. Alternating rounds after a warm-up; the Go side times
 * each call; each plugin's CPU time is read from /proc.
 *
 *   npm run bench            (builds, needs Go; create-container.ts first)
 *   BENCH_ROUNDS=20 BENCH_CALLS=2000 node --import tsx bench/tracing.ts
 *   NRI_BENCH_SMOKE=1 npm run bench                     (a short run that proves it works)
 */
import { type ChildProcess, execFile, spawn } from "node:child_process";
import { once } from "node:events";
import { mkdtemp, readdir, readFile, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { promisify } from "node:util";
import { quantiles, recordResults, result, smoke } from "@nri-ts/bench";
import { spawnGoPlugin, StubHost } from "../../conformance/fixtures/stub/harness.js";

const here = dirname(fileURLToPath(import.meta.url));
const setting = (name: string, normal: number, short: number) => Number(process.env[name] ?? (smoke ? short : normal));
const rounds = setting("BENCH_ROUNDS", 10, 1);
const calls = setting("BENCH_CALLS", 1000, 20);
const warmup = setting("BENCH_WARMUP", 2000, 20);

const request = { pod: { id: "pod-1", name: "bench" }, container: { id: "ctr-1", podSandboxId: "pod-1", name: "c" } };

const KINDS = ["go", "untraced", "traced"] as const;
type Kind = (typeof KINDS)[number];
const NAMES: Record<Kind, string> = {
  go: "Go pkg/stub",
  untraced: "@nri-ts/stub, no SDK",
  traced: "@nri-ts/stub, SDK registered",
};

/** On-CPU nanoseconds of all threads of a process so far (Linux schedstat). */
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

const perKind = <T>(make: () => T): Record<Kind, T> => ({ go: make(), untraced: make(), traced: make() });

async function main(): Promise<void> {
  const dir = await mkdtemp(join(tmpdir(), "nri-stub-tracing-bench-"));
  const bin = join(dir, "stub-host");
  await promisify(execFile)("go", ["build", "-o", bin, "./cmd/stub-host"], { cwd: join(here, "../../conformance") });
  const socket = (kind: Kind) => join(dir, `${kind}.sock`);
  const hosts = perKind(() => undefined as unknown as StubHost);
  for (const kind of KINDS) hosts[kind] = new StubHost(bin, { socket: socket(kind) });
  const children: ChildProcess[] = [];
  const latencies = perKind((): number[] => []);
  const cpu = perKind(() => 0);
  try {
    await Promise.all(KINDS.map((kind) => hosts[kind].call("start")));
    const node = (script: string, kind: Kind) =>
      spawn(process.execPath, [join(here, script), socket(kind)], { stdio: "inherit" });
    const plugin: Record<Kind, ChildProcess> = {
      go: spawnGoPlugin(bin, ["-socket", socket("go"), "-idx", "10", "-name", "noop-go", "-events", "CreateContainer"])
        .child,
      untraced: node("noop-plugin.mjs", "untraced"),
      traced: node("noop-plugin-traced.mjs", "traced"),
    };
    children.push(...KINDS.map((kind) => plugin[kind]));
    await Promise.all(KINDS.map((kind) => hosts[kind].call("wait-sync", { count: 1 })));
    const bench = async (kind: Kind, count: number) =>
      (await hosts[kind].call<{ ns: Array<number | string> }>("bench", { count, request }))!.ns.map(Number);
    for (const kind of KINDS) await bench(kind, warmup);
    for (let round = 0; round < rounds; round++) {
      // who goes first rotates
      for (const kind of [...KINDS.slice(round % 3), ...KINDS.slice(0, round % 3)]) {
        const before = await cpuNs(plugin[kind].pid!);
        latencies[kind].push(...(await bench(kind, calls)));
        cpu[kind] += (await cpuNs(plugin[kind].pid!)) - before;
      }
    }
  } finally {
    for (const child of children) child.kill();
    await Promise.all(children.map((child) => (child.exitCode === null ? once(child, "exit") : undefined)));
    await Promise.all(KINDS.map((kind) => hosts[kind].stop()));
    await rm(dir, { recursive: true, force: true });
  }

  const us = (ns: number) => ns / 1000;
  const p = perKind(() => ({ p50: 0, p99: 0, cpu: 0 }));
  for (const kind of KINDS) {
    const sorted = [...latencies[kind]].sort((a, b) => a - b);
    p[kind] = { p50: us(percentile(sorted, 50)), p99: us(percentile(sorted, 99)), cpu: us(cpu[kind] / sorted.length) };
  }
  console.log("CreateContainer round trip through the Go adaptation, one no-op plugin, with and without tracing");
  console.log(
    `${rounds} alternating rounds of ${calls} calls after ${warmup} warm-up calls; node ${process.version}\n`,
  );
  console.log("| plugin | p50 µs | p99 µs | plugin CPU µs/call |");
  console.log("|---|--:|--:|--:|");
  for (const kind of KINDS) {
    console.log(
      `| ${NAMES[kind]} | ${p[kind].p50.toFixed(1)} | ${p[kind].p99.toFixed(1)} | ${p[kind].cpu.toFixed(1)} |`,
    );
  }

  const note = `${rounds} alternating rounds of ${calls} calls after ${warmup} warm-up calls, one no-op plugin, timed by the Go adaptation`;
  const tracedNote = `an OpenTelemetry SDK registered in the plugin (a root span per call, batched and dropped); no SDK: ${p.untraced.p50.toFixed(1)} µs p50, ${p.untraced.cpu.toFixed(1)} µs of CPU; ${note}`;
  const microseconds = (ns: readonly number[]) => quantiles(ns).map((x) => x / 1000);
  recordResults([
    result({
      group: "stub, tracing",
      what: "CreateContainer hook under the Go adaptation, p50, no SDK registered",
      ours: p.untraced.p50,
      go: p.go.p50,
      unit: "µs",
      target: "<= 0.8x",
      note: `the stub looks for an SDK, finds none, makes no span; ${note}`,
    }),
    result({
      group: "stub, tracing",
      what: "CreateContainer hook under the Go adaptation, p50, SDK registered",
      ours: p.traced.p50,
      go: p.go.p50,
      unit: "µs",
      target: null,
      note: tracedNote,
      distribution: { unit: "µs", ours: microseconds(latencies.traced), go: microseconds(latencies.go) },
    }),
    result({
      group: "stub, tracing",
      what: "CreateContainer hook under the Go adaptation, the plugin's CPU time per call, SDK registered",
      ours: p.traced.cpu,
      go: p.go.cpu,
      unit: "µs",
      target: null,
      note: tracedNote,
    }),
  ]);
}

await main();
