/**
 * The mistakes found in a configuration, each with where it is: the field
 * (`grpc.recent`, `commandWrappers[0][1]`) and its line and column in the
 * YAML text, so that one reading reports them all, in the order of the text.
 */
import { isMap, isScalar, isSeq, type LineCounter, type Node, type Pair } from "yaml";

/** A field's place in the configuration: keys and list positions. */
export type ConfigPath = readonly (string | number)[];

/** One mistake. Line and column are 1-based; absent when the text does not show where. */
export interface ConfigIssue {
  line?: number;
  column?: number;
  /** The field, e.g. `jsonLines.maxBytes`; "" for the document. */
  path: string;
  message: string;
}

/** `jsonLines.maxBytes`, `commandWrappers[0][1]`. */
export function formatPath(path: ConfigPath): string {
  return path.reduce<string>(
    (text, part) => (typeof part === "number" ? `${text}[${part}]` : text ? `${text}.${part}` : part),
    "",
  );
}

/**
 * `reporter.yaml:3:9: grpc.recent: expected …` with a file name, as
 * compilers and nri-sim's scenario errors say it; `line 3, column 9:
 * grpc.recent: expected …` without one.
 */
export function formatConfigIssue(issue: ConfigIssue, file?: string): string {
  const field = issue.path ? `${issue.path}: ` : "";
  if (issue.line === undefined) return `${file ? `${file}: ` : ""}${field}${issue.message}`;
  const where = file ? `${file}:${issue.line}:${issue.column}` : `line ${issue.line}, column ${issue.column}`;
  return `${where}: ${field}${issue.message}`;
}

/** A mistake found while decoding: where in the configuration, and whether it is the key itself (an unknown field). */
interface Found {
  path: ConfigPath;
  message: string;
  atKey: boolean;
}

function pairOf(map: Node, key: string | number): Pair<Node | null, Node | null> | undefined {
  if (!isMap(map)) return undefined;
  return (map.items as Pair<Node | null, Node | null>[]).find(
    (pair) => isScalar(pair.key) && String(pair.key.value) === String(key),
  );
}

/** Collects the mistakes of one configuration, then places them in its text. */
export class ConfigIssues {
  private readonly found: Found[] = [];

  get count(): number {
    return this.found.length;
  }

  /** Records a mistake in the value at `path` (or in its key, for an unknown field). */
  add(path: ConfigPath, message: string, atKey = false): void {
    this.found.push({ path, message, atKey });
  }

  /** The node a mistake points at: its key or its value, else the nearest parent the text has. */
  private nodeOf(root: Node | null, { path, atKey }: Found): Node | undefined {
    let node: Node | null | undefined = root;
    for (let i = 0; i < path.length && node; i++) {
      const part = path[i];
      if (isSeq(node) && typeof part === "number") {
        node = (node.items[part] as Node | null | undefined) ?? node;
        continue;
      }
      const pair = pairOf(node, part);
      if (!pair) break;
      node = atKey && i === path.length - 1 ? pair.key : (pair.value ?? pair.key);
    }
    return node ?? undefined;
  }

  /** The mistakes with their lines and columns, in the order of the text. */
  located(root: Node | null, lines: LineCounter): ConfigIssue[] {
    const issues = this.found.map((found) => {
      const offset = this.nodeOf(root, found)?.range?.[0];
      const at = offset === undefined ? undefined : lines.linePos(offset);
      return {
        ...(at && { line: at.line, column: at.col }),
        path: formatPath(found.path),
        message: found.message,
      };
    });
    return issues.sort((a, b) => (a.line ?? 0) - (b.line ?? 0) || (a.column ?? 0) - (b.column ?? 0));
  }
}
