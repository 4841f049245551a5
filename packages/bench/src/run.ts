/**
 * `npm run bench` at the repository root: runs every package's `bench`
 * target one after the other with NRI_BENCH_RESULTS pointing at one results
 * file, once per Node.js line (`--node 26,24`, the default: the pinned
 * releases of tools/node-lines.json, first on PATH for the run), samples the
 * load meanwhile, and writes BENCHMARKS.md, a column per line, and its plots
 * (bench-plots/) at the root, or `--out <file>` and bench-plots/ beside it.
 * With NRI_BENCH_SMOKE=1 (CI) the benches make short runs and only the
 * results' shape is checked: no report is written unless `--out` names one
 * (the report's shape, with figures of no worth). The report ends with the
 * hand-kept explanations of targets not met (packages/bench/targets-not-met.md)
 * and a list of the not-met rows they do not name. Fails, writing nothing,
 * when a bench fails or reports nothing.
 *
 *   npm run bench                   # Node 26 and 24, into BENCHMARKS.md
 *   npm run bench -- --node 22      # one line
 *   NRI_BENCH_SMOKE=1 npm run bench -- --out /tmp/bench.md   # the report's shape, quickly
 */
import { execFileSync, spawn } from "node:child_process";
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { cpus, loadavg, release, tmpdir, totalmem, type } from "node:os";
import { dirname, join, resolve } from "node:path";
// by path, as a script of the repository: tools/ is no dependency of this package
import { DEFAULT_NODE_LINE, NODE_LINES, nodeLineBin } from "../../../tools/src/node-line.js";
import { distributionSvg } from "./plot.js";
import { type LineRun, type Machine, plotName, renderReport } from "./report.js";
import { type BenchResult, parseTarget, RESULTS_ENV, readResults, smoke } from "./results.js";

const root = resolve(import.meta.dirname, "../../..");
const PLOTS = "bench-plots";
/** Why targets are not met, kept by hand: BENCHMARKS.md ends with it (its links are relative to the root). */
const EXPLAINED = resolve(import.meta.dirname, "../targets-not-met.md");
/**
 * The adaptation's soak (issue #10) takes 6 to 14 ms a lifecycle: its
 * 100,000 alone would take 10 to 25 minutes. The report's run keeps to
 * about ten minutes with 30,000 (10,000 of warm-up, then 20,000 judged);
 * SOAK_LIFECYCLES=100000 npm run bench for the whole soak.
 */
const REPORT_SOAK_LIFECYCLES = "30000";
/** The lines BENCHMARKS.md has a column for: the Active LTS and the line before it. */
const REPORT_LINES = [DEFAULT_NODE_LINE, NODE_LINES.find((line) => Number(line) < Number(DEFAULT_NODE_LINE))!];

/** The value of `--name value` or `--name=value`, if given. */
function option(args: readonly string[], name: string): string | undefined {
  const at = args.findIndex((arg) => arg === name || arg.startsWith(`${name}=`));
  if (at < 0) return undefined;
  const value = args[at]!.includes("=") ? args[at]!.slice(name.length + 1) : args[at + 1];
  if (!value) throw new Error(`${name} takes a value`);
  return value;
}

/** The lines `--node a,b` names (in that order), else the report's. */
function linesOf(args: readonly string[]): string[] {
  const value = option(args, "--node");
  if (value === undefined) return REPORT_LINES;
  const lines = (value ?? "").split(",").filter(Boolean);
  const unknown = lines.filter((line) => !NODE_LINES.includes(line));
  if (lines.length === 0 || unknown.length > 0)
    throw new Error(`--node takes lines of ${NODE_LINES.join(", ")}, comma-separated, not ${JSON.stringify(value)}`);
  return lines;
}

function goVersion(): string {
  try {
    return execFileSync("go", ["version"], { encoding: "utf8" }).trim();
  } catch {
    return "no Go";
  }
}

/** What is wrong with a result, if anything (a bench that reports nonsense must not pass the smoke run). */
function problems(r: BenchResult): string[] {
  const found: string[] = [];
  const where = `${r.group} / ${r.what}`;
  if (!r.group || !r.what || !r.unit) found.push(`${where}: group, what and unit must be set`);
  if (!Number.isFinite(r.ours)) found.push(`${where}: ours is ${r.ours}`);
  if (r.go !== null && !Number.isFinite(r.go)) found.push(`${where}: go is ${r.go}`);
  try {
    parseTarget(r.target);
  } catch (error) {
    found.push(`${where}: ${(error as Error).message}`);
  }
  return found;
}

