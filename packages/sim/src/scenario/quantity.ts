/**
 * Quantities and durations as scenario authors write them: byte counts in
 * Kubernetes notation (`256Mi`, `1G`, `1.5Gi`, `-1`) and durations such as
 * `250ms`, `2s` or `1m`.
 */

const BYTE_SUFFIXES: Readonly<Record<string, bigint>> = {
  "": 1n,
  k: 1000n,
  M: 1000n ** 2n,
  G: 1000n ** 3n,
  T: 1000n ** 4n,
  P: 1000n ** 5n,
  E: 1000n ** 6n,
  Ki: 1n << 10n,
  Mi: 1n << 20n,
  Gi: 1n << 30n,
  Ti: 1n << 40n,
  Pi: 1n << 50n,
  Ei: 1n << 60n,
};

const QUANTITY = /^(-?)(\d+)(?:\.(\d+))?(Ki|Mi|Gi|Ti|Pi|Ei|k|M|G|T|P|E)?$/;

/**
 * A whole quantity (`512Mi` → 536870912n), or undefined when the text is not
 * one or is not a whole number (`1.5` bytes).
 */
export function parseQuantity(text: string): bigint | undefined {
  const match = QUANTITY.exec(text.trim());
  if (!match) return undefined;
  const [, sign, whole, fraction = "", suffix = ""] = match;
  const scale = 10n ** BigInt(fraction.length);
  const scaled = (BigInt(whole) * scale + BigInt(fraction || "0")) * BYTE_SUFFIXES[suffix];
  if (scaled % scale !== 0n) return undefined;
  const value = scaled / scale;
  return sign ? -value : value;
}

const BINARY_UNITS: readonly [bigint, string][] = [
  [1n << 60n, "Ei"],
  [1n << 50n, "Pi"],
  [1n << 40n, "Ti"],
  [1n << 30n, "Gi"],
  [1n << 20n, "Mi"],
  [1n << 10n, "Ki"],
];

/** A byte count in the shortest exact binary notation: 536870912 → `512Mi`, 1000 → `1000`. */
export function formatBytes(value: bigint): string {
  if (value <= 0n) return String(value);
  for (const [unit, suffix] of BINARY_UNITS) {
    if (value % unit === 0n) return `${value / unit}${suffix}`;
  }
  return String(value);
}

const DURATION = /^(\d+(?:\.\d+)?)(ms|s|m|h)$/;
const DURATION_MS: Readonly<Record<string, number>> = { ms: 1, s: 1000, m: 60_000, h: 3_600_000 };

/** Milliseconds of `250ms`, `1.5s`, `2m` or `1h`; undefined for anything else. */
export function parseDuration(text: string): number | undefined {
  const match = DURATION.exec(text.trim());
  if (!match) return undefined;
  return Math.round(Number(match[1]) * DURATION_MS[match[2]]);
}
