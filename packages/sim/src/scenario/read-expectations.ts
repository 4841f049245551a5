/**
 * The scenario's `expect:` entries: which step, and what must hold after it.
 */
import { ContainerAdjustment, LinuxResources } from "@nri-ts/api";
import { CONTAINER_VIEW_SHAPE } from "../report/container-view.js";
import { EVENT_NAMES } from "./event-names.js";
import { checkShape, type Shape } from "./expect-shape.js";
import type { EvictionReport, FailureReport, UpdateReport } from "../report/report.js";
import type { Expectation, Step } from "./scenario.js";
import type { Names } from "./scenario-names.js";
import type { IssuePlace, YamlValue } from "./yaml-value.js";

const EXPECT_FIELDS = [
  "after",
  "ok",
  "error",
  "adjustment",
  "owners",
  "updates",
  "evictions",
  "events",
  "container",
  "containers",
  "closed",
  "failures",
] as const;

/** What an entry of `updates:` may name: the parts of an update that are compared. */
const UPDATE_SHAPE: {
  fields: { [K in keyof Pick<UpdateReport, "container" | "resources" | "ignoreFailure" | "applied">]: Shape };
} = {
  fields: { container: "any", resources: { message: LinuxResources }, ignoreFailure: "any", applied: "any" },
};

const EVICTION_SHAPE: { fields: { [K in keyof EvictionReport]: Shape } } = {
  fields: { container: "any", reason: "any", from: "any" },
};

const FAILURE_SHAPE: { fields: { [K in keyof FailureReport]-?: Shape } } = {
  fields: {
    plugin: "any",
    event: "any",
    error: "any",
    policy: { fields: { failRequest: "any", keepConnected: "any" } },
    requestFailed: "any",
    dropped: "any",
  },
};

function stepContainer(step: Step): string | undefined {
  return "container" in step ? step.container : undefined;
}

function readAfter(value: YamlValue, steps: (Step | undefined)[]): number | undefined {
  const count = steps.length;
  if (value.kind === "number") {
    const n = value.integer(1, Math.max(count, 1), `a step number from 1 to ${count}`);
    return n === undefined ? undefined : n - 1;
  }
  const text = value.string(`a step (e.g. "create app") or its number`);
  if (text === undefined) return undefined;
  const wanted = text.trim().replace(/\s+/g, " ");
  const matches = steps.flatMap((step, i) => (step?.text === wanted ? [i] : []));
  if (matches.length === 1) return matches[0];
  if (matches.length > 1) {
    return value.error(
      `"${wanted}" names steps ${matches.map((i) => i + 1).join(", ")}; write the step number instead`,
    );
  }
  const known = steps.filter((s): s is Step => s !== undefined).map((s) => `"${s.text}"`);
  return value.error(`no step "${wanted}"; the steps are: ${known.join(", ")}`);
}

function readEvents(value: YamlValue): Pick<Expectation, "events" | "eventPlugins"> {
  const entries = value.entries("a mapping of plugin names (e.g. 10-logger) to lists of events");
  if (!entries) return {};
  const out: Record<string, string[]> = {};
  const places: Record<string, IssuePlace> = {};
  for (const [plugin, list] of entries) {
    const events: string[] = [];
    for (const item of list.list("a list of events") ?? []) {
      const event = item.string("an event name");
      if (event !== undefined && !EVENT_NAMES.includes(event)) {
        item.error(`unknown event "${event}"; events are: ${EVENT_NAMES.join(", ")}`);
      } else if (event !== undefined) {
        events.push(event);
      }
    }
    out[plugin] = events;
    places[plugin] = value.keyPlace(plugin);
  }
  return { events: out, eventPlugins: places };
}

export function readExpectation(value: YamlValue, steps: (Step | undefined)[], names: Names): Expectation | undefined {
  const f = value.fields(EXPECT_FIELDS);
  if (!f) return undefined;
  const step = readAfter(f.after, steps);
  if (step === undefined) return undefined;
  const expectation: Expectation = { step };
  const ok = f.ok.optional((v) => v.boolean());
  if (ok !== undefined) expectation.ok = ok;
  const error = f.error.optional((v) => v.string());
  if (error !== undefined) expectation.error = error;
  if (f.adjustment.present) {
    checkShape(f.adjustment, { message: ContainerAdjustment });
    expectation.adjustment = f.adjustment.plain();
  }
  if (f.owners.present) expectation.owners = f.owners.stringMap();
  if (f.updates.present) {
    checkShape(f.updates, { list: UPDATE_SHAPE });
    expectation.updates = f.updates.list() && f.updates.plain();
  }
  if (f.evictions.present) {
    checkShape(f.evictions, { list: EVICTION_SHAPE });
    expectation.evictions = f.evictions.list() && f.evictions.plain();
  }
  if (f.events.present) Object.assign(expectation, readEvents(f.events));
  const containers: Record<string, unknown> = {};
  if (f.container.present) {
    const own = steps[step] && stepContainer(steps[step]);
    if (own === undefined)
      f.container.error(`step ${step + 1} has no container of its own; use containers: {name: {...}}`);
    else if (f.container.entries()) {
      checkShape(f.container, CONTAINER_VIEW_SHAPE);
      containers[own] = f.container.plain();
    }
  }
  for (const [ref, expected] of f.containers.optional((v) => v.entries()) ?? []) {
    const key = names.resolveContainer(ref, expected);
    if (key !== undefined && expected.entries()) {
      checkShape(expected, CONTAINER_VIEW_SHAPE);
      containers[key] = expected.plain();
    }
  }
  if (Object.keys(containers).length > 0) expectation.containers = containers;
  if (f.closed.present) expectation.closed = f.closed.stringList();
  if (f.failures.present) {
    checkShape(f.failures, { list: FAILURE_SHAPE });
    expectation.failures = f.failures.list() && f.failures.plain();
  }
  return expectation;
}
