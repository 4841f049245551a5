/**
 * A real trace collector for the tracing tests: Jaeger v2 (an OpenTelemetry
 * Collector distribution), built from the Go module proxy at a pinned
 * version and cached by recipe with packages/e2e's tools (outside the
 * checkout, in ~/.cache/nri-ts-e2e/tools), then run with in-memory storage,
 * an OTLP/HTTP receiver and its query API on free loopback ports.
 *
 * Its module ships no UI (the UI is a separate project): the binary serves
 * a placeholder page; `ui` points the query service at a built Jaeger UI.
 */
import { type ChildProcess, execFile, spawn } from "node:child_process";
import { once } from "node:events";
import { writeFile } from "node:fs/promises";
import { createServer } from "node:net";
import { join } from "node:path";
import { setTimeout as sleep } from "node:timers/promises";
import { fileURLToPath } from "node:url";
import { promisify } from "node:util";
import { ensureTool, type GoTool } from "../../e2e/src/tools.js";

export const JAEGER_VERSION = "v1.75.0";

export const jaegerTool: GoTool = {
  key: `jaeger-${JAEGER_VERSION}`,
  module: "github.com/jaegertracing/jaeger",
  version: JAEGER_VERSION,
  packages: ["./cmd/jaeger"],
  binaries: ["jaeger"],
};

/** Builds Jaeger (if its recipe is not cached), resolving to the binary. Used by `jaeger-cli.ts build`. */
export async function buildJaeger(): Promise<{ binary: string; built: boolean }> {
  const { bin, built } = await ensureTool(jaegerTool);
  return { binary: join(bin, "jaeger"), built };
}

/**
 * The Jaeger binary: `jaeger-cli.ts build` in a child process at a lower
 * priority (nice 10), so that a cold build (about 11 minutes of CPU, 1.3 GB
 * of modules) leaves the cores to the rest; a cached one answers at once.
 */
export async function jaegerBinary(): Promise<string> {
  const cli = join(fileURLToPath(import.meta.url), "..", "jaeger-cli.ts");
  const { stdout } = await promisify(execFile)(
    "nice",
    ["-n", "10", process.execPath, "--import", "tsx", cli, "build"],
    { maxBuffer: 16 << 20 },
  );
  return stdout.trim().split("\n").at(-1)!;
}

async function freePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as { port: number };
  await new Promise((resolve) => server.close(resolve));
  return port;
}

/** A span as Jaeger's query API gives it (`/api/traces/{id}`). */
export interface JaegerSpan {
  traceID: string;
  spanID: string;
  operationName: string;
  references: Array<{ refType: string; traceID: string; spanID: string }>;
  startTime: number;
  duration: number;
  tags: Array<{ key: string; type: string; value: unknown }>;
  processID: string;
}

/** A trace as the query API gives it. */
export interface JaegerTrace {
  traceID: string;
  spans: JaegerSpan[];
  processes: Record<string, { serviceName: string }>;
}

/** A running Jaeger: where to send OTLP, where to query. */
export class Jaeger {
  readonly otlpUrl: string;
  readonly queryUrl: string;
  readonly #child: ChildProcess;
  #output = "";

  private constructor(child: ChildProcess, otlpUrl: string, queryUrl: string) {
    this.#child = child;
    this.otlpUrl = otlpUrl;
    this.queryUrl = queryUrl;
    const keep = (chunk: Buffer) => (this.#output = (this.#output + chunk.toString()).slice(-8192));
    child.stdout?.on("data", keep);
    child.stderr?.on("data", keep);
  }

  /**
   * Starts Jaeger with a configuration in `dir`; resolves once its query API
   * answers. `ui`: a built Jaeger UI to serve (its `assets_path`).
   */
  static async start(binary: string, dir: string, options: { ui?: string } = {}): Promise<Jaeger> {
    const [otlp, query, queryGrpc, health] = await Promise.all([freePort(), freePort(), freePort(), freePort()]);
    const config = join(dir, "jaeger.yaml");
    await writeFile(
      config,
      `service:
  extensions: [jaeger_storage, jaeger_query, healthcheckv2]
  pipelines:
    traces:
      receivers: [otlp]
      processors: [batch]
      exporters: [jaeger_storage_exporter]
  telemetry:
    metrics:
      level: none
    logs:
      level: warn
extensions:
  healthcheckv2:
    use_v2: true
    http:
      endpoint: 127.0.0.1:${health}
  jaeger_query:
    storage:
      traces: memory
    http:
      endpoint: 127.0.0.1:${query}
    grpc:
      endpoint: 127.0.0.1:${queryGrpc}
${options.ui ? `    ui:\n      assets_path: ${JSON.stringify(options.ui)}\n` : ""}  jaeger_storage:
    backends:
      memory:
        memory:
          max_traces: 10000
receivers:
  otlp:
    protocols:
      http:
        endpoint: 127.0.0.1:${otlp}
processors:
  batch:
    timeout: 100ms
exporters:
  jaeger_storage_exporter:
    trace_storage: memory
`,
    );
    const child = spawn(binary, ["--config", `file:${config}`], { stdio: ["ignore", "pipe", "pipe"] });
    const jaeger = new Jaeger(child, `http://127.0.0.1:${otlp}`, `http://127.0.0.1:${query}`);
    const exited = once(child, "exit");
    for (const started = Date.now(); ; await sleep(100)) {
      if (child.exitCode !== null) {
        await exited;
        throw new Error(`jaeger exited with ${child.exitCode}: ${jaeger.#output}`);
      }
      if (await jaeger.#answers()) return jaeger;
      if (Date.now() - started > 60_000) {
        await jaeger.stop();
        throw new Error(`jaeger's query API did not answer within 60 s: ${jaeger.#output}`);
      }
    }
  }

  async #answers(): Promise<boolean> {
    try {
      return (await fetch(`${this.queryUrl}/api/services`)).ok;
    } catch {
      return false;
    }
  }

  /** A trace by its id; undefined while Jaeger has none of its spans. */
  async trace(traceId: string): Promise<JaegerTrace | undefined> {
    const response = await fetch(`${this.queryUrl}/api/traces/${traceId}`);
    if (response.status === 404) return undefined;
    if (!response.ok)
      throw new Error(`jaeger: GET /api/traces/${traceId}: ${response.status} ${await response.text()}`);
    return ((await response.json()) as { data: JaegerTrace[] }).data[0];
  }

  /** The names of the services it has spans of. */
  async services(): Promise<string[]> {
    const response = await fetch(`${this.queryUrl}/api/services`);
    return ((await response.json()) as { data: string[] | null }).data ?? [];
  }

  /** What it printed last, for a failure's message. */
  get output(): string {
    return this.#output;
  }

  async stop(): Promise<void> {
    if (this.#child.exitCode !== null || this.#child.signalCode !== null) return;
    const exited = once(this.#child, "exit");
    this.#child.kill("SIGTERM");
    await exited;
  }
}
