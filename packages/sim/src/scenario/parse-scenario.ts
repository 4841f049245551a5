/**
 * Reads and checks a scenario: YAML text (or a plain object of the same
 * shape) in, a `Scenario` out, or a `ScenarioError` listing every mistake
 * with its line, field and what was expected.
 */
import { readFile } from "node:fs/promises";
import { basename, extname } from "node:path";
import { MAX_YAML_NESTING, whereYamlNestsDeeperThan } from "@nri-ts/sigs-yaml/nesting";
import { Document, LineCounter, parseDocument } from "yaml";
import { DEFAULT_RUNTIME, readContainer, readPod, readRuntime } from "./read-entities.js";
import { readExpectation } from "./read-expectations.js";
import { readPluginSettings } from "./read-plugins.js";
import { readStep } from "./read-steps.js";
import type { ContainerSpec, Expectation, PodSpec, Scenario, Step } from "./scenario.js";
import { goodPodNames, Names } from "./scenario-names.js";
import { IssueLog, type ScenarioIssue, YamlValue } from "./yaml-value.js";

/** A scenario that cannot run; `issues` lists every mistake found. */
export class ScenarioError extends Error {
  override readonly name = "ScenarioError";

  constructor(
    readonly file: string | undefined,
    readonly issues: readonly ScenarioIssue[],
  ) {
    super(issues.map((issue) => formatIssue(file, issue)).join("\n"));
  }
}

/** `demo.yaml:12:7: steps[3].exit.code: expected ..., got ...` */
export function formatIssue(file: string | undefined, issue: ScenarioIssue): string {
  const where = [file ?? "scenario", issue.line, issue.column].filter((part) => part !== undefined).join(":");
  return `${where}: ${issue.path ? `${issue.path}: ` : ""}${issue.message}`;
}

const TOP_FIELDS = ["name", "description", "runtime", "plugins", "pods", "containers", "steps", "expect"] as const;

function lineOf(value: YamlValue, lines: LineCounter | undefined): number | undefined {
  const offset = value.node?.range?.[0];
  return offset === undefined || !lines ? undefined : lines.linePos(offset).line;
}

function readScenario(root: YamlValue, lines: LineCounter | undefined, file: string | undefined): Scenario | undefined {
  const f = root.fields(TOP_FIELDS, "a scenario: a mapping with name, pods, containers, steps and expect");
  if (!f) return undefined;
  const podValues = f.pods.optional((v) => v.list()) ?? [];
  const containerValues = f.containers.optional((v) => v.list()) ?? [];
  const pods = podValues.map(readPod);
  const containers = containerValues.map((value) => readContainer(value, new Set(goodPodNames(pods))));
  const goodPods = pods.filter((p): p is PodSpec => p !== undefined);
  const goodContainers = containers.filter((c): c is ContainerSpec => c !== undefined);
  const names = new Names(
    goodPods,
    goodContainers,
    podValues.filter((_, i) => pods[i]),
    containerValues.filter((_, i) => containers[i]),
  );
  const stepValues = f.steps.list("a list of steps") ?? [];
  if (f.steps.present && stepValues.length === 0) f.steps.error("expected at least one step");
  const steps = stepValues.map((value) => {
    const step = readStep(value, names);
    const line = lineOf(value, lines);
    return step && line !== undefined ? { ...step, line } : step;
  });
  const expect = (f.expect.optional((v) => v.list()) ?? []).map((value) => {
    const expectation = readExpectation(value, steps, names);
    const line = lineOf(value, lines);
    return expectation && line !== undefined ? { ...expectation, line } : expectation;
  });
  const fallbackName = file ? basename(file, extname(file)) : "scenario";
  const description = f.description.optional((v) => v.string());
  return {
    name: f.name.optional((v) => v.string()) ?? fallbackName,
    ...(description !== undefined && { description }),
    ...(file !== undefined && { file }),
    runtime: f.runtime.optional(readRuntime) ?? DEFAULT_RUNTIME,
    pods: goodPods,
    containers: goodContainers,
    steps: steps.filter((s): s is Step => s !== undefined),
    expect: expect.filter((e): e is Expectation => e !== undefined),
    plugins: f.plugins.optional(readPluginSettings) ?? {},
  };
}

function finish(scenario: Scenario | undefined, log: IssueLog, file: string | undefined): Scenario {
  if (log.issues.length > 0 || !scenario) {
    const byLine = [...log.issues].sort((a, b) => (a.line ?? 0) - (b.line ?? 0) || (a.column ?? 0) - (b.column ?? 0));
    throw new ScenarioError(file, byLine);
  }
  return scenario;
}

/**
 * Parses scenario YAML. `file` names the source in error messages.
 * @throws ScenarioError listing every problem, each with its line
 */
export function parseScenario(text: string, file?: string): Scenario {
  const lines = new LineCounter();
  const log = new IssueLog(lines);
  const tooDeep = whereYamlNestsDeeperThan(text);
  if (tooDeep !== undefined) {
    log.addAt(tooDeep.line, tooDeep.column, "", `nested deeper than ${MAX_YAML_NESTING} levels`);
    throw new ScenarioError(file, log.issues);
  }
  const doc = parseDocument(text, { lineCounter: lines, uniqueKeys: true });
  for (const error of doc.errors) {
    const [start] = error.linePos ?? [];
    const message = error.message.split("\n")[0].replace(/ at line \d+, column \d+:$/, "");
    log.addAt(start?.line, start?.col, "", message);
  }
  if (log.issues.length > 0) throw new ScenarioError(file, log.issues);
  const scenario = readScenario(new YamlValue(doc.contents, "", log), lines, file);
  return finish(scenario, log, file);
}

/**
 * Checks a scenario given as a plain object of the YAML shape (for tests
 * written in TypeScript).
 * @throws ScenarioError listing every problem
 */
export function scenarioFromObject(object: unknown, name?: string): Scenario {
  const doc = new Document(object);
  const log = new IssueLog();
  const scenario = readScenario(new YamlValue(doc.contents, "", log), undefined, name);
  return finish(scenario, log, name);
}

/** Reads and parses a scenario file. */
export async function loadScenario(path: string): Promise<Scenario> {
  return parseScenario(await readFile(path, "utf8"), path);
}
