/**
 * Logs lost records without flooding the log: the first loss of an output
 * at once, then one summary per interval while losses go on.
 */
import type { Logger } from "@nri-ts/stub";

export const DROP_LOG_INTERVAL_MS = 10_000;

interface Pending {
  records: number;
  why: string;
  timer: NodeJS.Timeout;
}

export class DropLog {
  private readonly pending = new Map<string, Pending | undefined>();

  constructor(
    private readonly logger: Logger,
    private readonly intervalMs = DROP_LOG_INTERVAL_MS,
  ) {}

  dropped(output: string, records: number, why: string): void {
    const pending = this.pending.get(output);
    if (pending) {
      pending.records += records;
      pending.why = why;
      return;
    }
    this.logger.warn({ output, records }, `${output} output lost ${plural(records)}: ${why}`);
    const timer = setTimeout(() => this.flush(output), this.intervalMs).unref();
    this.pending.set(output, { records: 0, why, timer });
  }

  private flush(output: string): void {
    const pending = this.pending.get(output);
    this.pending.delete(output);
    if (!pending || pending.records === 0) return;
    this.logger.warn(
      { output, records: pending.records },
      `${output} output lost ${plural(pending.records)} more in ${this.intervalMs / 1000}s (the last: ${pending.why})`,
    );
  }

  /** Logs what is pending now. */
  close(): void {
    for (const [output, pending] of this.pending) {
      if (pending) clearTimeout(pending.timer);
      this.flush(output);
    }
  }
}

function plural(records: number): string {
  return `${records} record${records === 1 ? "" : "s"}`;
}
