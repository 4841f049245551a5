/**
 * The one format every benchmark reports in, so that `npm run bench` (the
 * root) can gather them into BENCHMARKS.md: a JSON array of results, each
 * one figure of ours beside the Go peer's measured in the same run.
 *
 * A bench calls `recordResults` with its figures; when NRI_BENCH_RESULTS
 * names a file, they are appended to the array in it (benches run one after
 * the other), otherwise nothing is written. NRI_BENCH_SMOKE=1 asks a bench
 * for a short run that only proves it still works (`smoke`).
 */
import { existsSync, readFileSync, writeFileSync } from "node:fs";

/** One figure. */
export interface BenchResult {
  /** The group of figures, e.g. "adaptation", "stub", "ttrpc". */
  group: string;
  /** What was measured, e.g. "CreateContainer, 5 no-op plugins". */
  what: string;
  /** Our figure, in `unit`. */
  ours: number;
  /** The Go peer's figure in the same run, in `unit`; null where Go has no counterpart. */
  go: number | null;
  /** "µs", "ms", "MiB", "calls/s", … */
  unit: string;
  /** ours / go; null without a Go figure. */
  ratio: number | null;
  /** The target, as "<= 1.0x" or ">= 1.5x" (on the ratio) or "<= 1.5 µs" (on ours, in `unit`); null for none. */
  target: string | null;
  /** How it was measured (rounds, the case), or why a figure is missing. */
  note: string;
  /** Latency samples for a plot of the distribution, ours against Go's (see `quantiles`). */
  distribution?: { unit: string; ours: number[]; go: number[] };
}

/** The environment variable naming the results file. */
export const RESULTS_ENV = "NRI_BENCH_RESULTS";

/** True when the bench should only prove it still works (NRI_BENCH_SMOKE=1): few rounds, figures meaningless. */
export const smoke = process.env.NRI_BENCH_SMOKE === "1";

/** ours / go, or null without a usable Go figure. */
export function ratioOf(ours: number, go: number | null): number | null {
  return go === null || !(go > 0) ? null : ours / go;
}

/** A result with its ratio computed from ours and go. */
export function result(fields: Omit<BenchResult, "ratio">): BenchResult {
  return { ...fields, ratio: ratioOf(fields.ours, fields.go) };
}

/** `count` evenly spaced quantiles (0 to 1 inclusive) of `samples`: what a distribution plot needs, small. */
export function quantiles(samples: readonly number[], count = 101): number[] {
  if (samples.length === 0) return [];
  const sorted = [...samples].sort((a, b) => a - b);
  return Array.from({ length: count }, (_, i) => sorted[Math.round((i / (count - 1)) * (sorted.length - 1))]!);
}

/** Whether a result meets its target: null when it has none, or lacks the figure the target is on. */
export function met(result: BenchResult): boolean | null {
  const target = parseTarget(result.target);
  if (!target) return null;
  const value = target.on === "ratio" ? result.ratio : result.ours;
  if (value === null) return null;
  return target.op === "<=" ? value <= target.value : value >= target.value;
}

/** A target string taken apart; null for none. Throws on a malformed one, so that a typo is not a silent "met". */
export function parseTarget(target: string | null): { op: "<=" | ">="; value: number; on: "ratio" | "ours" } | null {
  if (target === null) return null;
  const match = /^(<=|>=) ([0-9.]+)(x| .+)$/.exec(target);
  if (!match) throw new Error(`bench target ${JSON.stringify(target)} is not "<= Nx", ">= Nx" or "<= N unit"`);
  return { op: match[1] as "<=" | ">=", value: Number(match[2]), on: match[3] === "x" ? "ratio" : "ours" };
}

/** Appends `results` to the file NRI_BENCH_RESULTS names (a JSON array); without it, does nothing. */
export function recordResults(results: readonly BenchResult[], file = process.env[RESULTS_ENV]): void {
  for (const r of results) parseTarget(r.target);
  if (!file) return;
  const all = existsSync(file) ? (JSON.parse(readFileSync(file, "utf8")) as BenchResult[]) : [];
  writeFileSync(file, `${JSON.stringify([...all, ...results], null, 1)}\n`);
}

/** Reads a results file. */
export function readResults(file: string): BenchResult[] {
  const all = JSON.parse(readFileSync(file, "utf8")) as unknown;
  if (!Array.isArray(all)) throw new Error(`${file}: not a JSON array of bench results`);
  return all as BenchResult[];
}
