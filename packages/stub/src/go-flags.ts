/**
 * A command line parsed as Go's `flag` package parses it: `-name value`,
 * `-name=value`, `--name value`; a boolean flag takes no separate value
 * (`-verbose`, `-verbose=false`); an int flag takes Go's integer syntax
 * (`10`, `-1`, `0x1f`, `0o17`, `1_000`); parsing stops at the first
 * argument that is not a flag, or after `--`. `-h` and `-help` print the
 * usage.
 */
import { goQuote, parseGoBool } from "@nri-ts/common";

export interface FlagSpec {
  readonly name: string;
  readonly kind: "string" | "bool" | "int";
  /** Go's usage text; a newline in it starts an indented line, as Go prints it. */
  readonly usage: string;
  /** The value when the flag is not given (string and int flags); default the zero value. */
  readonly default?: string | number;
  /** Another name of the flag named here: its value is stored under that name. */
  readonly aliasOf?: string;
}

/** The parsed flags: text for string flags, booleans for bool flags, numbers for int flags; unset ones hold their default. Aliases are stored under the flag they stand for. */
export type FlagValues<S extends readonly FlagSpec[]> = {
  [F in S[number] as F extends { readonly aliasOf: string } ? never : F["name"]]: F["kind"] extends "bool"
    ? boolean
    : F["kind"] extends "int"
      ? number
      : string;
};

/**
 * The runtime socket's flag under the name the upstream plugin gives it,
 * plus the other name (`-socket` and `-socket-path` both occur among Go's
 * plugins) as an alias, so that a user's command line works whichever they
 * learnt.
 */
export function socketFlags<const N extends "socket" | "socket-path">(name: N, usage: string) {
  const other = (name === "socket" ? "socket-path" : "socket") as N extends "socket" ? "socket-path" : "socket";
  return [
    { name, kind: "string", usage },
    { name: other, kind: "string", usage: `the same as -${name}`, aliasOf: name },
  ] as const;
}

/** `-h` (exit code 0) or a bad command line (exit code 2); the message includes the usage, as Go prints it. */
export class FlagError extends Error {
  override readonly name = "FlagError";

  constructor(
    message: string,
    readonly exitCode: number,
  ) {
    super(message);
  }
}

/**
 * What a program's main does with its command line: `parse()`'s flags, or,
 * when it throws a FlagError, its message on stderr and the process ends
 * with its exit code (0 for `-h`, 2 for a bad command line), as a Go
 * program's `flag.Parse()` ends it. Other errors are thrown on.
 */
export function flagsOrExit<T>(parse: () => T): T {
  try {
    return parse();
  } catch (error) {
    if (!(error instanceof FlagError)) throw error;
    process.stderr.write(`${error.message}\n`);
    process.exit(error.exitCode);
  }
}

/** The usage text, flags sorted by name as Go's PrintDefaults lists them, with their non-zero defaults. */
export function flagUsage(specs: readonly FlagSpec[], program: string): string {
  const lines = [`Usage of ${program}:`];
  for (const spec of [...specs].sort((a, b) => (a.name < b.name ? -1 : 1))) {
    const head = `  -${spec.name}${spec.kind === "bool" ? "" : ` ${spec.kind}`}`;
    const shown =
      spec.default === undefined || spec.default === "" || spec.default === 0
        ? ""
        : ` (default ${typeof spec.default === "string" ? goQuote(spec.default) : spec.default})`;
    const usage = (spec.usage + shown).replaceAll("\n", "\n    \t");
    lines.push(head.length <= 4 ? `${head}\t${usage}` : `${head}\n    \t${usage}`);
  }
  return lines.join("\n");
}

const GO_INT = /^[+-]?(?:0[xX](?:_?[0-9a-fA-F])+|0[bB](?:_?[01])+|0[oO](?:_?[0-7])+|0(?:_?[0-7])*|[1-9](?:_?[0-9])*)$/;

/**
 * An int as Go's strconv.ParseInt(text, 0, 64) reads it (what `flag.Int`
 * does): a sign, then decimal, `0x`, `0b`, `0o` or a leading-`0` octal,
 * underscores between digits.
 * @throws Error `parse error` or `value out of range`, Go's texts
 */
export function parseGoInt(text: string): number {
  if (!GO_INT.test(text)) throw new Error("parse error");
  const negative = text.startsWith("-");
  const digits = text.replace(/^[+-]/, "").replaceAll("_", "");
  const octal = /^0[0-7]+$/.test(digits) ? `0o${digits.slice(1)}` : digits;
  const value = BigInt(octal.replace(/^0([XBO])/, (_, base: string) => `0${base.toLowerCase()}`));
  const signed = negative ? -value : value;
  if (signed < -(2n ** 63n) || signed >= 2n ** 63n) throw new Error("value out of range");
  return Number(signed);
}

/** @throws FlagError for `-h`, an unknown flag, a missing value or a bad boolean */
export function parseGoFlags<const S extends readonly FlagSpec[]>(
  specs: S,
  argv: readonly string[],
  program: string,
): FlagValues<S> {
  const values: Record<string, string | boolean | number> = Object.fromEntries(
    specs
      .filter((s) => s.aliasOf === undefined)
      .map((s) => [s.name, s.kind === "bool" ? false : (s.default ?? (s.kind === "int" ? 0 : ""))]),
  );
  const fail = (message: string): never => {
    throw new FlagError(`${message}\n${flagUsage(specs, program)}`, 2);
  };
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i];
    if (arg.length < 2 || arg[0] !== "-") break;
    const dashes = arg[1] === "-" ? 2 : 1;
    if (dashes === 2 && arg.length === 2) break;
    const body = arg.slice(dashes);
    if (body === "" || body[0] === "-" || body[0] === "=") fail(`bad flag syntax: ${arg}`);
    const eq = body.indexOf("=");
    const name = eq < 0 ? body : body.slice(0, eq);
    const spec = specs.find((s) => s.name === name);
    const key = spec?.aliasOf ?? name;
    if (!spec) {
      if (name === "h" || name === "help") throw new FlagError(flagUsage(specs, program), 0);
      fail(`flag provided but not defined: -${name}`);
    } else if (spec.kind === "bool") {
      const text = eq < 0 ? "true" : body.slice(eq + 1);
      try {
        values[key] = parseGoBool(text);
      } catch {
        fail(`invalid boolean value ${goQuote(text)} for -${name}: parse error`);
      }
    } else {
      if (eq < 0 && i + 1 >= argv.length) fail(`flag needs an argument: -${name}`);
      const text = eq >= 0 ? body.slice(eq + 1) : argv[++i];
      if (spec.kind === "string") values[key] = text;
      else {
        try {
          values[key] = parseGoInt(text);
        } catch (error) {
          fail(`invalid value ${goQuote(text)} for flag -${name}: ${(error as Error).message}`);
        }
      }
    }
  }
  return values as FlagValues<S>;
}
