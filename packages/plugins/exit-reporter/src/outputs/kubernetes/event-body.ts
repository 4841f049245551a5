/**
 * An exit record as a Kubernetes Event (`events.k8s.io/v1`) on its pod:
 * `regarding` is the pod, with the container in `fieldPath`; `reason` the
 * record's reason; `note` its explanation; `type` Warning for an unclean
 * end and Normal for a clean one; `reportingController`
 * `nri-ts.dev/exit-reporter` and `reportingInstance` the node. Texts are
 * cut to what the API server takes (a note of 1024 bytes, a reason of 128).
 */
import { boundedText } from "@nri-ts/common";
import type { ExitRecord } from "../../gen/nri_ts/exit_reporter/v1/exit_reporter.js";

export const REPORTING_CONTROLLER = "nri-ts.dev/exit-reporter";
/** What the reporter observed, as the Event's `action`. */
export const EVENT_ACTION = "ContainerEnded";

/** The API server's limits (k8s.io/kubernetes, pkg/apis/core/validation: events). */
export const EVENT_LIMITS = { note: 1024, reason: 128, reportingInstance: 128, name: 253 } as const;

export interface ObjectReference {
  apiVersion: "v1";
  kind: "Pod";
  namespace: string;
  name: string;
  uid?: string;
  fieldPath: string;
}

/** The `events.k8s.io/v1` Event, as JSON. */
export interface EventBody {
  apiVersion: "events.k8s.io/v1";
  kind: "Event";
  metadata: { name: string; namespace: string };
  eventTime: string;
  series?: EventSeries;
  reportingController: string;
  reportingInstance: string;
  action: string;
  reason: string;
  regarding: ObjectReference;
  note: string;
  type: "Normal" | "Warning";
}

export interface EventSeries {
  count: number;
  lastObservedTime: string;
}

/** Room for the mark a cut text ends with, `… [N more bytes]`. */
const MARK_ROOM = 32;

/** `text` within `max` bytes, its mark included, when it must be cut. */
export function fitText(text: string, max: number): string {
  return Buffer.byteLength(text) <= max ? text : boundedText(text, max - MARK_ROOM);
}

/** A clean end: code 0 (an unknown code is not one). */
export function isClean(record: ExitRecord): boolean {
  return record.exitCode === 0;
}

/** A MicroTime (RFC 3339 with microseconds) from nanoseconds since the epoch. */
export function microTime(ns: bigint): string {
  const ms = ns / 1_000_000n;
  const micros = (ns / 1000n) % 1_000_000n;
  return `${new Date(Number(ms)).toISOString().slice(0, 19)}.${micros.toString().padStart(6, "0")}Z`;
}

/** The pod's Event name for one series: `<pod>.<hex>`, as the kubelet names its own, unique per reporter. */
export function eventName(podName: string, stamp: bigint): string {
  const suffix = `.${stamp.toString(16)}`;
  return `${podName.slice(0, EVENT_LIMITS.name - suffix.length)}${suffix}`;
}

/** The Event of a record's end, without a series (its first occurrence). */
export function eventBody(record: ExitRecord, reportingInstance: string, name: string): EventBody {
  const pod = record.pod ?? { namespace: "", name: "", uid: "" };
  const container = record.container?.name ?? "";
  return {
    apiVersion: "events.k8s.io/v1",
    kind: "Event",
    metadata: { name, namespace: pod.namespace },
    eventTime: microTime(record.finishedAt || record.reportedAt),
    reportingController: REPORTING_CONTROLLER,
    reportingInstance: fitText(reportingInstance, EVENT_LIMITS.reportingInstance),
    action: EVENT_ACTION,
    reason: fitText(record.reason || "Ended", EVENT_LIMITS.reason),
    regarding: {
      apiVersion: "v1",
      kind: "Pod",
      namespace: pod.namespace,
      name: pod.name,
      ...(pod.uid && { uid: pod.uid }),
      fieldPath: `spec.containers{${container}}`,
    },
    note: fitText(record.explanation, EVENT_LIMITS.note),
    type: isClean(record) ? "Normal" : "Warning",
  };
}

/**
 * What makes two ends the same again, for a series: the pod, the
 * container, the reason and the exit code (the explanation differs with
 * the run time, so it is not part of it).
 */
export function seriesKey(record: ExitRecord): string {
  const pod = record.pod;
  return JSON.stringify([
    pod?.namespace,
    pod?.name,
    pod?.uid,
    record.container?.name,
    record.reason,
    record.exitCode ?? null,
  ]);
}
