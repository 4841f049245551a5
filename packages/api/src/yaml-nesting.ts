/**
 * A guard for YAML read from annotations and configuration files. The `yaml`
 * package parses nested collections recursively: a few thousand levels
 * (`[[[[...`) exhaust the stack or end the Node.js process with a fatal
 * V8 error that no `catch` sees. Text that could nest that deep is refused
 * before it is parsed, so one bad annotation fails its own container and
 * not the process.
 */

/** The nesting the readers here accept; real annotations and configs stay far below it. */
export const MAX_YAML_NESTING = 300;

/**
 * Whether the text may nest collections deeper than `limit`, judged without
 * parsing: open flow collections (`[`, `{`), plus each line's indentation
 * and block indicators (`- `, `? `, `: `). It over-counts (brackets inside
 * quotes count too) and never under-counts, so a `false` is safe to parse.
 */
export function yamlMayNestDeeperThan(text: string, limit = MAX_YAML_NESTING): boolean {
  let flow = 0;
  for (const line of text.split("\n")) {
    let block = line.length - line.trimStart().length;
    for (let i = 0; i < line.length; i++) {
      const char = line[i];
      if (char === "[" || char === "{") flow++;
      else if ((char === "]" || char === "}") && flow > 0) flow--;
      else if ((char === "-" || char === "?" || char === ":") && (i + 1 === line.length || line[i + 1] === " ")) block++;
      if (flow + block > limit) return true;
    }
  }
  return false;
}
