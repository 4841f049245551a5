/**
 * YAML scalars as the Go plugins read them: go-yaml v2 (behind
 * sigs.k8s.io/yaml) resolves an unquoted scalar to null, a bool, an int, a
 * float or a string by its own YAML 1.1 rules, and Go prints numbers in its
 * own formats when they are turned into text or JSON.
 */

/** A scalar after go-yaml v2's resolution. Ints are exact; floats are float64. */
export type GoScalar = null | boolean | string | { readonly int: bigint } | { readonly float: number };

const INT64_MIN = -(1n << 63n);
const INT64_MAX = (1n << 63n) - 1n;
const UINT64_MAX = (1n << 64n) - 1n;

const WORDS: ReadonlyMap<string, GoScalar> = new Map<string, GoScalar>([
  ...["y", "Y", "yes", "Yes", "YES", "true", "True", "TRUE", "on", "On", "ON"].map((w): [string, GoScalar] => [
    w,
    true,
  ]),
  ...["n", "N", "no", "No", "NO", "false", "False", "FALSE", "off", "Off", "OFF"].map((w): [string, GoScalar] => [
    w,
    false,
  ]),
  ...["", "~", "null", "Null", "NULL"].map((w): [string, GoScalar] => [w, null]),
  ...[".nan", ".NaN", ".NAN"].map((w): [string, GoScalar] => [w, { float: Number.NaN }]),
  ...[".inf", ".Inf", ".INF", "+.inf", "+.Inf", "+.INF"].map((w): [string, GoScalar] => [w, { float: Infinity }]),
  ...["-.inf", "-.Inf", "-.INF"].map((w): [string, GoScalar] => [w, { float: -Infinity }]),
]);

/** go-yaml v2's own float syntax, checked before Go's ParseFloat is tried. */
const YAML_FLOAT = /^[-+]?(\.[0-9]+|[0-9]+(\.[0-9]*)?)([eE][-+]?[0-9]+)?$/;
const DIGITS: Readonly<Record<number, RegExp>> = { 2: /^[01]+$/, 8: /^[0-7]+$/, 10: /^[0-9]+$/, 16: /^[0-9a-fA-F]+$/ };
const PREFIXES: Readonly<Record<string, number>> = { b: 2, B: 2, o: 8, O: 8, x: 16, X: 16 };

/** Go's strconv.ParseUint(text, 0, 64) without its sign handling: the magnitude, or undefined. */
function parseMagnitude(text: string): bigint | undefined {
  let base = 10;
  let digits = text;
  if (text.length > 1 && text[0] === "0") {
    base = PREFIXES[text[1]] ?? 8;
    digits = base === 8 && PREFIXES[text[1]] === undefined ? text.slice(1) : text.slice(2);
  }
  if (!DIGITS[base].test(digits)) return undefined;
  const prefix = base === 2 ? "0b" : base === 8 ? "0o" : base === 16 ? "0x" : "";
  return BigInt(prefix + digits);
}

/** Go's strconv.ParseInt(text, 0, 64): undefined where it fails. */
export function goParseInt(text: string): bigint | undefined {
  const negative = text.startsWith("-");
  const magnitude = parseMagnitude(text[0] === "-" || text[0] === "+" ? text.slice(1) : text);
  if (magnitude === undefined) return undefined;
  const value = negative ? -magnitude : magnitude;
  return value >= INT64_MIN && value <= INT64_MAX ? value : undefined;
}

/** Go's strconv.ParseUint(text, 0, 64): no sign allowed; undefined where it fails. */
export function goParseUint(text: string): bigint | undefined {
  const value = parseMagnitude(text);
  return value !== undefined && value <= UINT64_MAX ? value : undefined;
}

/** Go's ParseFloat for text already in decimal syntax: overflow to infinity is a failure. */
function parseDecimalFloat(text: string): number | undefined {
  const value = Number(text);
  return Number.isFinite(value) ? value : undefined;
}

