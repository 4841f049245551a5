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

/** A finalizer of ours: it keeps a pod's object, with its last status, after the pod ended, until {@link releasePod}. */
export const KEEP = "e2e.nri-ts.dev/keep";

/** A container run to its end, one way or another. */
export interface EndingContainer {
  /** The pod's name; the container is `app`. */
  name: string;
  command: string[];
  /** Its memory limit (e.g. `32Mi`, to be OOM-killed). */
  memory?: string;
  restartPolicy?: "Never" | "OnFailure";
  annotations?: Record<string, string>;
}

/** A busybox pod in `default` whose container `app` runs `command` to its end, kept by {@link KEEP}. */
export function endingPod(c: EndingContainer): Pod {
  return {
    apiVersion: "v1",
    kind: "Pod",
    metadata: { name: c.name, namespace: "default", finalizers: [KEEP], annotations: c.annotations ?? {} },
    spec: {
      restartPolicy: c.restartPolicy ?? "Never",
      // pause is PID 1: the container's process dies of SIGTERM, as it would on a host
      shareProcessNamespace: true,
      terminationGracePeriodSeconds: 30,
      containers: [
        {
          name: "app",
          image: BUSYBOX_IMAGE,
          imagePullPolicy: "Never",
          command: c.command,
          ...(c.memory && { resources: { limits: { memory: c.memory } } }),
        },
      ],
    },
  };
}

/** Lets a pod of {@link endingPod} go: its finalizer removed, the API server deletes it once asked to. */
export async function releasePod(kubectl: Kubectl, name: string): Promise<void> {
  await kubectl.run(["patch", "pod", name, "--type=json", "-p", '[{"op":"remove","path":"/metadata/finalizers"}]']);
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
