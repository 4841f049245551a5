/**
 * What the Kubernetes output asks of the API server, and the answer as
 * the output needs it: done, or failed with the HTTP status (none when the
 * server could not be reached) and whether trying again may help.
 */
import type { EventBody, EventSeries } from "./event-body.js";

/** A request the API server refused or never answered. */
export class KubeApiError extends Error {
  override readonly name = "KubeApiError";

  constructor(
    message: string,
    /** The HTTP status; undefined when no answer came (refused, reset, timed out). */
    readonly status: number | undefined,
    /** The server's own reason (`Forbidden`, `AlreadyExists`, `NotFound`, …), when it gave one. */
    readonly reason = "",
  ) {
    super(message);
  }

  /** Trying again later may help: no answer, too many requests, the server's own failure, or a credential it did not take (tokens are renewed). */
  get transient(): boolean {
    const status = this.status;
    return status === undefined || status === 401 || status === 408 || status === 429 || status >= 500;
  }
}

/** A container's end, as the kubelet put it in its pod's status. */
export interface ContainerTermination {
  /** `OOMKilled`, `Error`, `Completed`, `ContainerCannotRun`, … (the runtime's word, through the kubelet). */
  reason: string;
  exitCode: number;
}

/** The calls the output makes; `@kubernetes/client-node` makes them in `client-api.ts`. */
export interface KubeApi {
  /** The server, for the log. */
  readonly server: string;
  createEvent(event: EventBody, signal: AbortSignal): Promise<void>;
  /** Sets the series of an Event (a merge patch: the count and the time are absolute, so a repeat is harmless). */
  patchEventSeries(namespace: string, name: string, series: EventSeries, signal: AbortSignal): Promise<void>;
  /** Sets annotations of a pod (a merge patch). */
  annotatePod(namespace: string, name: string, annotations: Record<string, string>, signal: AbortSignal): Promise<void>;
  /**
   * How the pod's status says the container ended (`state` or
   * `lastState.terminated` with its id), or undefined while the kubelet has
   * not said yet.
   */
  containerTermination(
    namespace: string,
    pod: string,
    containerId: string,
    signal: AbortSignal,
  ): Promise<ContainerTermination | undefined>;
  /** Whether the credentials may do this (a SelfSubjectAccessReview); throws when the server cannot tell. */
  mayI(verb: string, group: string, resource: string, signal: AbortSignal): Promise<boolean>;
}
