/**
 * A second opinion on a SIGKILL the reporter could not confirm as an OOM
 * kill: the pod's status. The runtime watches the container's cgroup for
 * OOM events while it runs and tells the kubelet, whose status of the
 * container then says `OOMKilled`. The reporter cannot always tell itself:
 * at the end the container's cgroup may be gone already, and on cgroup v1
 * the pod's cgroup does not count the kill (see oom/parent-counter.ts).
 *
 * For the Kubernetes output only, which asks the API server anyway: its
 * Event (and the pod annotation) of such an end waits until the kubelet
 * has put the end in the pod's status, a few seconds at most. The other
 * outputs have the record at once, as the reporter made it.
 */
import { setTimeout as sleep } from "node:timers/promises";
import type { Logger } from "@nri-ts/stub";
import { type ExitRecord, OomVerdict, Source } from "../../gen/nri_ts/exit_reporter/v1/exit_reporter.js";
import { formatRunTime } from "../../record/explanation.js";
import { KubeApiError, type KubeApi } from "./kube-api.js";

const SIGKILL_EXIT = 137;
/** The kubelet puts an end in the pod's status within a few seconds (its PLEG relists every second). */
export const POD_STATUS_WAIT = { attempts: 10, intervalMs: 1000 } as const;
const REQUEST_TIMEOUT_MS = 5000;

/** An end the pod's status may explain better: a SIGKILL the reporter could not tell the cause of. */
export function wantsPodStatus(record: ExitRecord): boolean {
  const ownWords = record.reasonSource === Source.SOURCE_INFERRED || record.reasonSource === Source.SOURCE_UNSPECIFIED;
  return (
    record.exitCode === SIGKILL_EXIT &&
    record.oom?.verdict === OomVerdict.OOM_VERDICT_UNKNOWN &&
    ownWords &&
    record.container?.id !== undefined &&
    record.container.id !== ""
  );
}

/** The record, told by the pod's status that the runtime saw an OOM kill. */
export function oomKilledByRuntime(record: ExitRecord): ExitRecord {
  const ran = record.runTimeNs !== undefined ? `; ran for ${formatRunTime(record.runTimeNs)}` : "";
  const own = record.oom?.evidence ?? "";
  return {
    ...record,
    reason: "OOMKilled",
    reasonSource: Source.SOURCE_RUNTIME,
    oom: {
      verdict: OomVerdict.OOM_VERDICT_CONFIRMED,
      evidence: `the pod's status says OOMKilled, as the runtime told the kubelet (the reporter's own check: ${own})`,
      path: "",
    },
    explanation: `killed by the out-of-memory killer (exit 137, SIGKILL), as the runtime told the kubelet: the pod's status says OOMKilled (the reporter could not confirm it itself: ${own})${ran}`,
  };
}

export interface PodStatusOomOptions {
  api: KubeApi;
  logger: Logger;
  wait?: { attempts: number; intervalMs: number };
}

export class PodStatusOom {
  constructor(private readonly options: PodStatusOomOptions) {}

  /**
   * The record as the pod's status explains it: an OOM kill when the
   * kubelet says `OOMKilled`, else unchanged (another reason, no word
   * within the wait, a refusal, `signal` aborted). Never rejects.
   */
  async explain(record: ExitRecord, signal: AbortSignal): Promise<ExitRecord> {
    const { api, logger } = this.options;
    const { attempts, intervalMs } = this.options.wait ?? POD_STATUS_WAIT;
    const pod = record.pod!;
    const id = record.container!.id;
    for (let attempt = 0; attempt < attempts && !signal.aborted; attempt++) {
      if (attempt > 0) await sleep(intervalMs, undefined, { signal }).catch(() => undefined);
      if (signal.aborted) break;
      try {
        const request = AbortSignal.any([signal, AbortSignal.timeout(REQUEST_TIMEOUT_MS)]);
        const ended = await api.containerTermination(pod.namespace, pod.name, id, request);
        if (ended) return ended.reason === "OOMKilled" ? oomKilledByRuntime(record) : record;
      } catch (error) {
        if (signal.aborted) break;
        const status = error instanceof KubeApiError ? error.status : undefined;
        // the pod is gone (deleted, its containers killed at the end of their grace period): nothing to read
        if (status === 404) return record;
        // not to be read (RBAC, …): waiting will not change it
        if (status !== undefined && status !== 429 && status < 500) {
          logger.warn(
            { pod: `${pod.namespace}/${pod.name}`, container: id, status },
            `cannot read the status of pod ${pod.namespace}/${pod.name} to learn whether the runtime saw an OOM kill: ${(error as Error).message}`,
          );
          return record;
        }
      }
    }
    return record;
  }
}
