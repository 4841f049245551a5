/**
 * Variants of a fully populated protocol message, for differential tests:
 * every scalar kept, zeroed or replaced (text from a pool of awkward text,
 * numbers within their sign), lists emptied, shortened or grown, messages
 * dropped or emptied, object keys replaced by awkward text. The result goes
 * through the type's fromPartial, which keeps new keys only where the
 * object is a map, so map keys get awkward text and messages stay valid.
 */
import type { MessageFns } from "@nri-ts/api";

/** A small seeded generator (mulberry32): the same seed gives the same variants. */
function random(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

export function messageVariants<T>(
  fns: MessageFns<T>,
  template: T,
  count: number,
  seed: number,
  texts: readonly string[],
): T[] {
  const next = random(seed);
  const pick = <V>(items: readonly V[]): V => items[Math.floor(next() * items.length)];
  const text = () => pick(texts);

  const vary = (value: unknown): unknown => {
    const r = next();
    if (typeof value === "string") return r < 0.3 ? value : r < 0.4 ? "" : text();
    if (typeof value === "number")
      return r < 0.4 ? value : r < 0.55 ? 0 : Math.floor(next() * 2 ** 31) * (value < 0 && next() < 0.5 ? -1 : 1);
    if (typeof value === "bigint") {
      if (r < 0.4) return value;
      if (r < 0.55) return 0n;
      const magnitude = BigInt(Math.floor(next() * 2 ** 53)) * BigInt(Math.floor(next() * 1024));
      return value < 0n && next() < 0.5 ? -magnitude : magnitude;
    }
    if (typeof value === "boolean") return r < 0.5;
    if (Array.isArray(value)) {
      if (r < 0.15) return [];
      // A list holds no missing messages: a dropped one becomes an empty one.
      const item = (entry: unknown) => vary(entry) ?? {};
      const items = value.filter(() => next() < 0.85).map(item);
      if (value.length > 0 && next() < 0.3) items.push(item(pick(value)));
      return items;
    }
    if (value !== null && typeof value === "object") {
      if (r < 0.08) return undefined;
      if (r < 0.14) return {};
      const out: Record<string, unknown> = {};
      // Numeric keys are a map's int32 keys (field owners): they stay numbers.
      const numeric = Object.keys(value).some((key) => /^-?\d+$/.test(key));
      for (const [key, item] of Object.entries(value)) out[!numeric && next() < 0.2 ? text() : key] = vary(item);
      const values = Object.values(value);
      if (!numeric && values.length > 0 && next() < 0.2) out[text()] = vary(pick(values));
      return out;
    }
    return value;
  };

  const root = () => {
    const out: Record<string, unknown> = {};
    for (const [key, item] of Object.entries(template as object)) out[key] = vary(item);
    return out;
  };
  return Array.from({ length: count }, () => fns.fromPartial(root() as never));
}
