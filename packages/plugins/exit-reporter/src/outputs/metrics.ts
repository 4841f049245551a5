/**
 * The Prometheus output: counters and a histogram of exits, served over
 * HTTP at `/metrics` (prom-client, its own registry). Labels are bounded
 * so that no pod churn can make the series grow without end: no container
 * or pod ids, the first `maxNamespaces` namespaces by name and the rest as
 * `_other`, reasons from a known list and the rest as `Other`.
 */
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { Counter, Histogram, Registry } from "prom-client";
import type { ExitRecord } from "../gen/nri_ts/exit_reporter/v1/exit_reporter.js";
import type { ExitOutput } from "./output.js";

/** Reasons that get a label value of their own; others count as `Other`. */
export const KNOWN_REASONS = [
  "Completed",
  "Error",
  "OOMKilled",
  "StartError",
  "ContainerCannotRun",
  "DeadlineExceeded",
  "Evicted",
  "Preempted",
] as const;

export const DEFAULT_MAX_NAMESPACES = 100;
const OTHER_NAMESPACE = "_other";

/** Run-time buckets, in seconds: a second to a day. */
const RUN_SECONDS_BUCKETS = [1, 5, 15, 60, 300, 900, 3600, 14_400, 86_400];

export interface PrometheusOptions {
  host: string;
  port: number;
  maxNamespaces?: number;
  /** More reasons to label by their own name (e.g. those other plugins declare). */
  reasons?: readonly string[];
}

/**
 * What kind of end, as a label: `success`, `error` (1-125, or 128 after a
 * start), `not-executable` (126), `not-found` (127), `start-error`,
 * `signal` (129-192), `other`, or `unknown` (not reported).
 */
export function codeClass(record: ExitRecord): string {
  const code = record.exitCode;
  if (code === undefined) return "unknown";
  if (record.flags.includes("start-error")) return "start-error";
  if (code === 0) return "success";
  if (code === 126) return "not-executable";
  if (code === 127) return "not-found";
  if ((code >= 1 && code <= 125) || code === 128) return "error";
  if (code >= 129 && code <= 192) return "signal";
  return "other";
}

export class PrometheusOutput implements ExitOutput {
  readonly name = "prometheus";
  readonly registry = new Registry();
  private readonly exits: Counter<"namespace" | "reason" | "code_class" | "signal">;
  private readonly runSeconds: Histogram<"namespace" | "code_class">;
  private readonly dropped: Counter<"output">;
  private readonly kubernetesRequests: Counter<"operation" | "outcome">;
  private readonly forgottenCauses: Counter;
  private readonly namespaces = new Set<string>();
  private readonly reasons: ReadonlySet<string>;
  private readonly maxNamespaces: number;

  private constructor(
    private readonly server: Server,
    options: PrometheusOptions,
  ) {
    this.maxNamespaces = options.maxNamespaces ?? DEFAULT_MAX_NAMESPACES;
    this.reasons = new Set([...KNOWN_REASONS, ...(options.reasons ?? [])]);
    const registers = [this.registry];
    this.exits = new Counter({
      name: "nri_container_exits_total",
      help: "Container ends reported, by pod namespace, reason, kind of exit code and signal.",
      labelNames: ["namespace", "reason", "code_class", "signal"],
      registers,
    });
    this.runSeconds = new Histogram({
      name: "nri_container_run_seconds",
      help: "How long containers ran, from start to finish, by pod namespace and kind of exit code.",
      labelNames: ["namespace", "code_class"],
      buckets: RUN_SECONDS_BUCKETS,
      registers,
    });
    this.dropped = new Counter({
      name: "nri_exit_reporter_dropped_records_total",
      help: "Exit records an output lost (it could not keep up, or failed).",
      labelNames: ["output"],
      registers,
    });
    this.forgottenCauses = new Counter({
      name: "nri_exit_reporter_forgotten_causes_total",
      help: "Causes attached over gRPC that the reporter forgot before their exit, to stay within its limits.",
      registers,
    });
    this.kubernetesRequests = new Counter({
      name: "nri_exit_reporter_kubernetes_requests_total",
      help: "Requests of the Kubernetes output to the API server, by operation (create, patch, annotate) and outcome (ok, the HTTP status, or unreachable).",
      labelNames: ["operation", "outcome"],
      registers,
    });
  }

  /** Starts the HTTP server; rejects when it cannot listen. */
  static async start(options: PrometheusOptions): Promise<PrometheusOutput> {
    let output: PrometheusOutput | undefined;
    const server = createServer((request, response) => {
      if (request.method !== "GET" || request.url?.split("?")[0] !== "/metrics" || !output) {
        response.writeHead(404, { "content-type": "text/plain" }).end("not found: metrics are at /metrics\n");
        return;
      }
      output.registry.metrics().then(
        (text) => response.writeHead(200, { "content-type": output!.registry.contentType }).end(text),
        (error: Error) => response.writeHead(500, { "content-type": "text/plain" }).end(`${error.message}\n`),
      );
    });
    await new Promise<void>((resolve, reject) => {
      server.once("error", reject);
      server.listen(options.port, options.host || undefined, () => {
        server.off("error", reject);
        resolve();
      });
    });
    output = new PrometheusOutput(server, options);
    return output;
  }

  /** Where it listens (the port chosen, when asked for port 0). */
  get port(): number {
    return (this.server.address() as AddressInfo).port;
  }

  get where(): string {
    const { address, family } = this.server.address() as AddressInfo;
    return `http://${family === "IPv6" ? `[${address}]` : address}:${this.port}/metrics`;
  }

  publish(record: ExitRecord): void {
    const namespace = this.namespaceLabel(record.pod?.namespace ?? "");
    const codeClassLabel = codeClass(record);
    const reason = record.reason === "" ? "Unknown" : this.reasons.has(record.reason) ? record.reason : "Other";
    const signal = codeClassLabel !== "signal" ? "" : /^SIG[A-Z0-9]+$/.test(record.signal) ? record.signal : "realtime";
    this.exits.inc({ namespace, reason, code_class: codeClassLabel, signal });
    if (record.runTimeNs !== undefined) {
      this.runSeconds.observe({ namespace, code_class: codeClassLabel }, Number(record.runTimeNs) / 1e9);
    }
  }

  /** Counts records another output lost. */
  countDropped(output: string, records: number): void {
    this.dropped.inc({ output }, records);
  }

  /** Counts causes the reporter forgot to make room. */
  countForgottenCauses(causes: number): void {
    this.forgottenCauses.inc(causes);
  }

  /** Counts a request of the Kubernetes output. */
  countKubernetesRequest(operation: string, outcome: string): void {
    this.kubernetesRequests.inc({ operation, outcome });
  }

  private namespaceLabel(namespace: string): string {
    if (this.namespaces.has(namespace)) return namespace;
    if (this.namespaces.size >= this.maxNamespaces) return OTHER_NAMESPACE;
    this.namespaces.add(namespace);
    return namespace;
  }

  close(): Promise<void> {
    return new Promise((resolve) => {
      this.server.close(() => resolve());
      this.server.closeAllConnections();
    });
  }
}
