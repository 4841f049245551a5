/**
 * CreateContainer round trips through the real Go adaptation
 * (packages/conformance/cmd/stub-host) with one no-op plugin: ours
 * (noop-plugin.mjs, on the built @nri-ts/stub) against the Go stub's
 * (`stub-host plugin`), in the same run, alternating rounds. The Go side
 * times each call. Also reports each plugin's resident memory while idle.
 *
 *   npm run bench            (builds, needs Go)
 *   BENCH_ROUNDS=20 BENCH_CALLS=2000 npm run bench
 *   BENCH_PLUGIN_NODE_ARGS="--cpu-prof" npm run bench   (node flags for our plugin)
 */
import { execFile, spawn } from "node:child_process";
import { once } from "node:events";
import { mkdtemp, readFile, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { setTimeout as sleep } from "node:timers/promises";
import { fileURLToPath } from "node:url";
import { promisify } from "node:util";
import { spawnGoPlugin, StubHost } from "../../conformance/fixtures/stub/harness.js";

const here = dirname(fileURLToPath(import.meta.url));
const conformanceDir = join(here, "../../conformance");
const rounds = Number(process.env.BENCH_ROUNDS ?? 10);
const calls = Number(process.env.BENCH_CALLS ?? 1000);
const warmup = Number(process.env.BENCH_WARMUP ?? 2000);
const pluginNodeArgs = (process.env.BENCH_PLUGIN_NODE_ARGS ?? "").split(" ").filter(Boolean);

const request = { pod: { id: "pod-1", name: "bench" }, container: { id: "ctr-1", podSandboxId: "pod-1", name: "c" } };

function percentile(sorted: number[], p: number): number {
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))];
}

async function rssKiB(pid: number): Promise<number> {
  const status = await readFile(`/proc/${pid}/status`, "utf8");
  return Number(/^VmRSS:\s+(\d+) kB$/m.exec(status)?.[1]);
}

type Kind = "go" | "ts";

function summary(samples: number[]): { p50: number; p99: number; mean: number } {
  const sorted = [...samples].sort((a, b) => a - b);
  const mean = sorted.reduce((sum, x) => sum + x, 0) / sorted.length;
  return { p50: percentile(sorted, 50), p99: percentile(sorted, 99), mean };
}

const us = (ns: number): string => (ns / 1000).toFixed(1);
const mib = (kib: number): string => (kib / 1024).toFixed(1);
const row = (...cells: string[]): void => console.log(`| ${cells.join(" | ")} |`);

async function main(): Promise<void> {
  const dir = await mkdtemp(join(tmpdir(), "nri-stub-bench-"));
  const bin = join(dir, "stub-host");
  await promisify(execFile)("go", ["build", "-o", bin, "./cmd/stub-host"], { cwd: conformanceDir });
  const socket = (kind: Kind) => join(dir, `${kind}.sock`);

  const hosts: Record<Kind, StubHost> = {
    go: new StubHost(bin, { socket: socket("go") }),
    ts: new StubHost(bin, { socket: socket("ts") }),
  };
  await Promise.all(Object.values(hosts).map((host) => host.call("start")));
  const goPlugin = spawnGoPlugin(bin, ["-socket", socket("go"), "-idx", "10", "-name", "noop-go", "-events", "CreateContainer"]);
  const tsPlugin = spawn(process.execPath, [...pluginNodeArgs, join(here, "noop-plugin.mjs"), socket("ts")], {
    stdio: "inherit",
  });
  // for scale: the same Node.js doing nothing
  const emptyNode = spawn(process.execPath, ["-e", "setInterval(() => {}, 1000)"], { stdio: "ignore" });
  const rss = async () => ({ go: await rssKiB(goPlugin.child.pid!), ts: await rssKiB(tsPlugin.pid!) });
  try {
    await Promise.all(Object.values(hosts).map((host) => host.call("wait-sync", { count: 1 })));
    await sleep(2000);
    const idle = await rss();
    const emptyNodeRss = await rssKiB(emptyNode.pid!);

    const samples: Record<Kind, number[]> = { go: [], ts: [] };
    for (const kind of ["go", "ts"] as const) await hosts[kind].call("bench", { count: warmup, request });
    for (let round = 0; round < rounds; round++) {
      for (const kind of ["go", "ts"] as const) {
        const reply = await hosts[kind].call<{ ns: Array<number | string> }>("bench", { count: calls, request });
        for (const ns of reply!.ns) samples[kind].push(Number(ns));
      }
    }
    const after = await rss();

    const go = summary(samples.go);
    const ts = summary(samples.ts);
    const ratio = (a: number, b: number) => (a / b).toFixed(2);
    console.log("CreateContainer round trip through the Go adaptation (nri v0.12.2), one no-op plugin");
    console.log(`${rounds} alternating rounds of ${calls} calls per plugin after ${warmup} warm-up calls; node ${process.version}`);
    console.log("");
    row("plugin", "p50 µs", "p99 µs", "mean µs", "idle RSS MiB", "RSS after MiB");
    row("---", "---", "---", "---", "---", "---");
    row("Go pkg/stub", us(go.p50), us(go.p99), us(go.mean), mib(idle.go), mib(after.go));
    row("@nri-ts/stub", us(ts.p50), us(ts.p99), us(ts.mean), mib(idle.ts), mib(after.ts));
    row("ratio ours/Go", ratio(ts.p50, go.p50), ratio(ts.p99, go.p99), ratio(ts.mean, go.mean), ratio(idle.ts, idle.go), ratio(after.ts, after.go));
    console.log("");
    console.log(`An empty Node.js process: ${mib(emptyNodeRss)} MiB RSS.`);
  } finally {
    emptyNode.kill();
    goPlugin.child.kill();
    tsPlugin.kill(); // SIGTERM: it stops cleanly before its runtime goes away
    await Promise.all([goPlugin.exited, tsPlugin.exitCode === null ? once(tsPlugin, "exit") : undefined]);
    await Promise.all(Object.values(hosts).map((host) => host.stop()));
    await rm(dir, { recursive: true, force: true });
  }
}

await main();
