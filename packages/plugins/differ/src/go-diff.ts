/**
 * The changes between two messages, as r3labs/diff v3.0.2 (the Go differ's
 * structural diff) lists them for the Go structs of the messages:
 *
 * - the path names Go struct fields (`Linux`, `Resources`), map keys and
 *   slice indices: `[Linux Resources Memory Limit]`, `[Annotations key]`,
 *   `[Env 1]`;
 * - a scalar that differs is an `update`; a pointer to a message that
 *   appears or goes is an `update` from or to `<nil>` holding the whole
 *   message;
 * - a map entry on one side only is a `create` or `delete`;
 * - slices are compared as multisets: an element with an equal one on the
 *   other side (each matched once) is no change, the others are paired by
 *   index; an element without a partner is a `create` or `delete` of each
 *   of its non-zero fields (a message) or of itself (a scalar).
 *
 * Values are kept as `%v` prints them. Go ranges over maps in random
 * order; ours takes keys in byte order, the keys of the old map first.
 */
import { compareBytes } from "@nri-ts/sigs-yaml";
import { GO_NIL, printMessage, printScalar } from "./go-print.js";
import { goFields, type Kind, type Message } from "./go-struct.js";

export type ChangeType = "create" | "update" | "delete";

export interface Change {
  readonly type: ChangeType;
  readonly path: readonly string[];
  /** `%v` of the old value. */
  readonly from: string;
  /** `%v` of the new value. */
  readonly to: string;
}

/** No value on this side (reflect's invalid Value): an element or map entry the other side has alone. */
const ABSENT = Symbol("absent");
type Side = unknown;

/** What a slice element or a map value is. */
function itemKind(value: unknown, element?: Readonly<Record<number, string>>): Kind {
  if (typeof value === "object") return { of: "message" };
  return element ? { of: "enum", names: element } : { of: "scalar" };
}

function zeroOf(kind: Kind, value: unknown): unknown {
  switch (kind.of) {
    case "message":
      return undefined;
    case "slice":
      return [];
    case "map":
      return {};
    default:
      return typeof value === "string" ? "" : typeof value === "bigint" ? 0n : typeof value === "boolean" ? false : 0;
  }
}

class Differ {
  readonly changes: Change[] = [];

  private add(type: ChangeType, path: readonly string[], from: string, to: string): void {
    this.changes.push({ type, path, from, to });
  }

  diff(path: readonly string[], a: Side, b: Side, kind: Kind): void {
    switch (kind.of) {
      case "message":
        return this.pointer(path, a as Message | undefined, b as Message | undefined);
      case "slice":
        return this.slice(path, a as readonly unknown[], b as readonly unknown[], kind.element);
      case "map":
        return this.map(path, a as Message, b as Message);
      default:
        if (a === ABSENT) this.add("create", path, GO_NIL, printScalar(b, kind));
        else if (b === ABSENT) this.add("delete", path, printScalar(a, kind), GO_NIL);
        else if (a !== b) this.add("update", path, printScalar(a, kind), printScalar(b, kind));
    }
  }

  private pointer(
    path: readonly string[],
    a: Message | undefined | typeof ABSENT,
    b: Message | undefined | typeof ABSENT,
  ): void {
    if (a === ABSENT) {
      if (b !== undefined && b !== ABSENT) this.values("create", path, b);
      else this.add("create", path, GO_NIL, GO_NIL);
    } else if (b === ABSENT) {
      if (a !== undefined) this.values("delete", path, a);
      else this.add("delete", path, GO_NIL, GO_NIL);
    } else if (a === undefined || b === undefined) {
      if (a !== b) this.add("update", path, printMessage(a), printMessage(b));
    } else {
      for (const { field, goName, kind } of goFields(a)) this.diff([...path, goName], a[field], b[field], kind);
    }
  }

  /** A message on one side only: each of its fields against the zero value, as a create (or delete) of what is set. */
  private values(type: "create" | "delete", path: readonly string[], message: Message): void {
    const inner = new Differ();
    for (const { field, goName, kind } of goFields(message))
      inner.diff([...path, goName], zeroOf(kind, message[field]), message[field], kind);
    for (const change of inner.changes) {
      this.add(type, change.path, type === "create" ? GO_NIL : change.to, type === "create" ? change.to : GO_NIL);
    }
  }

  private slice(
    path: readonly string[],
    a: readonly unknown[],
    b: readonly unknown[],
    element?: Readonly<Record<number, string>>,
  ): void {
    const unmatched = new Map<number, { a: Side; b: Side }>();
    const pair = (index: number) => unmatched.get(index) ?? unmatched.set(index, { a: ABSENT, b: ABSENT }).get(index)!;
    const missing = (
      items: readonly unknown[],
      others: readonly unknown[],
      put: (index: number, item: unknown) => void,
    ) => {
      const taken = new Array<boolean>(others.length).fill(false);
      items.forEach((item, index) => {
        const match = others.findIndex((other, j) => !taken[j] && equal(other, item, itemKind(item, element)));
        if (match >= 0) taken[match] = true;
        else put(index, item);
      });
    };
    missing(a, b, (index, item) => (pair(index).a = item));
    missing(b, a, (index, item) => (pair(index).b = item));
    for (const [index, sides] of unmatched) {
      const kind = itemKind(sides.a === ABSENT ? sides.b : sides.a, element);
      this.diff([...path, String(index)], sides.a, sides.b, kind);
    }
  }

  private map(path: readonly string[], a: Message, b: Message): void {
    const keys = [
      ...Object.keys(a).sort(compareBytes),
      ...Object.keys(b)
        .filter((key) => !Object.hasOwn(a, key))
        .sort(compareBytes),
    ];
    for (const key of keys) {
      const from = Object.hasOwn(a, key) ? a[key] : ABSENT;
      const to = Object.hasOwn(b, key) ? b[key] : ABSENT;
      this.diff([...path, key], from, to, itemKind(from === ABSENT ? to : from));
    }
  }
}

function equal(a: unknown, b: unknown, kind: Kind): boolean {
  const differ = new Differ();
  differ.diff([], a, b, kind);
  return differ.changes.length === 0;
}

/** The changes from message `a` to message `b` (two messages of one type), in r3labs/diff's order. */
export function diffMessages(a: object, b: object): Change[] {
  const differ = new Differ();
  differ.diff([], a as Message, b as Message, { of: "message" });
  return differ.changes;
}
