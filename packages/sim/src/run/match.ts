/**
 * Structural matching for `expect:` blocks. What the author wrote must be
 * found in the actual value: mappings match when every key written matches
 * (other keys are ignored), lists match item by item and must have the same
 * length, scalars match when equal. A number may be written as a quantity
 * (`512Mi`) or as text; `0`, `""` and `false` also match an absent value,
 * since reports leave defaults out; `null` (or `~`) expects nothing there.
 */
import { parseQuantity } from "../scenario/quantity.js";

function show(value: unknown): string {
  if (value === undefined) return "nothing";
  const text = JSON.stringify(value, (_key, v: unknown) => (typeof v === "bigint" ? String(v) : v));
  return text.length > 80 ? `${text.slice(0, 80)}…` : text;
}

function isEmpty(value: unknown): boolean {
  if (value === undefined || value === null) return true;
  if (Array.isArray(value)) return value.length === 0;
  if (typeof value === "object") return Object.keys(value).length === 0;
  return false;
}

function asInteger(value: unknown): bigint | undefined {
  if (typeof value === "bigint") return value;
  if (typeof value === "number") return Number.isInteger(value) ? BigInt(value) : undefined;
  if (typeof value === "string") return parseQuantity(value);
  return undefined;
}

function scalarsMatch(expected: unknown, actual: unknown): boolean {
  if (expected === actual) return true;
  if (actual === undefined) return expected === 0 || expected === "" || expected === false;
  const a = asInteger(actual);
  const e = asInteger(expected);
  return a !== undefined && e !== undefined && a === e && (typeof actual !== "string" || typeof expected !== "string");
}

/** The mismatches between what was expected and what happened, as `path: expected X, got Y`. */
export function mismatches(expected: unknown, actual: unknown, path: string): string[] {
  if (expected === null) {
    return isEmpty(actual) ? [] : [`${path}: expected nothing, got ${show(actual)}`];
  }
  if (Array.isArray(expected)) {
    const items = actual === undefined ? [] : actual;
    if (!Array.isArray(items)) return [`${path}: expected a list, got ${show(actual)}`];
    if (items.length !== expected.length) {
      return [`${path}: expected ${expected.length} item(s), got ${items.length}: ${show(actual)}`];
    }
    return expected.flatMap((item, i) => mismatches(item, items[i], `${path}[${i}]`));
  }
  if (typeof expected === "object") {
    if (actual === undefined) actual = {};
    if (typeof actual !== "object" || actual === null || Array.isArray(actual)) {
      return [`${path}: expected a mapping, got ${show(actual)}`];
    }
    const record = actual as Record<string, unknown>;
    return Object.entries(expected as Record<string, unknown>).flatMap(([key, value]) =>
      mismatches(value, record[key], path ? `${path}.${key}` : key),
    );
  }
  return scalarsMatch(expected, actual) ? [] : [`${path}: expected ${show(expected)}, got ${show(actual)}`];
}
