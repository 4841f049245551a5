/**
 * Tracing a simulation (`nri-sim run --trace`, `--otlp URL`): nri-sim
 * registers an OpenTelemetry SDK in its process, runs each step in a root
 * span of its own, so that each step is one trace (the runtime's requests,
 * the calls to every plugin and the plugins' own spans under them), keeps
 * the spans to show each step's trace in the report and, with an OTLP URL,
 * exports them there. The plugin modules it runs in processes of their own
 * trace too and send their spans back over stdout (host-tracing.ts), so that
 * one exporter sends everything.
 */
import { type Span, SpanKind, SpanStatusCode, trace } from "@opentelemetry/api";
import { ExportResultCode } from "@opentelemetry/core";
import { OTLPTraceExporter } from "@opentelemetry/exporter-trace-otlp-http";
import { BatchSpanProcessor, type ReadableSpan, type SpanExporter, type SpanProcessor } from "@opentelemetry/sdk-trace";
import { TraceAttribute } from "@nri-ts/api";
import { type RegisteredSdk, registerSdk } from "./sdk.js";
import { readSpanLine } from "./span-lines.js";
import { type TraceReport, traceTree } from "./trace-tree.js";

/** What to do with the spans. */
export interface TraceOptions {
  /** Keep each step's trace for the report. */
  report?: boolean;
  /** Export every span to this OTLP/HTTP endpoint (`http://host:4318`, or its `/v1/traces` URL). */
  otlp?: string;
}

/** How the export went, once the simulation is over. */
export interface ExportSummary {
  url: string;
  spans: number;
  /** Why some spans were not exported. */
  error?: string;
}

/** The service name of nri-sim's own spans (the runtime's). */
export const SIM_SERVICE = "nri-sim";
const TRACER = "@nri-ts/sim";

/** The traces endpoint of an OTLP/HTTP URL: a URL without a path gets `/v1/traces`. */
export function otlpTracesUrl(url: string): string {
  const parsed = new URL(url);
  if (parsed.pathname === "/" || parsed.pathname === "") parsed.pathname = "/v1/traces";
  return parsed.toString();
}

/** Counts what the OTLP exporter sent, and keeps why it failed. */
class CountingExporter implements SpanExporter {
  exported = 0;
  error: string | undefined;
  readonly #exporter: SpanExporter;

  constructor(exporter: SpanExporter) {
    this.#exporter = exporter;
  }

  export(spans: ReadableSpan[], done: Parameters<SpanExporter["export"]>[1]): void {
    this.#exporter.export(spans, (result) => {
      if (result.code === ExportResultCode.SUCCESS) this.exported += spans.length;
      else this.error = result.error?.message ?? "export failed";
      done(result);
    });
  }

  forceFlush(): Promise<void> {
    return this.#exporter.forceFlush?.() ?? Promise.resolve();
  }

  shutdown(): Promise<void> {
    return this.#exporter.shutdown();
  }
}

/** Keeps spans by trace, and notes the runtime's calls to plugins that are to answer with spans of their own. */
class Collector implements SpanProcessor {
  readonly traces = new Map<string, ReadableSpan[]>();
  /** Span ids of ended spans; those that are parents of a span too. */
  readonly #answered = new Set<string>();
  /** The runtime's calls to traced plugin processes, not yet answered by a span of theirs. */
  readonly unanswered = new Map<string, ReadableSpan>();
  /** Keep spans by trace (for the report). */
  readonly keep: boolean;
  /** The plugins (`NN-name`) whose processes send their spans. */
  readonly #hosted: Set<string>;
  #changed: () => void = () => {};

  constructor(keep: boolean, hosted: Set<string>) {
    this.keep = keep;
    this.#hosted = hosted;
  }

  onStart(): void {}

  onEnd(span: ReadableSpan): void {
    const parent = span.parentSpanContext?.spanId;
    if (parent !== undefined) {
      this.#answered.add(parent);
      this.unanswered.delete(parent);
    }
    const { traceId, spanId } = span.spanContext();
    if (span.kind === SpanKind.CLIENT && this.#hosted.has(pluginOf(span)) && !this.#answered.has(spanId)) {
      this.unanswered.set(spanId, span);
    }
    if (this.keep) {
      const spans = this.traces.get(traceId);
      if (spans) spans.push(span);
      else this.traces.set(traceId, [span]);
    }
    this.#changed();
  }

