/**
 * Reading the fields of a configuration: each reader checks one value and
 * throws a FieldError naming the field; the Reader turns those into issues
 * and keeps the field's default, so that one reading finds every mistake.
 */
import type { ConfigIssues, ConfigPath } from "./config-issues.js";

/** A value that is not what its field takes. */
export class FieldError extends Error {
  constructor(
    readonly path: ConfigPath,
    message: string,
  ) {
    super(message);
  }
}

export type Mapping = Record<string, unknown>;

export function describe(value: unknown): string {
  return value === null
    ? "null"
    : Array.isArray(value)
      ? "a list"
      : typeof value === "object"
        ? "a mapping"
        : JSON.stringify(value);
}

/** The mapping at `path`; each key not in `known` is a mistake of its own, and the others are read. */
export function mapping(value: unknown, path: ConfigPath, known: readonly string[], issues: ConfigIssues): Mapping {
  if (typeof value !== "object" || value === null || Array.isArray(value))
    throw new FieldError(path, `expected a mapping, got ${describe(value)}`);
  for (const key of Object.keys(value)) {
    if (!known.includes(key)) issues.add([...path, key], `unknown field (known: ${known.join(", ")})`, true);
  }
  return value as Mapping;
}

export function text(value: unknown, path: ConfigPath): string {
  if (typeof value !== "string") throw new FieldError(path, `expected a text, got ${describe(value)}`);
  return value;
}

export function whole(value: unknown, path: ConfigPath, min: number, max = Number.MAX_SAFE_INTEGER): number {
  if (typeof value !== "number" || !Number.isInteger(value) || value < min || value > max) {
    throw new FieldError(
      path,
      `expected a whole number from ${min}${max < Number.MAX_SAFE_INTEGER ? ` to ${max}` : ""}, got ${describe(value)}`,
    );
  }
  return value;
}

export function flag(value: unknown, path: ConfigPath): boolean {
  if (typeof value !== "boolean") throw new FieldError(path, `expected true or false, got ${describe(value)}`);
  return value;
}

/**
 * Reads the fields of one configuration: each reader's FieldError becomes
 * an issue and the field keeps its default, so that one reading finds
 * every mistake.
 */
export class Reader {
  constructor(readonly issues: ConfigIssues) {}

  /** `value` read by `read`, if it is there; `fallback` when it is not, or is a mistake. */
  field<T>(value: unknown, read: (value: unknown) => T, fallback: T): T {
    if (value === undefined) return fallback;
    try {
      return read(value);
    } catch (error) {
      if (!(error instanceof FieldError)) throw error;
      this.issues.add(error.path, error.message);
      return fallback;
    }
  }

  mapping(value: unknown, path: ConfigPath, known: readonly string[]): Mapping | undefined {
    return this.field(value, (v) => mapping(v, path, known, this.issues), undefined);
  }

  /** An output section: false (off), true or empty (defaults) or a mapping over the defaults. */
  section<T>(
    value: unknown,
    path: ConfigPath,
    known: readonly string[],
    read: (m: Mapping) => T,
    defaults: T,
  ): T | false {
    if (value === false) return false;
    if (value === true || value === null || value === undefined) return defaults;
    const m = this.mapping(value, path, known);
    return m ? read(m) : defaults;
  }
}
