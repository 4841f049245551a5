/**
 * The scenario's `steps:`: one action per step, its target resolved, and
 * the text the report and `expect:` use for it (`create app`).
 */
import type { LinuxResources } from "@nri-ts/api";
import { readDuration } from "./read-entities.js";
import { readFaults } from "./read-plugins.js";
import { readResources } from "./read-resources.js";
import type { EvictionSpec, Step, StepKind, UpdateSpec } from "./scenario.js";
import type { Names } from "./scenario-names.js";
import { STEP_KINDS } from "./step-kinds.js";
import type { YamlValue } from "./yaml-value.js";

function readUpdate(value: YamlValue, names: Names): UpdateSpec | undefined {
  const f = value.fields(["container", "resources", "ignoreFailure"]);
  if (!f) return undefined;
  const container = names.container(f.container);
  const resources = f.resources.optional(readResources);
  const ignoreFailure = f.ignoreFailure.optional((v) => v.boolean()) ?? false;
  if (container === undefined) return undefined;
  return { container, ignoreFailure, ...(resources && { resources }) };
}

function readEviction(value: YamlValue, names: Names): EvictionSpec | undefined {
  const f = value.fields(["container", "reason"]);
  if (!f) return undefined;
  const container = names.container(f.container);
  const reason = f.reason.optional((v) => v.string()) ?? "";
  return container === undefined ? undefined : { container, reason };
}

/** `exit: app` or `exit: {container: app, code: 137, reason: OOMKilled, message: ...}` */
function readExit(
  value: YamlValue,
  names: Names,
  kind: "exit" | "stop",
  text: (c: string) => string,
): Step | undefined {
  if (value.kind === "scalar") {
    const container = names.container(value);
    return container === undefined ? undefined : { kind, container, text: text(container) };
  }
  const f = value.fields(["container", "code", "reason", "message"], "a container name or a mapping");
  if (!f) return undefined;
  const container = names.container(f.container);
  const code = f.code.optional((v) => v.integer(-(2 ** 31), 2 ** 31 - 1, "an exit code (a 32-bit integer)"));
  const reason = f.reason.optional((v) => v.string());
  const message = f.message.optional((v) => v.string());
  if (container === undefined) return undefined;
  return {
    kind,
    container,
    text: text(container),
    ...(code !== undefined && { code }),
    ...(reason !== undefined && { reason }),
    ...(message !== undefined && { message }),
  };
}

/** A step: its action, and the faults (`faults:`) plugins commit during it. */
export function readStep(value: YamlValue, names: Names): Step | undefined {
  const all = value.entries(`a step: a mapping with one of ${STEP_KINDS.join(", ")}`);
  if (!all) return undefined;
  const faultsValue = all.find(([key]) => key === "faults")?.[1];
  const faults = faultsValue && readFaults(faultsValue);
  const action = readAction(
    value,
    all.filter(([key]) => key !== "faults"),
    names,
  );
  return action && faults && faults.length > 0 ? { ...action, faults } : action;
}

function readAction(value: YamlValue, entries: [string, YamlValue][], names: Names): Step | undefined {
  if (entries.length !== 1) {
    return value.error(
      entries.length === 0
        ? `a step needs an action, one of: ${STEP_KINDS.join(", ")}`
        : `a step has exactly one action; got ${entries.map(([key]) => key).join(", ")} (write them as separate steps)`,
    );
  }
  const [verb, arg] = entries[0];
  const kind = verb as StepKind;
  const text = (target: string) => `${verb} ${target}`;
  switch (kind) {
    case "run-pod":
    case "stop-pod":
    case "remove-pod": {
      const pod = names.pod(arg);
      return pod === undefined ? undefined : { kind, pod, text: text(pod) };
    }
    case "update-pod": {
      const f = arg.fields(["pod", "resources", "overhead"]);
      const pod = f && names.pod(f.pod);
      if (!f || pod === undefined) return undefined;
      const resources = f.resources.optional(readResources);
      const overhead = f.overhead.optional(readResources);
      return { kind, pod, text: text(pod), ...(resources && { resources }), ...(overhead && { overhead }) };
    }
    case "create":
    case "start":
    case "remove": {
      const container = names.container(arg);
      return container === undefined ? undefined : { kind, container, text: text(names.short(container)) };
    }
    case "update": {
      const f = arg.fields(["container", "resources"]);
      if (!f) return undefined;
      const container = names.container(f.container);
      const resources: LinuxResources | undefined = readResources(f.resources);
      if (container === undefined || resources === undefined) return undefined;
      return { kind, container, resources, text: text(names.short(container)) };
    }
    case "exit":
    case "stop":
      return readExit(arg, names, kind, (c) => text(names.short(c)));
    case "plugin-update": {
      const f = arg.fields(["plugin", "update", "evict"]);
      if (!f) return undefined;
      const plugin = f.plugin.optional((v) => v.name("a plugin name such as 90-scaler")) ?? "99-scenario";
      const updates = (f.update.optional((v) => v.list()) ?? [])
        .map((u) => readUpdate(u, names))
        .filter((u): u is UpdateSpec => u !== undefined);
      const evictions = (f.evict.optional((v) => v.list()) ?? [])
        .map((e) => readEviction(e, names))
        .filter((e): e is EvictionSpec => e !== undefined);
      if (updates.length === 0 && evictions.length === 0)
        arg.error("expected at least one entry under update: or evict:");
      return { kind, plugin, updates, evictions, text: `plugin-update ${plugin}` };
    }
    case "wait": {
      const ms = readDuration(arg);
      return ms === undefined ? undefined : { kind, ms, text: `wait ${arg.string()}` };
    }
    default:
      return value.error(`unknown action "${verb}"; expected one of: ${STEP_KINDS.join(", ")}`);
  }
}
