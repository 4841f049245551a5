/**
 * The lines a plugin writes (a launched plugin's stderr), each bounded as
 * any text from a plugin: of a line longer than the limit, the head is kept
 * and the rest counted, never held, so a plugin writing hundreds of
 * megabytes without a newline costs the runtime no more than the limit
 * (`readline` would build the whole line, and fail beyond 512 MiB).
 */
import { PLUGIN_TEXT_LIMIT, pluginText } from "@nri-ts/common";

const LF = 0x0a;
const CR = 0x0d;

/**
 * Splits bytes into lines at `\n` (a `\r` before it is dropped, as
 * readline drops it), each bounded to `limit` bytes.
 */
export class LineSplitter {
  /** The head of the current line, at most `limit` bytes. */
  #head: Uint8Array[] = [];
  #kept = 0;
  /** The current line's length so far, in bytes. */
  #length = 0;
  #last = -1;

  constructor(
    private readonly onLine: (line: string) => void,
    private readonly limit = PLUGIN_TEXT_LIMIT,
  ) {}

  push(chunk: Uint8Array): void {
    let start = 0;
    while (start < chunk.length) {
      const newline = chunk.indexOf(LF, start);
      const end = newline < 0 ? chunk.length : newline;
      this.#add(chunk.subarray(start, end));
      if (newline < 0) return;
      this.#emit();
      start = newline + 1;
    }
  }

  /** The end of the input: its last line, if it did not end with a newline. */
  end(): void {
    if (this.#length > 0) this.#emit();
  }

  #add(part: Uint8Array): void {
    if (part.length === 0) return;
    const room = this.limit + 1 - this.#kept;
    // one byte over the limit is kept: it may be the `\r` of the line's end
    if (room > 0) {
      const kept = part.subarray(0, room);
      // a copy: the chunk's buffer may be reused, or be large
      this.#head.push(Uint8Array.from(kept));
      this.#kept += kept.length;
    }
    this.#length += part.length;
    this.#last = part[part.length - 1]!;
  }

  #emit(): void {
    const length = this.#last === CR ? this.#length - 1 : this.#length;
    const head = Buffer.concat(this.#head, this.#kept);
    this.#head = [];
    this.#kept = 0;
    this.#length = 0;
    this.#last = -1;
    this.onLine(pluginText(head.subarray(0, Math.min(head.length, length)), length, this.limit));
  }
}

/** Reads `input` to its end, handing on each line, bounded to `limit` bytes. */
export function readPluginLines(
  input: NodeJS.ReadableStream,
  onLine: (line: string) => void,
  limit = PLUGIN_TEXT_LIMIT,
): void {
  const lines = new LineSplitter(onLine, limit);
  input.on("data", (chunk: Buffer | string) => lines.push(typeof chunk === "string" ? Buffer.from(chunk) : chunk));
  input.once("end", () => lines.end());
  // a pipe that fails ends the output there; it is no failure of the runtime
  input.on("error", () => {});
}
