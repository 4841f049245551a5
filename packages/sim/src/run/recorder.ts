/**
 * Collects what happens during one step (or during setup): the adaptation
 * reports each call to a plugin through its metrics hooks and the owners of
 * each merged request through its `onMerge` observer, the runtime's
 * callbacks report updates and evictions, child plugins their output.
 */
import type { OwningPlugins } from "@nri-ts/api";
import type { Metrics, PluginFailure } from "@nri-ts/adaptation";
import type { DeliveredEvent, EvictionReport, FailureReport, OutputLine, UpdateReport } from "../report/report.js";

/**
 * How much of a plugin's output one record keeps: its first 1,000 lines or
 * 1 MiB (each line is at most 64 KiB); the rest is counted, and said in one
 * line at the end, so that a plugin printing without end costs a bounded
 * report.
 */
export const OUTPUT_KEPT = { lines: 1000, bytes: 1024 * 1024 } as const;

export class StepRecord {
  readonly events: DeliveredEvent[] = [];
  readonly failures: FailureReport[] = [];
  readonly updates: UpdateReport[] = [];
  readonly evictions: EvictionReport[] = [];
  readonly output: OutputLine[] = [];
  /** Per plugin: what its output took so far, kept and left out. */
  readonly #printed = new Map<string, { lines: number; bytes: number; droppedLines: number; droppedBytes: number }>();

  /** A line a plugin printed, kept while the plugin is within OUTPUT_KEPT. */
  addOutput(plugin: string, text: string): void {
    let printed = this.#printed.get(plugin);
    if (!printed) this.#printed.set(plugin, (printed = { lines: 0, bytes: 0, droppedLines: 0, droppedBytes: 0 }));
    const bytes = Buffer.byteLength(text);
    if (printed.lines < OUTPUT_KEPT.lines && printed.bytes + bytes <= OUTPUT_KEPT.bytes) {
      printed.lines += 1;
      printed.bytes += bytes;
      this.output.push({ plugin, text });
    } else {
      printed.droppedLines += 1;
      printed.droppedBytes += bytes;
    }
  }

  /** Ends the record: one line for each plugin whose output was not all kept. */
  close(): void {
    for (const [plugin, { droppedLines, droppedBytes }] of this.#printed) {
      if (droppedLines > 0) {
        this.output.push({
          plugin,
          text: `… ${droppedLines} more lines (${droppedBytes} bytes) not kept: over ${OUTPUT_KEPT.lines} lines or ${OUTPUT_KEPT.bytes} bytes`,
        });
      }
    }
  }
}

/** Plugins whose events reports leave out (the simulator's own scripted plugins). */
export type HiddenPlugins = ReadonlySet<string>;

/** What the simulator takes from the adaptation's `onMerge` events. */
export interface MergedOwners {
  request: object;
  owners: OwningPlugins;
}

/** The adaptation's metrics sink and merge observer, writing into the current record. */
export class Recorder implements Metrics {
  current = new StepRecord();
  /** Calls each plugin has answered (or failed) since the start. */
  readonly calls = new Map<string, number>();
  /** Who set what in each merged request, by the request the runtime sent. */
  private readonly owners = new WeakMap<object, OwningPlugins>();

  constructor(private readonly hidden: HiddenPlugins) {}

  /** Starts a new record and returns the previous one. */
  next(): StepRecord {
    const done = this.current;
    this.current = new StepRecord();
    done.close();
    return done;
  }

  /** The adaptation's `onMerge` option: keeps the owners of every merged CreateContainer, UpdateContainer and StopContainer. */
  readonly merged = ({ request, owners }: MergedOwners): void => {
    this.owners.set(request, owners);
  };

  /** The adaptation's `onPluginFailure` option: what each failure's policy decided. */
  readonly pluginFailed = ({ plugin, operation, error, policy, requestFailed, dropped }: PluginFailure): void => {
    if (this.hidden.has(plugin)) return;
    this.current.failures.push({
      plugin,
      event: operation,
      error: error.message,
      ...(policy && { policy: { failRequest: policy.failRequest, keepConnected: policy.keepConnected } }),
      requestFailed,
      dropped,
    });
  };

  /** The owners of the request that was sent as `request`, once the adaptation has merged it. */
  ownersOf(request: object): OwningPlugins | undefined {
    return this.owners.get(request);
  }

  recordPluginInvocation(plugin: string, operation: string, error: Error | undefined): void {
    this.calls.set(plugin, (this.calls.get(plugin) ?? 0) + 1);
    if (this.hidden.has(plugin)) return;
    this.current.events.push({ plugin, event: operation, ...(error && { error: error.message }) });
  }

  recordPluginLatency(): void {}

  recordPluginAdjustments(): void {}

  updatePluginCount(): void {}
}
