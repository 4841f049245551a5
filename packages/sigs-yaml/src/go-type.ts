/**
 * Descriptions of the Go types a plugin decodes YAML into. They carry what
 * decoding needs (the kind, the element or field types) and what Go's error
 * texts say about them (`[]main.ulimit`, `Go struct field ulimit.soft`),
 * and they type the decoded value: `go.slice(go.struct("main.ulimit", {type:
 * go.string}))` decodes to `{ type: string }[]`.
 */

/** What a type's value decodes to, for the type checker only. */
declare const decodesTo: unique symbol;

/** What every Go type description has. */
export interface Described<T> {
  /** The type as Go's `%v` prints it: `string`, `int64`, `[]main.ulimit`, `map[string]string`, `*main.netDevice`. */
  readonly name: string;
  readonly [decodesTo]?: T;
}

export interface GoString extends Described<string> {
  readonly kind: "string";
}

export interface GoBool extends Described<boolean> {
  readonly kind: "bool";
}

/** A Go integer; 64-bit ones decode to bigint, smaller ones to number. */
export interface GoInt<T extends number | bigint = number | bigint> extends Described<T> {
  readonly kind: "int";
  readonly signed: boolean;
  readonly bits: 8 | 16 | 32 | 64;
}

export interface GoSlice<T = unknown> extends Described<T[]> {
  readonly kind: "slice";
  readonly elem: GoType;
}

/** A map with string keys; decodes to a `Map`, so that no key (`__proto__`) is special. */
export interface GoMap<T = unknown> extends Described<Map<string, T>> {
  readonly kind: "map";
  readonly elem: GoType;
}

/** A pointer: `null` where YAML says null, else the value pointed to. Go's errors name the type pointed to. */
export interface GoPointer<T = unknown> extends Described<T | null> {
  readonly kind: "pointer";
  readonly elem: GoType;
}

export interface GoStruct<T = unknown> extends Described<T> {
  readonly kind: "struct";
  /** The type's own name, as Go's field errors give it (`ulimit` in `Go struct field ulimit.soft`). */
  readonly bare: string;
  /** By JSON name (the `json:"..."` tag), in declaration order. */
  readonly fields: Readonly<Record<string, GoType>>;
}

export type GoType = GoString | GoBool | GoInt | GoSlice | GoMap | GoPointer | GoStruct;

/** The value a Go type decodes to. */
export type GoValueOf<T extends GoType> = T extends Described<infer V> ? V : never;

/** The value a struct with these fields decodes to. */
export type FieldsValue<F extends Readonly<Record<string, GoType>>> = { -readonly [K in keyof F]: GoValueOf<F[K]> };

function int<T extends number | bigint>(name: string, signed: boolean, bits: GoInt["bits"]): GoInt<T> {
  return { kind: "int", name, signed, bits };
}

/** Builders of Go type descriptions, named after Go's types. */
export const go = {
  string: { kind: "string", name: "string" } as GoString,
  bool: { kind: "bool", name: "bool" } as GoBool,
  int: int<bigint>("int", true, 64),
  int8: int<number>("int8", true, 8),
  int16: int<number>("int16", true, 16),
  int32: int<number>("int32", true, 32),
  int64: int<bigint>("int64", true, 64),
  uint: int<bigint>("uint", false, 64),
  uint8: int<number>("uint8", false, 8),
  uint16: int<number>("uint16", false, 16),
  uint32: int<number>("uint32", false, 32),
  uint64: int<bigint>("uint64", false, 64),
  slice<E extends GoType>(elem: E): GoSlice<GoValueOf<E>> {
    return { kind: "slice", name: `[]${elem.name}`, elem };
  },
  map<E extends GoType>(elem: E): GoMap<GoValueOf<E>> {
    return { kind: "map", name: `map[string]${elem.name}`, elem };
  },
  pointer<E extends GoType>(elem: E): GoPointer<GoValueOf<E>> {
    return { kind: "pointer", name: `*${elem.name}`, elem };
  },
  /** A struct type, `name` qualified as Go prints it (`main.device`); `fields` by JSON name. */
  struct<const F extends Readonly<Record<string, GoType>>>(name: string, fields: F): GoStruct<FieldsValue<F>> {
    return { kind: "struct", name, bare: name.slice(name.lastIndexOf(".") + 1), fields };
  },
} as const;

/** The type behind any pointers: Go's decoder allocates them, and its errors name what they point to. */
export function indirect(type: GoType): Exclude<GoType, GoPointer> {
  let t = type;
  while (t.kind === "pointer") t = t.elem;
  return t;
}

/** The value Go leaves where the YAML says nothing. */
export function zeroValue<T extends GoType>(type: T): GoValueOf<T>;
export function zeroValue(type: GoType): unknown {
  switch (type.kind) {
    case "string":
      return "";
    case "bool":
      return false;
    case "int":
      return type.bits === 64 ? 0n : 0;
    case "slice":
      return [];
    case "map":
      return new Map();
    case "pointer":
      return null;
    case "struct":
      return Object.fromEntries(Object.entries(type.fields).map(([name, field]) => [name, zeroValue(field)]));
  }
}

/** Go's case folding of JSON keys: ASCII letters, plus the long s and the Kelvin sign, which fold to ASCII. */
function foldKey(key: string): string {
  return key
    .replace(/[A-Z]/g, (c) => c.toLowerCase())
    .replaceAll("\u017f", "s")
    .replaceAll("\u212a", "k");
}

/** The field a JSON key sets, as Go finds it: the exact name, else the first name equal to it without case. */
export function fieldFor(type: GoStruct, key: string): string | undefined {
  if (Object.hasOwn(type.fields, key)) return key;
  const folded = foldKey(key);
  return Object.keys(type.fields).find((name) => foldKey(name) === folded);
}
