/**
 * Logs losses without flooding the log: the first of a kind at once, then
 * one summary per interval while they go on (records an output lost,
 * causes the cause book forgot).
 */
import type { Logger } from "@nri-ts/stub";

export const BURST_LOG_INTERVAL_MS = 10_000;

/** A kind of loss: `lost(3)` says "json-lines output lost 3 records", "forgot 3 declared causes". */
export interface LossKind {
  key: string;
  lost: (count: number) => string;
  fields?: Record<string, unknown>;
}

interface Pending {
  kind: LossKind;
  count: number;
  why: string;
  timer: NodeJS.Timeout;
}

export class BurstLog {
  private readonly pending = new Map<string, Pending>();

  constructor(
    private readonly logger: Logger,
    private readonly intervalMs = BURST_LOG_INTERVAL_MS,
  ) {}

  lost(kind: LossKind, count: number, why: string): void {
    const pending = this.pending.get(kind.key);
    if (pending) {
      pending.count += count;
      pending.why = why;
      return;
    }
    this.logger.warn({ ...kind.fields, count }, `${kind.lost(count)}: ${why}`);
    const timer = setTimeout(() => this.flush(kind.key), this.intervalMs).unref();
    this.pending.set(kind.key, { kind, count: 0, why, timer });
  }

  private flush(key: string): void {
    const pending = this.pending.get(key);
    this.pending.delete(key);
    if (!pending || pending.count === 0) return;
    this.logger.warn(
      { ...pending.kind.fields, count: pending.count },
      `${pending.kind.lost(pending.count)} more in ${this.intervalMs / 1000}s (the last: ${pending.why})`,
    );
  }

  /** Logs what is pending now. */
  close(): void {
    for (const [key, pending] of this.pending) {
      clearTimeout(pending.timer);
      this.flush(key);
    }
  }
}

/** Records an output lost. */
export function recordsLost(output: string): LossKind {
  return {
    key: `output ${output}`,
    lost: (records) => `${output} output lost ${records} record${records === 1 ? "" : "s"}`,
    fields: { output },
  };
}

/** Causes the cause book forgot to stay within its limits. */
export const CAUSES_FORGOTTEN: LossKind = {
  key: "causes",
  lost: (causes) => `forgot ${causes} declared cause${causes === 1 ? "" : "s"}`,
};
