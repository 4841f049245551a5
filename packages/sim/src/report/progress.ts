/**
 * The progress line: `[3/12] start nginx…` on a terminal while a step runs,
 * erased before anything else is printed. Silent when the stream is not a
 * terminal.
 */

export interface ProgressStream {
  isTTY?: boolean;
  write(text: string): unknown;
}

export class ProgressLine {
  private shown = false;

  constructor(private readonly stream: ProgressStream) {}

  show(text: string): void {
    if (!this.stream.isTTY) return;
    this.stream.write(`\r\x1b[2K${text}`);
    this.shown = true;
  }

  clear(): void {
    if (!this.shown) return;
    this.stream.write("\r\x1b[2K");
    this.shown = false;
  }
}
