/**
 * Globs for image names and namespaces, as shells and registries write
 * them: `*` is any run of characters but `/`, `**` any run at all, `?` one
 * character but `/`, `[abc]`, `[a-z]` and `[!abc]` one of (or none of) a
 * set, and `\` takes the next character as it is. Everything else matches
 * itself. A pattern matches the whole text.
 */

/** A glob that cannot be read: an unclosed `[`, an empty set, a `\` at the end. */
export class GlobError extends Error {
  override readonly name = "GlobError";
}

function escapeRegExp(text: string): string {
  return text.replace(/[\\^$.*+?()[\]{}|]/g, "\\$&");
}

/** A character as a member of a set. */
function escapeMember(char: string): string {
  return /[\\\][^-]/.test(char) ? `\\${char}` : char;
}

/** The set `[...]` that starts at `start`: its regular expression, and where it ends. */
function readSet(pattern: string, start: number): { source: string; end: number } {
  let i = start + 1;
  const negated = pattern[i] === "!" || pattern[i] === "^";
  if (negated) i++;
  let body = "";
  // a `]` right after the opening is a member, as in shells
  for (let first = true; i < pattern.length && (pattern[i] !== "]" || first); i++, first = false) {
    const char = pattern[i] as string;
    if (char === "\\") {
      if (i + 1 >= pattern.length) throw new GlobError(`"\\" at the end of the pattern`);
      body += escapeMember(pattern[++i] as string);
    } else if (char === "-" && body !== "" && pattern[i + 1] !== "]" && i + 1 < pattern.length) {
      body += "-";
    } else body += escapeMember(char);
  }
  if (i >= pattern.length) throw new GlobError(`"[" at ${start + 1} is not closed by "]"`);
  if (body === "") throw new GlobError(`the set at ${start + 1} is empty`);
  try {
    new RegExp(`[${body}]`, "u");
  } catch (error) {
    throw new GlobError(`the set at ${start + 1}: ${(error as Error).message}`);
  }
  return { source: negated ? `[^/${body}]` : `[${body}]`, end: i };
}

/**
 * The regular expression of a glob.
 * @throws GlobError when the pattern cannot be read
 */
export function compileGlob(pattern: string): RegExp {
  let source = "";
  for (let i = 0; i < pattern.length; i++) {
    const char = pattern[i] as string;
    if (char === "*") {
      if (pattern[i + 1] === "*") {
        source += ".*";
        i++;
      } else source += "[^/]*";
    } else if (char === "?") source += "[^/]";
    else if (char === "[") {
      const set = readSet(pattern, i);
      source += set.source;
      i = set.end;
    } else if (char === "\\") {
      if (i + 1 >= pattern.length) throw new GlobError(`"\\" at the end of the pattern`);
      source += escapeRegExp(pattern[++i] as string);
    } else source += escapeRegExp(char);
  }
  return new RegExp(`^${source}$`, "su");
}