/** An unquoted, untagged scalar as go-yaml v2 resolves it. */
export function resolvePlain(text: string): GoScalar {
  if (WORDS.has(text)) return WORDS.get(text) as GoScalar;
  const first = text[0];
  if (first === ".") {
    const value = /^\.[0-9]+([eE][-+]?[0-9]+)?$/.test(text) ? parseDecimalFloat(text) : undefined;
    return value === undefined ? text : { float: value };
  }
  if (first === "+" || first === "-" || (first >= "0" && first <= "9")) {
    const plain = text.replaceAll("_", "");
    const int = goParseInt(plain) ?? goParseUint(plain);
    if (int !== undefined) return { int };
    const float = YAML_FLOAT.test(plain) ? parseDecimalFloat(plain) : undefined;
    if (float !== undefined) return { float };
  }
  return text;
}

/** A scalar with an explicit core tag (`!!int "12"`), or the error go-yaml v2 gives. */
export function resolveTagged(tag: "str" | "int" | "float" | "bool" | "null", text: string): GoScalar {
  if (tag === "str") return text;
  const resolved = resolvePlain(text);
  const kind = kindOf(resolved);
  if (kind === tag) return resolved;
  if (tag === "float" && typeof resolved === "object" && resolved !== null && "int" in resolved) {
    return { float: Number(resolved.int) };
  }
  throw new Error(`yaml: cannot decode !!${kind} \`${text}\` as a !!${tag}`);
}

function kindOf(scalar: GoScalar): "str" | "int" | "float" | "bool" | "null" {
  if (scalar === null) return "null";
  if (typeof scalar === "boolean") return "bool";
  if (typeof scalar === "string") return "str";
  return "int" in scalar ? "int" : "float";
}

/**
 * Go's strconv.FormatFloat(value, 'g', -1, bits): the shortest digits that
 * read back as the same float of that size, an exponent below 1e-04 and from
 * 1e+06 on (`1e-07`, `1.2345679e+08`, `+Inf`). sigs.k8s.io/yaml formats
 * floats headed for a Go string with 32 bits; Go's `%v` uses 64.
 */
export function formatGoFloat(value: number, bits: 32 | 64): string {
  const single = bits === 32 ? Math.fround(value) : value;
  if (Number.isNaN(single)) return "NaN";
  if (!Number.isFinite(single)) return single > 0 ? "+Inf" : "-Inf";
  const sign = single < 0 || Object.is(single, -0) ? "-" : "";
  const magnitude = Math.abs(single);
  if (magnitude === 0) return `${sign}0`;
  let exponential = magnitude.toExponential();
  for (let precision = 1; bits === 32 && precision <= 9; precision++) {
    exponential = magnitude.toExponential(precision - 1);
    if (Math.fround(Number(exponential)) === magnitude) break;
  }
  const [mantissa, exponentText] = exponential.split("e");
  const digits = mantissa.replace(".", "");
  const exponent = Number(exponentText);
  if (exponent < -4 || exponent >= 6) {
    const fraction = digits.length > 1 ? `.${digits.slice(1)}` : "";
    const power = String(Math.abs(exponent)).padStart(2, "0");
    return `${sign}${digits[0]}${fraction}e${exponent < 0 ? "-" : "+"}${power}`;
  }
  if (exponent < 0) return `${sign}0.${"0".repeat(-exponent - 1)}${digits}`;
  const whole = digits.slice(0, exponent + 1).padEnd(exponent + 1, "0");
  const fraction = digits.slice(exponent + 1);
  return `${sign}${whole}${fraction ? `.${fraction}` : ""}`;
}

/** A finite float as Go's encoding/json writes it (its thresholds for exponents are JavaScript's). */
export function formatJsonFloat(value: number): string {
  return Object.is(value, -0) ? "-0" : String(value);
}

/** The text sigs.k8s.io/yaml gives a scalar that lands in a Go string field. */
export function goScalarText(scalar: Exclude<GoScalar, null>): string {
  if (typeof scalar === "string") return scalar;
  if (typeof scalar === "boolean") return String(scalar);
  return "int" in scalar ? scalar.int.toString() : formatGoFloat(scalar.float, 32);
}
