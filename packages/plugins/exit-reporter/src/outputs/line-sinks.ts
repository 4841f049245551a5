/**
 * Where JSON lines go: a stream (stdout) or a file rotated by size
 * (`exits.jsonl`, then `exits.jsonl.1` ... `exits.jsonl.<keep>`, the
 * highest the oldest).
 */
import { type FileHandle, open, rename, rm } from "node:fs/promises";
import type { Writable } from "node:stream";

export interface LineSink {
  /** For messages: `stdout`, or the file's path. */
  readonly description: string;
  /** Writes whole lines; rejects when they could not be written. */
  write(text: string): Promise<void>;
  close(): Promise<void>;
}

/** A stream the process does not own (stdout): never closed; its errors come back from `write`. */
export function streamSink(stream: Writable, description: string): LineSink {
  // Without a listener, an EPIPE on stdout would end the process.
  stream.on("error", () => {});
  return {
    description,
    write: (text) =>
      new Promise((resolve, reject) => stream.write(text, (error) => (error ? reject(error) : resolve()))),
    close: async () => {},
  };
}

export interface RotationOptions {
  /** Start a new file before this size would be passed. */
  maxBytes: number;
  /** How many earlier files to keep (0: the full file is deleted). */
  keep: number;
}

export class RotatingFile implements LineSink {
  private size = 0;
  /** A failed write may have left half a line behind. */
  private partial = false;

  private constructor(
    readonly description: string,
    private handle: FileHandle,
    private readonly options: RotationOptions,
  ) {}

  /** Opens (or creates, 0644) the file for appending. */
  static async open(path: string, options: RotationOptions): Promise<RotatingFile> {
    const handle = await open(path, "a", 0o644);
    const file = new RotatingFile(path, handle, options);
    file.size = (await handle.stat()).size;
    return file;
  }

  async write(text: string): Promise<void> {
    const line = this.partial ? `\n${text}` : text;
    const bytes = Buffer.byteLength(line);
    if (this.size > 0 && this.size + bytes > this.options.maxBytes) await this.rotate();
    const before = this.size;
    try {
      await this.handle.appendFile(line);
      this.size += bytes;
      this.partial = false;
    } catch (error) {
      this.size = await this.handle.stat().then(
        (s) => s.size,
        () => before,
      );
      this.partial = this.size > before;
      throw error;
    }
  }

  private async rotate(): Promise<void> {
    const path = this.description;
    await this.handle.close();
    try {
      if (this.options.keep === 0) await rm(path, { force: true });
      for (let i = this.options.keep; i >= 1; i--) {
        await rename(i === 1 ? path : `${path}.${i - 1}`, `${path}.${i}`).catch((error: NodeJS.ErrnoException) => {
          if (error.code !== "ENOENT") throw error;
        });
      }
    } finally {
      this.handle = await open(path, "a", 0o644);
      this.size = (await this.handle.stat()).size;
      this.partial = false;
    }
  }

  close(): Promise<void> {
    return this.handle.close();
  }
}
