/**
 * A container as reports show it and `expect: container:` checks it: the
 * names a scenario author uses (env as a mapping, state as a word) and the
 * status fields, with the rest as plain data.
 */
import type { Container } from "@nri-ts/api";
import { ContainerState, describeContainerStatus, envToKeyValues } from "@nri-ts/api";
import { type Plain, plain, plainObject } from "./plain.js";

const STATES: Readonly<Record<number, string>> = {
  [ContainerState.CONTAINER_UNKNOWN]: "unknown",
  [ContainerState.CONTAINER_CREATED]: "created",
  [ContainerState.CONTAINER_PAUSED]: "paused",
  [ContainerState.CONTAINER_RUNNING]: "running",
  [ContainerState.CONTAINER_STOPPED]: "stopped",
};

export function stateName(state: ContainerState): string {
  return STATES[state] ?? `state ${state}`;
}

function envMap(env: readonly string[]): Record<string, string> {
  return Object.fromEntries(envToKeyValues(env).map((variable) => [variable.key, variable.value]));
}

/** Nanosecond timestamps as decimal strings (they exceed 2^53), 0 as absent. */
function timestamp(ns: bigint): Plain | undefined {
  return ns === 0n ? undefined : String(ns);
}

/** The view of a container of pod `pod`; `removed` when the runtime has removed it (its last state stays). */
export function containerView(container: Container, pod: string, now: bigint, removed = false): { [key: string]: Plain } {
  const { linux } = container;
  const status = describeContainerStatus(container, now);
  const view: { [key: string]: Plain | undefined } = {
    name: container.name,
    pod,
    id: container.id,
    state: stateName(container.state),
    status: removed ? `removed (${status})` : status,
    removed: removed || undefined,
    pid: container.pid,
    createdAt: timestamp(container.createdAt),
    startedAt: timestamp(container.startedAt),
    finishedAt: timestamp(container.finishedAt),
    exitCode: container.exitCode,
    statusReason: container.statusReason,
    statusMessage: container.statusMessage,
    image: container.image?.name,
    labels: plainObject(container.labels),
    annotations: plainObject(container.annotations),
    args: plain(container.args) ?? [],
    env: envMap(container.env),
    mounts: plain(container.mounts) ?? [],
    rlimits: plain(container.rlimits) ?? [],
    hooks: plain(container.hooks),
    CDIDevices: plain(container.CDIDevices),
    resources: plainObject(linux?.resources),
    devices: plain(linux?.devices),
    namespaces: plain(linux?.namespaces),
    sysctl: plain(linux?.sysctl),
    netDevices: plain(linux?.netDevices),
    cgroupsPath: plain(linux?.cgroupsPath),
    oomScoreAdj: plain(linux?.oomScoreAdj),
    ioPriority: plain(linux?.ioPriority),
    scheduler: plain(linux?.scheduler),
    seccompPolicy: plain(linux?.seccompPolicy),
    rdt: plain(linux?.rdt),
  };
  const out: { [key: string]: Plain } = {};
  for (const [key, value] of Object.entries(view)) if (value !== undefined) out[key] = value;
  return out;
}
