/**
 * A scenario after checking: the pods and containers the simulated runtime
 * knows, the steps it drives them through, and what the author expects.
 * `parseScenario` builds it from YAML (see README.md for the format).
 */
import type { LinuxResources, Mount, POSIXRlimit } from "@nri-ts/api";
import type { IssuePlace } from "./yaml-value.js";

export interface PodSpec {
  name: string;
  namespace: string;
  uid: string;
  id: string;
  labels: Record<string, string>;
  annotations: Record<string, string>;
  runtimeHandler: string;
  cgroupParent: string;
  /** The pod's IPs; undefined: one of its own (10.88.0.N), or none on the host network. */
  ips?: string[];
  /** On the host's network: no network namespace of its own. */
  hostNetwork: boolean;
  resources?: LinuxResources;
  overhead?: LinuxResources;
}

export interface ContainerSpec {
  name: string;
  /** The name of its pod. */
  pod: string;
  id: string;
  image: string;
  args: string[];
  /** `KEY=value` strings, in the order given. */
  env: string[];
  mounts: Mount[];
  labels: Record<string, string>;
  annotations: Record<string, string>;
  resources?: LinuxResources;
  rlimits: POSIXRlimit[];
}

export interface UpdateSpec {
  container: string;
  resources?: LinuxResources;
  ignoreFailure: boolean;
}

export interface EvictionSpec {
  container: string;
  reason: string;
}

/** What a fault makes a plugin do with a request: answer only after the request timeout, or drop its connection. */
export type FaultKind = "timeout" | "disconnect";

/** A fault one of the simulator's own plugins commits during a step (`faults:` of the step). */
export interface FaultSpec {
  /** `<index>-<name>`. */
  plugin: string;
  fault: FaultKind;
  /** The event whose request it fails (e.g. `CreateContainer`); default the first request it gets in the step. */
  on?: string;
}

/** What every step has, whatever its kind. */
export interface StepBase {
  /** The step as the report names it and `expect: after:` refers to it, e.g. `create app`. */
  text: string;
  /** 1-based line in the scenario file, when it came from one. */
  line?: number;
  /** Faults to commit during the step. */
  faults?: FaultSpec[];
}

export type Step = StepBase &
  (
    | { kind: "run-pod" | "stop-pod" | "remove-pod"; pod: string }
    | { kind: "update-pod"; pod: string; resources?: LinuxResources; overhead?: LinuxResources }
    | { kind: "create" | "start" | "remove"; container: string }
    | { kind: "update"; container: string; resources: LinuxResources }
    | { kind: "exit" | "stop"; container: string; code?: number; reason?: string; message?: string }
    | { kind: "plugin-update"; plugin: string; updates: UpdateSpec[]; evictions: EvictionSpec[] }
    | { kind: "wait"; ms: number }
  );

export type StepKind = Step["kind"];

/**
 * What the author expects after one step. Every check is optional; structures
 * match when every field the author wrote matches (see `expect.ts`).
 */
export interface Expectation {
  /** Index into `steps`. */
  step: number;
  line?: number;
  /** The step succeeded (true) or failed (false). */
  ok?: boolean;
  /** The step failed with an error containing this text. */
  error?: string;
  adjustment?: unknown;
  /** Owner of each change, keyed like the report (`Annotations example.com/x`, `MemLimit`). */
  owners?: Record<string, string>;
  updates?: unknown;
  evictions?: unknown;
  /** The events each named plugin received in the step, in order. */
  events?: Record<string, string[]>;
  /** Where the scenario names each plugin of `events` (a plugin not in the run is an error there). */
  eventPlugins?: Record<string, IssuePlace>;
  /** Containers (by key, `pod/name`) as they are after the step; `container:` in YAML is the step's own. */
  containers?: Record<string, unknown>;
  /** Plugins the runtime dropped during the step (crashed, timed out). */
  closed?: string[];
  /** The plugins' failures in the step and what their policies decided (matched like `updates`). */
  failures?: unknown;
}

export interface RuntimeSpec {
  /** What plugins see as the runtime's name and version in Configure. */
  name: string;
  version: string;
  registrationTimeoutMs?: number;
  requestTimeoutMs?: number;
}

/** Settings for one plugin, by its full name (`plugins:` of the scenario). */
export interface PluginSettings {
  /** The failure policy the simulator's own plugin (module or object) sends in Configure. */
  failurePolicy?: { failRequest: boolean; keepConnected: boolean };
}

export interface Scenario {
  name: string;
  description?: string;
  /** The file it came from, if any. */
  file?: string;
  runtime: RuntimeSpec;
  pods: PodSpec[];
  containers: ContainerSpec[];
  steps: Step[];
  expect: Expectation[];
  /** By plugin full name. */
  plugins: Record<string, PluginSettings>;
}
