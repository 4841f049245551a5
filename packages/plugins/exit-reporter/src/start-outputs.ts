/**
 * Starts the outputs a configuration asks for, all or none: when one
 * cannot start, those already started are closed again and the error says
 * which output failed and why.
 */
import type { Writable } from "node:stream";
import type { AttachCauseRequest, AttachCauseResponse } from "./gen/nri_ts/exit_reporter/v1/exit_reporter.js";
import type { ExitReporterConfig } from "./config.js";
import { GrpcOutput } from "./outputs/grpc-output.js";
import { JsonLinesOutput } from "./outputs/json-lines.js";
import { RotatingFile, streamSink } from "./outputs/line-sinks.js";
import { PrometheusOutput } from "./outputs/metrics.js";
import type { DropListener, ExitOutput } from "./outputs/output.js";
import { hostname } from "node:os";
import type { Logger } from "@nri-ts/stub";
import { clientApi, loadKubeConfig } from "./outputs/kubernetes/client-api.js";
import { KubernetesOutput } from "./outputs/kubernetes/kubernetes-output.js";

export interface OutputDependencies {
  onDrop: DropListener;
  onSubscriberDropped: (peer: string, why: string) => void;
  attachCause: (request: AttachCauseRequest) => AttachCauseResponse;
  /** Where `jsonLines.path: "-"` writes; default stdout. */
  stdout?: Writable;
  logger: Logger;
  /** Told about each request of the Kubernetes output. */
  onKubernetesRequest?: (operation: string, outcome: string) => void;
}

async function startOne(name: string, start: () => Promise<ExitOutput>): Promise<ExitOutput> {
  try {
    return await start();
  } catch (error) {
    throw new Error(`cannot start the ${name} output: ${(error as Error).message}`, { cause: error });
  }
}

export async function startOutputs(config: ExitReporterConfig, deps: OutputDependencies): Promise<ExitOutput[]> {
  const started: ExitOutput[] = [];
  try {
    const { jsonLines, prometheus, grpc, kubernetes } = config;
    if (prometheus) {
      started.push(
        await startOne("prometheus", () =>
          PrometheusOutput.start({
            host: prometheus.listen.host,
            port: prometheus.listen.port,
            maxNamespaces: prometheus.maxNamespaces,
            reasons: prometheus.reasons,
          }),
        ),
      );
    }
    if (jsonLines) {
      started.push(
        await startOne("json-lines", async () => {
          const sink =
            jsonLines.path === "-"
              ? streamSink(deps.stdout ?? process.stdout, "stdout")
              : await RotatingFile.open(jsonLines.path, jsonLines);
          return new JsonLinesOutput(sink, { onDrop: deps.onDrop });
        }),
      );
    }
    if (grpc) {
      started.push(
        await startOne("grpc", () =>
          GrpcOutput.start({
            address: grpc.listen,
            recent: grpc.recent,
            subscriberBuffer: grpc.subscriberBuffer,
            onSubscriberDropped: deps.onSubscriberDropped,
            attachCause: deps.attachCause,
          }),
        ),
      );
    }
    if (kubernetes) {
      started.push(
        await startOne("kubernetes", async () => {
          const output = new KubernetesOutput({
            api: clientApi(loadKubeConfig(kubernetes.kubeconfig)),
            node: kubernetes.node || process.env.NODE_NAME || hostname(),
            events: kubernetes.events,
            podAnnotations: kubernetes.podAnnotations,
            oomFromPodStatus: kubernetes.oomFromPodStatus,
            queue: { maxItems: kubernetes.queue.maxEvents, maxBytes: kubernetes.queue.maxBytes },
            rateLimits: {
              pod: {
                burst: kubernetes.rateLimit.perPod.burst,
                refillMs: kubernetes.rateLimit.perPod.refillSeconds * 1000,
              },
              overall: {
                burst: kubernetes.rateLimit.overall.burst,
                refillMs: kubernetes.rateLimit.overall.refillSeconds * 1000,
              },
            },
            onDrop: deps.onDrop,
            onRequest: deps.onKubernetesRequest,
            logger: deps.logger,
          });
          void output.checkAccess();
          return output;
        }),
      );
    }
  } catch (error) {
    await Promise.all(started.map((output) => output.close().catch(() => {})));
    throw error;
  }
  return started;
}
