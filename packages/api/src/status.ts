/**
 * Container status: the timestamps, exit code, reason and message carried in
 * `Container` fields 14 to 19.
 *
 * The timestamps are int64 nanoseconds since the Unix epoch, with 0 meaning
 * "not yet" (or "not reported": current runtimes leave all of them at zero).
 * That is how CRI reports them, and so what a runtime fills in. The Go
 * reference's `GetCreatedAtTime` and friends add the count to Go's zero time
 * (January 1 of year 1) instead, so for real values they return dates around
 * year 57; these helpers deliberately use the Unix epoch.
 */
import { type Container, ContainerState } from "./gen/nri/pkg/api/v1alpha1/api.js";
import { describeExitCode } from "./exit-status.js";

/** The status part of a container; a whole `Container` fits. */
export type ContainerStatus = Pick<
  Container,
  "state" | "createdAt" | "startedAt" | "finishedAt" | "exitCode" | "statusReason" | "statusMessage"
>;

const NS_PER_MS = 1_000_000n;

/** A timestamp field as a Date (millisecond precision), or undefined for 0 ("not yet"). */
export function nsToDate(ns: bigint): Date | undefined {
  return ns === 0n ? undefined : new Date(Number(ns / NS_PER_MS));
}

const NS_PER_S = 1_000_000_000n;

/**
 * A timestamp field in RFC 3339 with all nine digits of nanoseconds
 * (`2026-01-01T00:00:02.123456789Z`), or undefined for 0 ("not yet").
 */
export function formatTimestampNs(ns: bigint): string | undefined {
  if (ns === 0n) return undefined;
  let seconds = ns / NS_PER_S;
  let fraction = ns % NS_PER_S;
  if (fraction < 0n) {
    fraction += NS_PER_S;
    seconds -= 1n;
  }
  const whole = new Date(Number(seconds) * 1000).toISOString().slice(0, -5);
  return `${whole}.${fraction.toString().padStart(9, "0")}Z`;
}

/**
 * A time as a timestamp field value, from a Date or from milliseconds since
 * the epoch. Fractions of a millisecond are kept as far as the number holds
 * them (about a quarter of a microsecond for current dates), e.g. from
 * `performance.timeOrigin + performance.now()`.
 */
export function dateToNs(time: Date | number): bigint {
  const ms = typeof time === "number" ? time : time.getTime();
  if (!Number.isFinite(ms)) throw new RangeError(`not a valid time: ${String(time)}`);
  const whole = Math.floor(ms);
  return BigInt(whole) * NS_PER_MS + BigInt(Math.round((ms - whole) * 1e6));
}

function toNs(time: Date | bigint): bigint {
  return typeof time === "bigint" ? time : dateToNs(time);
}

/**
 * Nanoseconds the container ran: from start to finish, or to `now` while it
 * still runs; undefined if it never started.
 */
export function runDurationNs(status: ContainerStatus, now: Date | bigint = new Date()): bigint | undefined {
  if (status.startedAt === 0n) return undefined;
  return (status.finishedAt !== 0n ? status.finishedAt : toNs(now)) - status.startedAt;
}

/** Nanoseconds since the container finished, or undefined if it has not. */
export function sinceExitNs(status: ContainerStatus, now: Date | bigint = new Date()): bigint | undefined {
  return status.finishedAt === 0n ? undefined : toNs(now) - status.finishedAt;
}

const UNITS: readonly [bigint, string][] = [
  [3_600_000_000_000n, "h"],
  [60_000_000_000n, "m"],
];

function decimal(value: bigint, unit: bigint, digits: number): string {
  const whole = value / unit;
  const fraction = (value % unit).toString().padStart(digits, "0").replace(/0+$/, "");
  return fraction ? `${whole}.${fraction}` : `${whole}`;
}

/**
 * A nanosecond duration in Go's `time.Duration` notation: `1h2m3.5s`,
 * `1.5s`, `250ms`, `800µs`, `12ns`, `0s`.
 */
export function formatDurationNs(ns: bigint): string {
  if (ns < 0n) return `-${formatDurationNs(-ns)}`;
  if (ns === 0n) return "0s";
  if (ns < 1_000n) return `${ns}ns`;
  if (ns < 1_000_000n) return `${decimal(ns, 1_000n, 3)}µs`;
  if (ns < 1_000_000_000n) return `${decimal(ns, 1_000_000n, 6)}ms`;
  let text = "";
  let rest = ns;
  for (const [unit, suffix] of UNITS) {
    if (text || rest >= unit) {
      text += `${rest / unit}${suffix}`;
      rest %= unit;
    }
  }
  return `${text}${decimal(rest, 1_000_000_000n, 9)}s`;
}

/** Rounds to whole seconds from one second up, to whole milliseconds below. */
function roundForDisplay(ns: bigint): bigint {
  const unit = ns >= 1_000_000_000n ? 1_000_000_000n : NS_PER_MS;
  return ((ns + unit / 2n) / unit) * unit;
}

function exitKnown(status: ContainerStatus): boolean {
  return status.finishedAt !== 0n || status.exitCode !== 0 || status.statusReason !== "";
}

/**
 * One line about the container's state, for logs: `created`,
 * `running for 5s`, `paused`, `exited 137 (OOMKilled): memory limit exceeded`,
 * `exited 127 (command not found)`, `stopped` (no exit details reported) or
 * `unknown`. The parenthesis holds the runtime's reason, or else the
 * conventional meaning of the exit code.
 */
export function describeContainerStatus(status: ContainerStatus, now: Date | bigint = new Date()): string {
  switch (status.state) {
    case ContainerState.CONTAINER_CREATED:
      return "created";
    case ContainerState.CONTAINER_PAUSED:
      return "paused";
    case ContainerState.CONTAINER_RUNNING: {
      const ran = runDurationNs({ ...status, finishedAt: 0n }, now);
      return ran === undefined ? "running" : `running for ${formatDurationNs(roundForDisplay(ran))}`;
    }
    case ContainerState.CONTAINER_STOPPED: {
      if (!exitKnown(status)) return "stopped";
      const why = status.statusReason || describeExitCode(status.exitCode);
      const message = status.statusMessage ? `: ${status.statusMessage}` : "";
      return `exited ${status.exitCode}${why ? ` (${why})` : ""}${message}`;
    }
    default:
      return "unknown";
  }
}
