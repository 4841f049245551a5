// The ulimit-adjuster's annotation parsing (parse, then adjust) on large
// annotations, ours against the Go plugin's, measured in one run: the Go
// side is the Go twin in packages/conformance (cmd/plugin-ulimit-adjuster
// -bench: upstream's logic on sigs.k8s.io/yaml v1.3.0), timed inside its own
// process; ours is parseUlimits + adjustUlimits, timed here. Each side runs
// the same annotation RUNS times per round; rounds alternate; the table
// shows the median run of all rounds, the fastest, and ours' first run
// (before the JIT has warmed up).
//
//   npm run bench            (from packages/plugins/ulimit-adjuster; needs Go for the Go column)
//   BENCH_ROUNDS=5 BENCH_RUNS=20 npm run bench
//   NRI_BENCH_SMOKE=1 npm run bench   (a short run that proves the bench works)
//
// The medians are recorded for BENCHMARKS.md (@nri-ts/bench).
import { execFile } from "node:child_process";
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { promisify } from "node:util";
import { type BenchResult, recordResults, result, smoke } from "@nri-ts/bench";
import { adjustUlimits, parseUlimits } from "../src/index.js";

const run = promisify(execFile);
const conformanceDir = join(dirname(fileURLToPath(import.meta.url)), "../../../conformance");
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? (smoke ? 1 : 5));
const RUNS = Number(process.env.BENCH_RUNS ?? (smoke ? 2 : 20));
/** Kubernetes' limit on all of a pod's annotations together. */
const MAX_ANNOTATIONS = 256 * 1024;
const KEY = "ulimits.noderesource.dev/container.app";

/** Entries repeated up to `size` bytes. */
function annotation(entry: string, size: number): string {
  return entry.repeat(Math.floor(size / entry.length));
}

const CASES: [name: string, value: string][] = [
  ["256 KiB, block entries", annotation("- type: RLIMIT_NOFILE\n  soft: 1024\n  hard: 4096\n", MAX_ANNOTATIONS)],
  ["256 KiB, flow entries", annotation("- {type: nproc, soft: 0x400, hard: 4096}\n", MAX_ANNOTATIONS)],
  ["4 KiB, block entries", annotation("- type: memlock\n  soft: 645321\n  hard: 987654\n", 4096)],
];

function ours(value: string): number[] {
  const times: number[] = [];
  for (let i = 0; i < RUNS; i++) {
    const start = process.hrtime.bigint();
    adjustUlimits(parseUlimits("app", { [KEY]: value }));
    times.push(Number(process.hrtime.bigint() - start));
  }
  return times;
}

async function go(binary: string, value: string): Promise<number[]> {
  const child = run(binary, ["-bench", String(RUNS)], { maxBuffer: 1 << 24 });
  child.child.stdin?.end(`${JSON.stringify({ container: "app", annotations: { [KEY]: value } })}\n`);
  return (JSON.parse((await child).stdout) as { ns: number[] }).ns;
}

async function buildGo(dir: string): Promise<string | undefined> {
  const binary = join(dir, "plugin-ulimit-adjuster");
  try {
    await run("go", ["build", "-o", binary, "./cmd/plugin-ulimit-adjuster"], { cwd: conformanceDir });
    return binary;
  } catch (error) {
    console.log(`Go column skipped: ${(error as Error).message.split("\n")[0]}`);
    return undefined;
  }
}

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
const ms = (ns: number | undefined) => (ns === undefined ? "n/a" : (ns / 1e6).toFixed(2));

async function main(): Promise<void> {
  const work = await mkdtemp(join(tmpdir(), "nri-ts-ulimit-bench-"));
  try {
    const binary = await buildGo(work);
    const results: BenchResult[] = [];
    console.log(`\nparse + adjust, ms per annotation (${ROUNDS} rounds of ${RUNS} runs each)`);
    console.log(
      "| annotation | entries | ours median | Go median | ours / Go | ours fastest | Go fastest | ours first run |",
    );
    console.log("|---|--:|--:|--:|--:|--:|--:|--:|");
    for (const [name, value] of CASES) {
      const first = ours(value).slice(0, 1)[0];
      const tsTimes: number[] = [];
      const goTimes: number[] = [];
      for (let round = 0; round < ROUNDS; round++) {
        tsTimes.push(...ours(value));
        if (binary) goTimes.push(...(await go(binary, value)));
      }
      const entries = parseUlimits("app", { [KEY]: value }).length;
      const [t, g] = [median(tsTimes), goTimes.length > 0 ? median(goTimes) : undefined];
      const ratio = g === undefined ? "n/a" : (t / g).toFixed(2);
      const fastestGo = goTimes.length > 0 ? Math.min(...goTimes) : undefined;
      console.log(
        `| ${name} | ${entries} | ${ms(t)} | ${ms(g)} | ${ratio} | ${ms(Math.min(...tsTimes))} | ${ms(fastestGo)} | ${ms(first)} |`,
      );
      const note = `parse + adjust, median of ${ROUNDS} rounds of ${RUNS} runs; ${entries} entries`;
      results.push(
        result({
          group: "plugins: ulimit-adjuster",
          what: `annotation of ${name}`,
          ours: t! / 1e6,
          go: g === undefined ? null : g / 1e6,
          unit: "ms",
          target: null,
          note,
        }),
      );
    }
    recordResults(results);
  } finally {
    await rm(work, { recursive: true, force: true });
  }
}

await main();
