/**
 * Collects what happens during one step (or during setup): the adaptation
 * reports each call to a plugin through its metrics hooks, the runtime's
 * callbacks report updates and evictions, child plugins their output.
 */
import type { ContainerAdjustment } from "@nri-ts/api";
import { ContainerAdjustment as ContainerAdjustmentFns } from "@nri-ts/api";
import type { Metrics } from "@nri-ts/adaptation";
import type { DeliveredEvent, EvictionReport, OutputLine, UpdateReport } from "./report.js";

/** What one plugin asked for in a CreateContainer reply, as it arrived. */
export interface PluginAdjustment {
  plugin: string;
  adjust: ContainerAdjustment;
}

export class StepRecord {
  readonly events: DeliveredEvent[] = [];
  readonly adjustments: PluginAdjustment[] = [];
  readonly updates: UpdateReport[] = [];
  readonly evictions: EvictionReport[] = [];
  readonly output: OutputLine[] = [];
}

/** Plugins whose events reports leave out (the simulator's own scripted plugins). */
export type HiddenPlugins = ReadonlySet<string>;

function errorText(error: Error): string {
  return error.message;
}

/**
 * The adaptation's metrics sink, writing into the current record. Adjustments
 * are copied when they arrive, before the merge consumes them.
 */
export class Recorder implements Metrics {
  current = new StepRecord();
  /** Calls each plugin has answered (or failed) since the start. */
  readonly calls = new Map<string, number>();

  constructor(private readonly hidden: HiddenPlugins) {}

  /** Starts a new record and returns the previous one. */
  next(): StepRecord {
    const done = this.current;
    this.current = new StepRecord();
    return done;
  }

  recordPluginInvocation(plugin: string, operation: string, error: Error | undefined): void {
    this.calls.set(plugin, (this.calls.get(plugin) ?? 0) + 1);
    if (this.hidden.has(plugin)) return;
    this.current.events.push({ plugin, event: operation, ...(error && { error: errorText(error) }) });
  }

  recordPluginLatency(): void {}

  recordPluginAdjustments(plugin: string, operation: string, adjust: ContainerAdjustment | undefined): void {
    if (operation === "CreateContainer" && adjust) {
      this.current.adjustments.push({ plugin, adjust: ContainerAdjustmentFns.fromPartial(adjust) });
    }
  }

  updatePluginCount(): void {}
}
