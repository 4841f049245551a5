/**
 * Log files that other processes write (containerd, plugins): read from a
 * mark, and waited on until a line shows up. Waiting polls the file; a
 * timeout says what was awaited and shows the file's tail.
 */
import { readFileSync } from "node:fs";
import { sleep } from "./exec.js";

export class LogFile {
  constructor(readonly path: string) {}

  text(from = 0): string {
    try {
      return readFileSync(this.path, "utf8").slice(from);
    } catch {
      return "";
    }
  }

  /** The current end of the file: later waits can look only past it. */
  mark(): number {
    return this.text().length;
  }

  lines(from = 0): string[] {
    return this.text(from).split("\n").filter(Boolean);
  }

  /**
   * Resolves to the first line after `from` for which `match` returns a
   * value (or true), polling until `timeoutMs`.
   */
  async waitFor<T>(
    what: string,
    match: (line: string) => T | undefined | false,
    { from = 0, timeoutMs = 20_000 }: { from?: number; timeoutMs?: number } = {},
  ): Promise<T> {
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      for (const line of this.lines(from)) {
        const found = match(line);
        if (found !== undefined && found !== false) return found;
      }
      if (Date.now() > deadline) {
        const tail = this.lines(from).slice(-15).join("\n");
        throw new Error(
          `timed out after ${timeoutMs} ms waiting for ${what} in ${this.path}; its last lines:\n${tail}`,
        );
      }
      await sleep(25);
    }
  }
}

export interface LogEntry {
  level: string;
  msg: string;
  /** The whole line, for fields other than level and msg. */
  line: string;
}

function unquote(text: string): string {
  try {
    return JSON.parse(`"${text}"`) as string;
  } catch {
    return text;
  }
}

/** One logrus text line (`time="…" level=info msg="…" key=value`), as containerd writes them. */
export function parseLogrus(line: string): LogEntry | undefined {
  const level = /\blevel=(\w+)/.exec(line)?.[1];
  const msg = /\bmsg="((?:[^"\\]|\\.)*)"/.exec(line)?.[1] ?? /\bmsg=(\S+)/.exec(line)?.[1];
  if (!level || msg === undefined) return undefined;
  return { level, msg: unquote(msg), line };
}
