/**
 * The JSON-lines output: one JSON object per exit and line, to stdout or a
 * file. Lines wait in a bounded queue while earlier ones are written; when
 * the sink is slower than the exits (a full pipe, a slow disk) or fails (a
 * full disk), records are dropped and counted, never waited for.
 */
import { exitRecordToJson } from "./json-record.js";
import type { ExitRecord } from "../gen/nri_ts/exit_reporter/v1/exit_reporter.js";
import type { LineSink } from "./line-sinks.js";
import type { DropListener, ExitOutput } from "./output.js";

export interface JsonLinesOptions {
  /** How many bytes of lines may wait to be written; default 4 MiB. */
  maxQueuedBytes?: number;
  onDrop: DropListener;
}

export const DEFAULT_MAX_QUEUED_BYTES = 4 * 1024 * 1024;

export class JsonLinesOutput implements ExitOutput {
  readonly name = "json-lines";
  readonly where: string;
  private readonly queue: string[] = [];
  private queuedBytes = 0;
  private pumping: Promise<void> | undefined;
  private readonly maxQueuedBytes: number;

  constructor(
    private readonly sink: LineSink,
    private readonly options: JsonLinesOptions,
  ) {
    this.maxQueuedBytes = options.maxQueuedBytes ?? DEFAULT_MAX_QUEUED_BYTES;
    this.where = sink.description;
  }

  publish(record: ExitRecord): void {
    const line = `${JSON.stringify(exitRecordToJson(record))}\n`;
    if (this.queuedBytes + line.length > this.maxQueuedBytes) {
      this.options.onDrop(
        this.name,
        1,
        `${this.sink.description} is not keeping up (${this.queuedBytes} bytes waiting)`,
      );
      return;
    }
    this.queue.push(line);
    this.queuedBytes += line.length;
    this.pumping ??= this.pump().finally(() => {
      this.pumping = undefined;
    });
  }

  private async pump(): Promise<void> {
    for (let line = this.queue.shift(); line !== undefined; line = this.queue.shift()) {
      try {
        await this.sink.write(line);
      } catch (error) {
        this.options.onDrop(this.name, 1, `cannot write to ${this.sink.description}: ${(error as Error).message}`);
      } finally {
        this.queuedBytes -= line.length;
      }
    }
  }

  /** Waits for the queued lines (at most `waitMs`), then closes the sink. */
  async close(waitMs = 2000): Promise<void> {
    if (this.pumping !== undefined) {
      let timer: NodeJS.Timeout | undefined;
      await Promise.race([this.pumping, new Promise((resolve) => (timer = setTimeout(resolve, waitMs)))]);
      clearTimeout(timer);
    }
    const lost = this.queue.length;
    this.queue.length = 0;
    if (lost > 0)
      this.options.onDrop(this.name, lost, `${this.sink.description} did not take them before the reporter stopped`);
    await this.sink.close();
  }
}
