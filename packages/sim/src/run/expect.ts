/**
 * Checks one `expect:` entry against the report of its step (and the
 * containers as they are right after it).
 */
import { ownerKey } from "../report/changes.js";
import { mismatches } from "./match.js";
import type { ExpectationReport, StepReport } from "../report/report.js";
import type { Expectation } from "../scenario/scenario.js";
import type { Plain } from "../report/plain.js";

/** The view of each container the expectation names, keyed like `Expectation.containers`. */
export type ContainerViews = (key: string) => { [key: string]: Plain } | undefined;

function sameSet(expected: readonly string[], actual: readonly string[]): boolean {
  return expected.length === actual.length && expected.every((name) => actual.includes(name));
}

export function checkExpectation(expectation: Expectation, step: StepReport, views: ContainerViews): ExpectationReport {
  const failures: string[] = [];
  if (expectation.ok !== undefined && expectation.ok !== step.ok) {
    failures.push(
      expectation.ok
        ? `expected the step to succeed, but it failed: ${step.error}`
        : "expected the step to fail, but it succeeded",
    );
  }
  if (expectation.error !== undefined) {
    if (step.ok)
      failures.push(`expected an error containing ${JSON.stringify(expectation.error)}, but the step succeeded`);
    else if (!step.error?.includes(expectation.error)) {
      failures.push(
        `expected an error containing ${JSON.stringify(expectation.error)}, got ${JSON.stringify(step.error)}`,
      );
    }
  }
  if (expectation.adjustment !== undefined)
    failures.push(...mismatches(expectation.adjustment, step.adjustment, "adjustment"));
  for (const [key, owner] of Object.entries(expectation.owners ?? {})) {
    const changes = [...step.changes, ...step.updates.flatMap((u) => u.changes)].filter((c) => ownerKey(c) === key);
    if (changes.length === 0) failures.push(`owners.${key}: expected ${owner}, but nothing changed ${key}`);
    else if (!changes.some((c) => c.owner === owner)) {
      failures.push(`owners.${key}: expected ${owner}, got ${changes.map((c) => c.owner ?? "no owner").join(", ")}`);
    }
  }
  if (expectation.updates !== undefined) {
    const updates = step.updates.map(({ container, resources, ignoreFailure, applied }) => ({
      container,
      ...(resources !== undefined && { resources }),
      ignoreFailure,
      applied,
    }));
    failures.push(...mismatches(expectation.updates, updates, "updates"));
  }
  if (expectation.evictions !== undefined)
    failures.push(...mismatches(expectation.evictions, step.evictions, "evictions"));
  if (expectation.failures !== undefined) failures.push(...mismatches(expectation.failures, step.failures, "failures"));
  for (const [plugin, events] of Object.entries(expectation.events ?? {})) {
    const got = step.events.filter((e) => e.plugin === plugin).map((e) => e.event);
    if (got.join() !== events.join()) {
      failures.push(`events.${plugin}: expected [${events.join(", ")}], got [${got.join(", ")}]`);
    }
  }
  for (const [key, expected] of Object.entries(expectation.containers ?? {})) {
    const view = views(key);
    if (!view) failures.push(`containers.${key}: the container does not exist`);
    else failures.push(...mismatches(expected, view, `container ${key}`));
  }
  if (expectation.closed !== undefined && !sameSet(expectation.closed, step.closed)) {
    failures.push(`closed: expected [${expectation.closed.join(", ")}], got [${step.closed.join(", ")}]`);
  }
  return {
    ...(expectation.line !== undefined && { line: expectation.line }),
    step: step.number,
    stepText: step.step,
    ok: failures.length === 0,
    failures,
  };
}
