/**
 * The simulated runtime's clock, which stamps the container status fields.
 * `wall` is the real time; `virtual` starts at 2026-01-01T00:00:00Z and
 * moves one second per step (plus the time of `wait` steps), so that two
 * runs of a scenario report the same timestamps.
 */
import { dateToNs } from "@nri-ts/api";

export type ClockKind = "wall" | "virtual";

const VIRTUAL_START_NS = dateToNs(new Date("2026-01-01T00:00:00Z"));
const NS_PER_MS = 1_000_000n;
const STEP_MS = 1000;

export class SimClock {
  #virtualNs = VIRTUAL_START_NS;

  constructor(readonly kind: ClockKind = "wall") {}

  /** Nanoseconds since the Unix epoch. */
  now(): bigint {
    return this.kind === "virtual" ? this.#virtualNs : dateToNs(performance.timeOrigin + performance.now());
  }

  /** A step begins. */
  step(): void {
    this.advance(STEP_MS);
  }

  /** Time passes (a `wait` step); only the virtual clock needs telling. */
  advance(ms: number): void {
    if (this.kind === "virtual") this.#virtualNs += BigInt(Math.round(ms)) * NS_PER_MS;
  }
}
