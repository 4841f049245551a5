/**
 * A command line parsed as Go's `flag` package parses it: `-name value`,
 * `-name=value`, `--name value`; a boolean flag takes no separate value
 * (`-verbose`, `-verbose=false`); parsing stops at the first argument that
 * is not a flag, or after `--`. `-h` and `-help` print the usage.
 */
import { goQuote, parseGoBool } from "@nri-ts/api";

export interface FlagSpec {
  readonly name: string;
  readonly kind: "string" | "bool";
  readonly usage: string;
}

/** The parsed flags: text for string flags, booleans for bool flags; unset ones hold their zero value. */
export type FlagValues<S extends readonly FlagSpec[]> = {
  [F in S[number] as F["name"]]: F["kind"] extends "bool" ? boolean : string;
};

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

/** The usage text, flags sorted by name as Go's PrintDefaults lists them. */
export function flagUsage(specs: readonly FlagSpec[], program: string): string {
  const lines = [`Usage of ${program}:`];
  for (const spec of [...specs].sort((a, b) => (a.name < b.name ? -1 : 1))) {
    const head = `  -${spec.name}${spec.kind === "string" ? " string" : ""}`;
    lines.push(head.length <= 4 ? `${head}\t${spec.usage}` : `${head}\n    \t${spec.usage}`);
  }
  return lines.join("\n");
}

/** @throws FlagError for `-h`, an unknown flag, a missing value or a bad boolean */
export function parseGoFlags<const S extends readonly FlagSpec[]>(specs: S, argv: readonly string[], program: string): FlagValues<S> {
  const values: Record<string, string | boolean> = Object.fromEntries(specs.map((s) => [s.name, s.kind === "bool" ? false : ""]));
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
    if (!spec) {
      if (name === "h" || name === "help") throw new FlagError(flagUsage(specs, program), 0);
      fail(`flag provided but not defined: -${name}`);
    } else if (spec.kind === "bool") {
      const text = eq < 0 ? "true" : body.slice(eq + 1);
      try {
        values[name] = parseGoBool(text);
      } catch {
        fail(`invalid boolean value ${goQuote(text)} for -${name}: parse error`);
      }
    } else if (eq >= 0) {
      values[name] = body.slice(eq + 1);
    } else if (i + 1 < argv.length) {
      values[name] = argv[++i];
    } else {
      fail(`flag needs an argument: -${name}`);
    }
  }
  return values as FlagValues<S>;
}
