/**
 * Timings per phase: printed as each phase ends, and appended as JSON lines
 * to the run's timings file (`NRI_E2E_TIMINGS`, set by the global setup)
 * so that the end of the run prints them all in one table. Reported, never
 * asserted.
 */
import { appendFileSync, readFileSync } from "node:fs";

export interface PhaseRecord {
  phase: string;
  ms: number;
  note?: string;
}

export interface Phase {
  /** A word printed after the time, e.g. "cached". */
  note(text: string): void;
}

/** Prints a phase and appends it to the run's timings file. */
export function recordPhase(phase: string, ms: number, note?: string): void {
  const entry: PhaseRecord = { phase, ms, ...(note && { note }) };
  const seconds = (entry.ms / 1000).toFixed(2);
  console.log(`e2e: ${entry.phase}: ${seconds} s${entry.note ? ` (${entry.note})` : ""}`);
  const file = process.env.NRI_E2E_TIMINGS;
  if (file) appendFileSync(file, `${JSON.stringify(entry)}\n`);
}

/** Runs `body` as one named phase and records how long it took (also when it fails). */
export async function timed<T>(phase: string, body: (phase: Phase) => Promise<T> | T): Promise<T> {
  const start = performance.now();
  let note: string | undefined;
  let failed = false;
  try {
    return await body({ note: (text) => void (note = text) });
  } catch (error) {
    failed = true;
    throw error;
  } finally {
    const ms = performance.now() - start;
    recordPhase(phase, ms, failed ? "failed" : note);
  }
}

/** The recorded phases as a table, in the order they ended. */
export function timingsTable(file: string): string {
  let lines: PhaseRecord[];
  try {
    lines = readFileSync(file, "utf8")
      .split("\n")
      .filter(Boolean)
      .map((line) => JSON.parse(line) as PhaseRecord);
  } catch {
    return "";
  }
  const width = Math.max(...lines.map((line) => line.phase.length), 5);
  const rows = lines.map(
    (line) =>
      `  ${line.phase.padEnd(width)}  ${(line.ms / 1000).toFixed(2).padStart(7)} s${line.note ? `  ${line.note}` : ""}`,
  );
  return [`  ${"phase".padEnd(width)}  ${"time".padStart(9)}`, ...rows].join("\n");
}
