/**
 * The scenario's `plugins:` (a failure policy per plugin) and a step's
 * `faults:` (which plugin fails which request, and how).
 */
import { EVENT_NAMES } from "./event-names.js";
import type { FaultKind, FaultSpec, PluginSettings } from "./scenario.js";
import type { YamlValue } from "./yaml-value.js";

const FULL_NAME = /^\d\d-.+$/;
const FAULT_KINDS: readonly FaultKind[] = ["timeout", "disconnect"];

function readPluginName(key: string, value: YamlValue): string | undefined {
  return FULL_NAME.test(key) ? key : value.error(`"${key}" is not a plugin's full name (NN-name, e.g. 10-logger)`);
}

function readFailurePolicy(value: YamlValue): PluginSettings["failurePolicy"] {
  const f = value.fields(["failRequest", "keepConnected"], "a failure policy: {failRequest, keepConnected}");
  if (!f) return undefined;
  const failRequest = f.failRequest.optional((v) => v.boolean()) ?? false;
  const keepConnected = f.keepConnected.optional((v) => v.boolean()) ?? false;
  return { failRequest, keepConnected };
}

/** `plugins: {10-net: {failurePolicy: {failRequest: true, keepConnected: true}}}` */
export function readPluginSettings(value: YamlValue): Record<string, PluginSettings> | undefined {
  const entries = value.entries("a mapping of plugin names (e.g. 10-net) to their settings");
  if (!entries) return undefined;
  const out: Record<string, PluginSettings> = {};
  for (const [key, settings] of entries) {
    const name = readPluginName(key, settings);
    const f = settings.fields(["failurePolicy"]);
    const failurePolicy = f?.failurePolicy.optional(readFailurePolicy);
    if (name !== undefined && f) out[name] = failurePolicy ? { failurePolicy } : {};
  }
  return out;
}

function readFaultKind(value: YamlValue): FaultKind | undefined {
  const kind = value.string(`a fault: ${FAULT_KINDS.join(" or ")}`);
  if (kind === undefined) return undefined;
  if ((FAULT_KINDS as readonly string[]).includes(kind)) return kind as FaultKind;
  return value.error(`unknown fault "${kind}"; faults are: ${FAULT_KINDS.join(", ")}`);
}

/** `faults: {10-net: timeout}` or `faults: {10-net: {fault: disconnect, on: StopContainer}}` */
export function readFaults(value: YamlValue): FaultSpec[] | undefined {
  const entries = value.entries("a mapping of plugin names (e.g. 10-net) to a fault (timeout or disconnect)");
  if (!entries) return undefined;
  const faults: FaultSpec[] = [];
  for (const [key, spec] of entries) {
    const plugin = readPluginName(key, spec);
    if (spec.kind !== "mapping") {
      const fault = readFaultKind(spec);
      if (plugin !== undefined && fault !== undefined) faults.push({ plugin, fault });
      continue;
    }
    const f = spec.fields(["fault", "on"]);
    if (!f) continue;
    const fault = readFaultKind(f.fault);
    const on = f.on.optional((v) => v.string("an event name"));
    if (on !== undefined && !EVENT_NAMES.includes(on)) {
      f.on.error(`unknown event "${on}"; events are: ${EVENT_NAMES.join(", ")}`);
      continue;
    }
    if (plugin !== undefined && fault !== undefined) faults.push({ plugin, fault, ...(on !== undefined && { on }) });
  }
  return faults;
}