function runBenches(env: NodeJS.ProcessEnv): Promise<number> {
  const child = spawn("npx", ["nx", "run-many", "-t", "bench", "--output-style=static", "--parallel=1"], {
    cwd: root,
    env,
    stdio: "inherit",
  });
  return new Promise((done) => child.on("exit", (code) => done(code ?? 1)));
}

/** Every bench on one line: its Node.js first on PATH, so that nx, tsx and the benches' own children run on it. */
async function runLine(line: string, work: string): Promise<LineRun> {
  const bin = nodeLineBin(line);
  const node = execFileSync(join(bin, "node"), ["--version"], { encoding: "utf8" }).trim().replace(/^v/, "");
  console.log(`\n=== the benches on Node.js ${node}`);
  const file = join(work, `results-${line}.json`);
  const code = await runBenches({
    SOAK_LIFECYCLES: REPORT_SOAK_LIFECYCLES,
    ...process.env,
    PATH: `${bin}:${process.env.PATH ?? ""}`,
    [RESULTS_ENV]: file,
    NX_DAEMON: "false",
    NX_TUI: "false",
  });
  if (code !== 0) throw new Error(`a bench failed on Node.js ${node} (nx exited ${code}); nothing written`);
  const results = readResults(file);
  const found = results.flatMap(problems);
  if (results.length === 0) found.push(`no bench reported a result on Node.js ${node}`);
  if (found.length > 0) throw new Error(`bench results are malformed:\n${found.join("\n")}`);
  console.log(
    `\n${results.length} results from ${new Set(results.map((r) => r.group)).size} groups on Node.js ${node}`,
  );
  return { line, node, results };
}

/** Where the report goes: `--out`, else BENCHMARKS.md at the root (none in a smoke run without `--out`). */
function reportOf(args: readonly string[]): string | undefined {
  const out = option(args, "--out");
  if (out !== undefined) return resolve(out);
  return smoke ? undefined : join(root, "BENCHMARKS.md");
}

async function main(lines: readonly string[], report: string | undefined): Promise<void> {
  const work = mkdtempSync(join(tmpdir(), "nri-bench-"));
  const started = new Date();
  const loads = [loadavg()[0]!];
  const sampler = setInterval(() => loads.push(loadavg()[0]!), 5_000);
  try {
    const runs: LineRun[] = [];
    for (const line of lines) runs.push(await runLine(line, work));
    clearInterval(sampler);
    if (report === undefined) {
      for (const r of runs.flatMap((run) => run.results).filter((x) => x.distribution))
        distributionSvg(r.what, r.distribution!.unit, r.distribution!);
      console.log("smoke run: the benches work; no report written");
      return;
    }
    const cpu = cpus();
    const machine: Machine = {
      cpus: `${cpu.length} × ${cpu[0]?.model.trim() ?? "unknown CPU"}`,
      memory: `${Math.round(totalmem() / 2 ** 30)} GiB`,
      os: `${type()} ${release()}`,
      go: goVersion(),
      load: { min: Math.min(...loads), max: Math.max(...loads), mean: loads.reduce((a, b) => a + b, 0) / loads.length },
      started: started.toISOString().replace(/\.\d+Z$/, "Z"),
      seconds: (Date.now() - started.getTime()) / 1000,
    };
    const plots = join(dirname(report), PLOTS);
    rmSync(plots, { recursive: true, force: true });
    mkdirSync(plots);
    for (const r of runs[0]!.results.filter((x) => x.distribution)) {
      writeFileSync(
        join(plots, plotName(r)),
        distributionSvg(`${r.group}: ${r.what}`, r.distribution!.unit, r.distribution!),
      );
    }
    const explained = existsSync(EXPLAINED) ? readFileSync(EXPLAINED, "utf8") : "";
    writeFileSync(report, renderReport(runs, machine, PLOTS, explained));
    console.log(`wrote ${report} and ${readdirSync(plots).length} plots in ${plots}/`);
  } finally {
    clearInterval(sampler);
    rmSync(work, { recursive: true, force: true });
  }
}

const args = process.argv.slice(2);
await main(linesOf(args), reportOf(args));