  /** Resolves once every call noted so far is answered, or after `timeoutMs` (then forgets them). */
  async settled(timeoutMs: number): Promise<void> {
    if (this.unanswered.size === 0) return;
    await new Promise<void>((done) => {
      const timer = setTimeout(finish, timeoutMs);
      const check = () => {
        if (this.unanswered.size === 0) finish();
      };
      function finish(): void {
        clearTimeout(timer);
        done();
      }
      this.#changed = check;
    });
    this.#changed = () => {};
    this.unanswered.clear();
  }

  async forceFlush(): Promise<void> {}

  async shutdown(): Promise<void> {}
}

function pluginOf(span: ReadableSpan): string {
  const { [TraceAttribute.pluginIndex]: index, [TraceAttribute.pluginName]: name } = span.attributes;
  return `${String(index)}-${String(name)}`;
}

/** The SDK of one simulation, from its start to its end. */
export class SimTracing {
  readonly #sdk: RegisteredSdk;
  readonly #collector: Collector;
  readonly #batch: BatchSpanProcessor | undefined;
  readonly #exporter: CountingExporter | undefined;
  readonly #url: string | undefined;

  private constructor(
    sdk: RegisteredSdk,
    collector: Collector,
    exporter: { batch: BatchSpanProcessor; counting: CountingExporter; url: string } | undefined,
  ) {
    this.#sdk = sdk;
    this.#collector = collector;
    this.#batch = exporter?.batch;
    this.#exporter = exporter?.counting;
    this.#url = exporter?.url;
  }

  /**
   * Registers the SDK; `hosted` names the plugin modules whose processes
   * send their spans (they are told to trace).
   * @throws SdkRegisteredError when a tracer provider is registered already
   */
  static async start(options: TraceOptions, hosted: Iterable<string>): Promise<SimTracing> {
    const collector = new Collector(options.report ?? false, new Set(hosted));
    let exporter: { batch: BatchSpanProcessor; counting: CountingExporter; url: string } | undefined;
    if (options.otlp !== undefined) {
      const url = otlpTracesUrl(options.otlp);
      const counting = new CountingExporter(new OTLPTraceExporter({ url }));
      exporter = { batch: new BatchSpanProcessor({ exporter: counting }), counting, url };
    }
    const processors: SpanProcessor[] = exporter ? [collector, exporter.batch] : [collector];
    return new SimTracing(await registerSdk(SIM_SERVICE, processors), collector, exporter);
  }

  /**
   * Runs a step in a root span named after it (`create nginx`): every
   * request the runtime sends for it, and every plugin's span, joins its
   * trace. Resolves to the body's result and the trace's id.
   */
  async step<T>(
    scenario: string,
    number: number,
    text: string,
    body: () => Promise<T>,
  ): Promise<{ result: T; traceId: string }> {
    const attributes = { "nri.sim.scenario": scenario, "nri.sim.step": number, "nri.sim.step.text": text };
    return trace.getTracer(TRACER).startActiveSpan(text, { root: true, attributes }, async (span: Span) => {
      try {
        return { result: await body(), traceId: span.spanContext().traceId };
      } catch (error) {
        span.setStatus({ code: SpanStatusCode.ERROR, message: (error as Error).message });
        throw error;
      } finally {
        span.end();
      }
    });
  }

  /** A line with a span a plugin's process sent (see span-lines.ts): reported and exported as if it were ours. */
  acceptLine(line: string): void {
    const span = readSpanLine(line);
    if (span === undefined) return;
    this.#collector.onEnd(span);
    this.#batch?.onEnd(span);
  }

  /** Resolves once the traced plugin processes sent their spans for the calls made so far, or after `timeoutMs`. */
  settled(timeoutMs: number): Promise<void> {
    return this.#collector.settled(timeoutMs);
  }

  /** The trace of a step, for its report (when the report keeps traces), without the calls to `hidden` plugins. */
  report(traceId: string, hidden: ReadonlySet<string>): TraceReport | undefined {
    if (!this.#collector.keep) return undefined;
    const spans = this.#collector.traces.get(traceId) ?? [];
    this.#collector.traces.delete(traceId);
    return traceTree(traceId, spans, hidden);
  }

  /** Flushes the export and unregisters the SDK; says how the export went. */
  async shutdown(): Promise<ExportSummary | undefined> {
    await this.#sdk.shutdown();
    if (this.#url === undefined || this.#exporter === undefined) return undefined;
    const { exported, error } = this.#exporter;
    return { url: this.#url, spans: exported, ...(error !== undefined && { error }) };
  }
}
