/**
 * A container as reports show it and `expect: container:` checks it: the
 * names a scenario author uses (env as a mapping, state as a word) and the
 * status fields, with the rest as plain data.
 */
import {
  CDIDevice,
  type Container,
  ContainerState,
  describeContainerStatus,
  envToKeyValues,
  Hooks,
  LinuxDevice,
  LinuxIOPriority,
  LinuxNamespace,
  LinuxNetDevice,
  LinuxRdt,
  LinuxResources,
  LinuxScheduler,
  LinuxSeccomp,
  Mount,
  POSIXRlimit,
} from "@nri-ts/api";
import type { Shape } from "../scenario/expect-shape.js";
import { plainObject } from "./plain.js";
import { type PlainOf, plainOf, type ResourcesView } from "./plain-of.js";

/** A container as reports show it (`StepReport.container`) and `expect: container:` checks it. */
export interface ContainerView {
  /** The scenario's name of it. */
  name: string;
  /** Its pod's name. */
  pod: string;
  id: string;
  /** `created`, `running`, `stopped`, ... */
  state: string;
  /** e.g. `exited 137 (OOMKilled) 2s ago`; `removed (...)` once removed. */
  status: string;
  removed?: true;
  pid: number;
  /** Nanoseconds since the Unix epoch, as decimal strings; absent while 0. */
  createdAt?: string;
  startedAt?: string;
  finishedAt?: string;
  exitCode: number;
  statusReason: string;
  statusMessage: string;
  image?: string;
  labels: { [key: string]: string };
  annotations: { [key: string]: string };
  args: string[];
  /** The environment as a mapping (`NAME=value` entries split at the first `=`). */
  env: { [name: string]: string };
  mounts: PlainOf<Mount>[];
  rlimits: PlainOf<POSIXRlimit>[];
  hooks?: PlainOf<Hooks>;
  CDIDevices?: PlainOf<CDIDevice>[];
  resources: ResourcesView;
  devices?: PlainOf<LinuxDevice>[];
  namespaces?: PlainOf<LinuxNamespace>[];
  sysctl?: { [key: string]: string };
  netDevices?: { [hostInterface: string]: PlainOf<LinuxNetDevice> };
  cgroupsPath?: string;
  oomScoreAdj?: number | string;
  ioPriority?: PlainOf<LinuxIOPriority>;
  scheduler?: PlainOf<LinuxScheduler>;
  seccompPolicy?: PlainOf<LinuxSeccomp>;
  rdt?: PlainOf<LinuxRdt>;
}

/** The fields `expect: container:` may name, and what each holds. */
export const CONTAINER_VIEW_SHAPE: { readonly fields: { readonly [K in keyof ContainerView]-?: Shape } } = {
  fields: {
    name: "any",
    pod: "any",
    id: "any",
    state: "any",
    status: "any",
    removed: "any",
    pid: "any",
    createdAt: "any",
    startedAt: "any",
    finishedAt: "any",
    exitCode: "any",
    statusReason: "any",
    statusMessage: "any",
    image: "any",
    labels: "any",
    annotations: "any",
    args: "any",
    env: "any",
    mounts: { list: { message: Mount } },
    rlimits: { list: { message: POSIXRlimit } },
    hooks: { message: Hooks },
    CDIDevices: { list: { message: CDIDevice } },
    resources: { message: LinuxResources },
    devices: { list: { message: LinuxDevice } },
    namespaces: { list: { message: LinuxNamespace } },
    sysctl: "any",
    netDevices: { map: { message: LinuxNetDevice } },
    cgroupsPath: "any",
    oomScoreAdj: "any",
    ioPriority: { message: LinuxIOPriority },
    scheduler: { message: LinuxScheduler },
    seccompPolicy: { message: LinuxSeccomp },
    rdt: { message: LinuxRdt },
  },
};

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
function timestamp(ns: bigint): string | undefined {
  return ns === 0n ? undefined : String(ns);
}

/** The view of a container of pod `pod`; `removed` when the runtime has removed it (its last state stays). */
export function containerView(container: Container, pod: string, now: bigint, removed = false): ContainerView {
  const { linux } = container;
  const status = describeContainerStatus(container, now);
  const view: ContainerView = {
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
    labels: plainObject(container.labels) as ContainerView["labels"],
    annotations: plainObject(container.annotations) as ContainerView["annotations"],
    args: [...container.args],
    env: envMap(container.env),
    mounts: plainOf(container.mounts) ?? [],
    rlimits: plainOf(container.rlimits) ?? [],
    hooks: plainOf(container.hooks),
    CDIDevices: plainOf(container.CDIDevices),
    resources: plainObject(linux?.resources) as ResourcesView,
    devices: plainOf(linux?.devices),
    namespaces: plainOf(linux?.namespaces),
    sysctl: plainOf(linux?.sysctl),
    netDevices: plainOf(linux?.netDevices),
    cgroupsPath: plainOf(linux?.cgroupsPath),
    oomScoreAdj: plainOf(linux?.oomScoreAdj),
    ioPriority: plainOf(linux?.ioPriority),
    scheduler: plainOf(linux?.scheduler),
    seccompPolicy: plainOf(linux?.seccompPolicy),
    rdt: plainOf(linux?.rdt),
  };
  // absent fields are left out, not set to undefined, as the JSON report has them
  for (const key of Object.keys(view) as (keyof ContainerView)[]) if (view[key] === undefined) delete view[key];
  return view;
}
