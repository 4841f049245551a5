/**
 * Pods as the API shows them: waiting for a state, reading the status of a
 * container, the events of an object; and the workload pod the tests run.
 */
import type { Pod, PodStatus } from "kubernetes-types/core/v1.js";
import { BUSYBOX_IMAGE } from "../images.js";
import type { Kubectl } from "./kubectl.js";

export type { Pod };

/** A busybox pod in `default` with one container `app` that sleeps, on the pod network. */
export function sleepingPod(name: string, annotations: Record<string, string> = {}): Pod {
  return {
    apiVersion: "v1",
    kind: "Pod",
    metadata: { name, namespace: "default", annotations },
    spec: {
      terminationGracePeriodSeconds: 1,
      containers: [{ name: "app", image: BUSYBOX_IMAGE, imagePullPolicy: "Never", command: ["sleep", "3600"] }],
    },
  };
}

/** Waits until the pod exists and `ready` holds for it; resolves to the pod. */
export function waitPod(
  kubectl: Kubectl,
  name: string,
  ready: (pod: Pod) => boolean | undefined,
  { namespace = "default", timeoutMs = 120_000 }: { namespace?: string; timeoutMs?: number } = {},
): Promise<Pod> {
  return kubectl.until(
    `pod ${namespace}/${name}`,
    async () => {
      const pod = await kubectl.json<Pod>(["get", "pod", name, "-n", namespace]);
      return ready(pod) ? pod : undefined;
    },
    timeoutMs,
  );
}

export function podStatus(pod: Pod): PodStatus {
  return pod.status ?? {};
}

export interface EventRecord {
  reason?: string;
  message?: string;
  type?: string;
  involvedObject?: { kind?: string; name?: string; namespace?: string };
}

/** The events of one object (`kubectl get events --field-selector involvedObject.name=...`). */
export async function eventsOf(kubectl: Kubectl, name: string, namespace = "default"): Promise<EventRecord[]> {
  const list = await kubectl.json<{ items: EventRecord[] }>([
    ...["get", "events", "-n", namespace],
    ...["--field-selector", `involvedObject.name=${name}`],
  ]);
  return list.items;
}
