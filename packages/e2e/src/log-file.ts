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
   * value (or true), polling until `timeoutMs`, or until `abandon` gives a
   * reason to stop (checked at every poll, e.g. "the plugin exited").
   */
  async waitFor<T>(
    what: string,
    match: (line: string) => T | undefined | false,
    { from = 0, timeoutMs = 20_000, abandon }: WaitOptions = {},
  ): Promise<T> {
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      for (const line of this.lines(from)) {
        const found = match(line);
        if (found !== undefined && found !== false) return found;
      }
      const reason = abandon?.();
      if (reason) throw new Error(`${reason}; gave up waiting for ${what} in ${this.path}; ${this.tail(from)}`);
      if (Date.now() > deadline) {
        throw new Error(`timed out after ${timeoutMs} ms waiting for ${what} in ${this.path}; ${this.tail(from)}`);
      }
      await sleep(25);
    }
  }

  /**
   * The file's last lines after `from`, for an error; when nothing came
   * after it, says so and shows the lines before it instead.
   */
  tail(from = 0, count = 15): string {
    const after = this.lines(from);
    if (after.length > 0) return `its last lines:\n${after.slice(-count).join("\n")}`;
    const before = this.lines().slice(-count);
    if (before.length === 0) return "it is empty";
    return `nothing was written to it since the wait began; its last lines before:\n${before.join("\n")}`;
  }
}

export interface WaitOptions {
  /** A {@link LogFile.mark}: only lines after it count. */
  from?: number;
  timeoutMs?: number;
  /** Checked at every poll: a reason to stop waiting, or undefined to go on. */
  abandon?: () => string | undefined;
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
