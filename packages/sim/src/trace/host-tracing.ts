/**
 * Tracing in a plugin module's process (plugin-host), when nri-sim traces:
 * the stub's spans (and the plugin's own) are written to stdout as they end,
 * one line each (span-lines.ts), for the simulator to show and export.
 */
import type { ReadableSpan, SpanProcessor } from "@opentelemetry/sdk-trace";
import { type RegisteredSdk, registerSdk } from "./sdk.js";
import { spanLine } from "./span-lines.js";

/** Writes each span the moment it ends, so that it is on its way before the answer it belongs to. */
class LineProcessor implements SpanProcessor {
  readonly #write: (line: string) => void;

  constructor(write: (line: string) => void) {
    this.#write = write;
  }

  onStart(): void {}

  onEnd(span: ReadableSpan): void {
    this.#write(`${spanLine(span)}\n`);
  }

  async forceFlush(): Promise<void> {}

  async shutdown(): Promise<void> {}
}

/** Registers the SDK of a plugin's process: its spans come from service `plugin` (`NN-name`). */
export function startHostTracing(plugin: string, write: (line: string) => void): Promise<RegisteredSdk> {
  return registerSdk(plugin, [new LineProcessor(write)]);
}
