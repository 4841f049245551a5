/**
 * The command a container ran, without the wrapper a platform injects in
 * front of what the user asked for (e.g. `tini --`): users should read
 * their own command in an exit record.
 *
 * A wrapper prefix is a list of words. Its first word matches the program
 * by path or by base name (`tini` matches `/sbin/tini`); the others match
 * exactly, except `...`, which matches any words up to the word after it
 * (`tini ... --` strips tini, whatever options it got, and `--`).
 * Prefixes are stripped again as long as one matches, for stacked wrappers.
 */

export type WrapperPrefix = readonly string[];

export const ANY_WORDS = "...";

export interface Command {
  /** The command as the user wrote it. */
  command: string[];
  /** What was stripped in front of it. */
  wrapper: string[];
}

function baseName(path: string): string {
  return path.slice(path.lastIndexOf("/") + 1);
}

/** How many leading words of `args` the prefix matches, or 0. */
function matchLength(args: readonly string[], prefix: WrapperPrefix): number {
  const [program, ...rest] = prefix;
  if (args.length === 0 || (args[0] !== program && baseName(args[0]) !== program)) return 0;
  let at = 1;
  for (let i = 0; i < rest.length; i++) {
    if (rest[i] !== ANY_WORDS) {
      if (args[at] !== rest[i]) return 0;
      at++;
      continue;
    }
    const stop = rest[++i];
    while (at < args.length && args[at] !== stop) at++;
    if (at === args.length) return 0;
    at++;
  }
  return at;
}

/** `args` with every matching wrapper prefix taken off the front (the longest match first). */
export function stripWrapper(args: readonly string[], prefixes: readonly WrapperPrefix[]): Command {
  let at = 0;
  for (;;) {
    const rest = args.slice(at);
    const longest = Math.max(0, ...prefixes.map((prefix) => matchLength(rest, prefix)));
    // A wrapper with nothing after it is the command itself.
    if (longest === 0 || longest === rest.length) break;
    at += longest;
  }
  return { command: args.slice(at), wrapper: args.slice(0, at) };
}

/**
 * Checks a prefix from the configuration.
 * @returns what is wrong with it, or undefined
 */
export function wrapperPrefixProblem(prefix: WrapperPrefix): string | undefined {
  if (prefix.length === 0 || prefix[0] === "") return "a wrapper prefix needs at least a program";
  if (prefix[0] === ANY_WORDS) return `a wrapper prefix starts with its program, not "${ANY_WORDS}"`;
  const open = prefix.findIndex(
    (word, i) => word === ANY_WORDS && (i === prefix.length - 1 || prefix[i + 1] === ANY_WORDS),
  );
  if (open >= 0) return `"${ANY_WORDS}" must be followed by the word that ends it (e.g. "tini ... --")`;
  return undefined;
}

/** A command line as a shell user would type it back: words quoted when they need it. */
export function formatCommand(words: readonly string[]): string {
  return words.map((word) => (/^[\w@%+=:,./-]+$/.test(word) ? word : `'${word.replaceAll("'", `'\\''`)}'`)).join(" ");
}
