/**
 * The Kubernetes output's calls, made with the official JavaScript client
 * (`@kubernetes/client-node`): in-cluster configuration (the pod's
 * service account, its token read again as the kubelet renews it) by
 * default, or a kubeconfig file for a reporter that runs off the cluster.
 * What cannot work is said at start: a kubeconfig that is missing or
 * unreadable, or no cluster to be in.
 */
import { accessSync, constants, readFileSync } from "node:fs";
import {
  ApiException,
  AuthorizationV1Api,
  type ConfigurationOptions,
  CoreV1Api,
  EventsV1Api,
  type EventsV1Event,
  KubeConfig,
  Observable,
  type ObservableMiddleware,
  PatchStrategy,
  type RequestContext,
  type ResponseContext,
} from "@kubernetes/client-node";
import type { EventBody, EventSeries } from "./event-body.js";
import { type ContainerTermination, KubeApiError, type KubeApi } from "./kube-api.js";

/** Where the kubelet puts a pod's service-account credentials. */
export const SERVICE_ACCOUNT_DIR = "/var/run/secrets/kubernetes.io/serviceaccount";

/** The configuration could not be loaded: the reporter cannot reach any API server with it. */
export class KubeConfigError extends Error {
  override readonly name = "KubeConfigError";
}

/** The kubeconfig file, or the pod's own configuration when `path` is "". */
export function loadKubeConfig(path: string, env: NodeJS.ProcessEnv = process.env): KubeConfig {
  const config = new KubeConfig();
  if (path !== "") {
    let text: string;
    try {
      text = readFileSync(path, "utf8");
    } catch (error) {
      const { code, message } = error as NodeJS.ErrnoException;
      const why = code === "ENOENT" ? "there is no such file" : code === "EACCES" ? "permission denied" : message;
      throw new KubeConfigError(`cannot read the kubeconfig ${path}: ${why}`);
    }
    try {
      config.loadFromString(text);
    } catch (error) {
      throw new KubeConfigError(`the kubeconfig ${path} cannot be used: ${(error as Error).message.split("\n")[0]}`);
    }
    if (!config.getCurrentCluster())
      throw new KubeConfigError(`the kubeconfig ${path} has no current context with a cluster`);
    return config;
  }
  const token = `${SERVICE_ACCOUNT_DIR}/token`;
  if (!env.KUBERNETES_SERVICE_HOST || !env.KUBERNETES_SERVICE_PORT)
    throw new KubeConfigError(
      "not in a Kubernetes pod (KUBERNETES_SERVICE_HOST and KUBERNETES_SERVICE_PORT are not set): set kubernetes.kubeconfig to reach an API server from elsewhere",
    );
  try {
    accessSync(token, constants.R_OK);
  } catch (error) {
    throw new KubeConfigError(
      `cannot read the pod's service-account token ${token} (${(error as NodeJS.ErrnoException).code}): does the pod mount it (automountServiceAccountToken)?`,
    );
  }
  config.loadFromCluster();
  return config;
}

/** Client options that end the request when `signal` aborts (and set the patch's content type). */
function options(signal: AbortSignal, contentType?: string): ConfigurationOptions {
  const middleware: ObservableMiddleware = {
    pre: (request: RequestContext) => {
      request.setSignal(signal);
      if (contentType) request.setHeaderParam("Content-Type", contentType);
      return new Observable(Promise.resolve(request));
    },
    post: (response: ResponseContext) => new Observable(Promise.resolve(response)),
  };
  return { middleware: [middleware], middlewareMergeStrategy: "append" };
}

/** The server's Status in an error's body, if it sent one. */
function statusOf(body: unknown): { reason?: string; message?: string } {
  if (typeof body === "string") {
    try {
      return statusOf(JSON.parse(body));
    } catch {
      return { message: body.slice(0, 500) };
    }
  }
  return typeof body === "object" && body !== null ? (body as { reason?: string; message?: string }) : {};
}

/** Any failure of a call, as a KubeApiError. */
function failure(error: unknown, signal: AbortSignal): KubeApiError {
  if (error instanceof ApiException) {
    const status = statusOf(error.body);
    return new KubeApiError(
      `${error.code}${status.reason ? ` ${status.reason}` : ""}: ${status.message ?? "no message"}`,
      error.code,
      status.reason ?? "",
    );
  }
  if (signal.aborted)
    return new KubeApiError(`no answer: ${String(signal.reason?.message ?? signal.reason)}`, undefined);
  const message = (error as Error)?.message ?? String(error);
  return new KubeApiError(message.replace(/^request to \S+ failed, reason: /, ""), undefined);
}

async function call<T>(signal: AbortSignal, request: () => Promise<T>): Promise<T> {
  try {
    return await request();
  } catch (error) {
    throw failure(error, signal);
  }
}

/** The calls, on a loaded configuration. */
export function clientApi(config: KubeConfig): KubeApi {
  const events = config.makeApiClient(EventsV1Api);
  const core = config.makeApiClient(CoreV1Api);
  const authorization = config.makeApiClient(AuthorizationV1Api);
  return {
    server: config.getCurrentCluster()?.server ?? "",
    async createEvent(event: EventBody, signal: AbortSignal) {
      await call(signal, () =>
        // times as MicroTime texts (the client's V1MicroTime is a Date: milliseconds); it sends them as they are
        events.createNamespacedEvent(
          { namespace: event.metadata.namespace, body: event as unknown as EventsV1Event },
          options(signal),
        ),
      );
    },
    async patchEventSeries(namespace: string, name: string, series: EventSeries, signal: AbortSignal) {
      await call(signal, () =>
        events.patchNamespacedEvent({ name, namespace, body: { series } }, options(signal, PatchStrategy.MergePatch)),
      );
    },
    async annotatePod(namespace: string, name: string, annotations: Record<string, string>, signal: AbortSignal) {
      await call(signal, () =>
        core.patchNamespacedPod(
          { name, namespace, body: { metadata: { annotations } } },
          options(signal, PatchStrategy.MergePatch),
        ),
      );
    },
    async containerTermination(namespace: string, pod: string, containerId: string, signal: AbortSignal) {
      const { status } = await call(signal, () => core.readNamespacedPod({ name: pod, namespace }, options(signal)));
      const statuses = [
        ...(status?.containerStatuses ?? []),
        ...(status?.initContainerStatuses ?? []),
        ...(status?.ephemeralContainerStatuses ?? []),
      ];
      for (const container of statuses)
        for (const terminated of [container.state?.terminated, container.lastState?.terminated]) {
          // `containerd://<id>`, `cri-o://<id>`
          if (terminated?.containerID?.endsWith(`://${containerId}`))
            return { reason: terminated.reason ?? "", exitCode: terminated.exitCode } satisfies ContainerTermination;
        }
      return undefined;
    },
    async mayI(verb: string, group: string, resource: string, signal: AbortSignal) {
      const review = await call(signal, () =>
        authorization.createSelfSubjectAccessReview(
          {
            body: {
              apiVersion: "authorization.k8s.io/v1",
              kind: "SelfSubjectAccessReview",
              spec: { resourceAttributes: { verb, group, resource } },
            },
          },
          options(signal),
        ),
      );
      return review.status?.allowed === true;
    },
  };
}
