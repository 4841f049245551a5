import { readFile } from "node:fs/promises";
import { join } from "node:path";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { CONTAINER_VIEW_SHAPE } from "../report/container-view.js";
import { parseScenario, ScenarioError, scenarioFromObject } from "./parse-scenario.js";

const scenarios = join(import.meta.dirname, "..", "..", "scenarios");

function errorOf(text: string): string {
  try {
    parseScenario(text, "bad.yaml");
  } catch (error) {
    if (error instanceof ScenarioError) return error.message;
    throw error;
  }
  throw new Error("the scenario parsed");
}

const minimal = `
pods: [{name: web}]
containers: [{name: app, pod: web}]
steps:
  - run-pod: web
  - create: app
`;

describe("parseScenario", () => {
  it("reads the demo scenario", async () => {
    const file = join(scenarios, "demo.yaml");
    const scenario = parseScenario(await readFile(file, "utf8"), file);
    expect(scenario.name).toBe("status fields reach plugins");
    expect(scenario.steps.map((s) => s.text)).toEqual([
      "run-pod web",
      "create nginx",
      "start nginx",
      "update nginx",
      "exit nginx",
      "remove nginx",
      "stop-pod web",
      "remove-pod web",
    ]);
    expect(scenario.steps[4]).toMatchObject({
      kind: "exit",
      container: "web/nginx",
      code: 137,
      reason: "OOMKilled",
      line: 38,
    });
    const [nginx] = scenario.containers;
    expect(nginx.env).toEqual(["NGINX_PORT=8080"]);
    expect(nginx.resources?.memory?.limit).toEqual({ value: 256n * 1024n * 1024n });
    expect(nginx.resources?.cpu?.shares).toEqual({ value: 512n });
    expect(scenario.expect[1]).toMatchObject({ step: 4, containers: { "web/nginx": { exitCode: 137 } } });
  });

  it("fills in what a runtime would: namespace, ids and uid derived from the names", () => {
    const scenario = parseScenario(minimal);
    expect(scenario.pods[0]).toMatchObject({ namespace: "default", id: expect.stringMatching(/^[0-9a-f]{64}$/) });
    expect(scenario.pods[0].uid).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
    expect(parseScenario(minimal).containers[0].id).toBe(scenario.containers[0].id);
    expect(scenario.runtime).toEqual({ name: "nri-sim", version: "0.1.0" });
  });

  it("lists every mistake with its line, field and what was expected", () => {
    const text = `name: broken
runtime: {requestTimeout: soon}
pods:
  - name: web
    nmespace: x
containers:
  - name: app
    pod: webb
    resources: {memory: {limit: 12Q}}
steps:
  - run-pod: web
    create: app
  - exit: {container: app, code: abc}
  - frobnicate: app
expect:
  - after: create ap
`;
    expect(errorOf(text)).toBe(
      [
        'bad.yaml:2:27: runtime.requestTimeout: expected a duration such as 500ms, 2s or 1m, got "soon"',
        "bad.yaml:5:5: pods[0].nmespace: unknown field; expected one of: name, namespace, uid, id, labels, annotations, runtimeHandler, cgroupParent, ips, hostNetwork, resources, overhead",
        'bad.yaml:8:10: containers[0].pod: no pod "webb" is declared; declared pods: web',
        'bad.yaml:9:33: containers[0].resources.memory.limit: expected a whole number (e.g. 512, 256Mi or -1), got "12Q"',
        "bad.yaml:11:5: steps[0]: a step has exactly one action; got run-pod, create (write them as separate steps)",
        'bad.yaml:13:34: steps[1].exit.code: expected an exit code (a 32-bit integer), got "abc"',
        'bad.yaml:14:5: steps[2]: unknown action "frobnicate"; expected one of: run-pod, update-pod, create, start, update, exit, stop, remove, stop-pod, remove-pod, plugin-update, wait',
        'bad.yaml:16:12: expect[0].after: no step "create ap"; the steps are: "exit app"',
      ].join("\n"),
    );
  });

  it("reports YAML syntax errors with their position", () => {
    expect(errorOf("pods: [\n")).toMatch(/^bad\.yaml:2:1: /);
  });

  it("refuses a scenario that is not a mapping", () => {
    expect(errorOf("- run-pod: web\n")).toBe(
      "bad.yaml:1:1: expected a scenario: a mapping with name, pods, containers, steps and expect, got a list",
    );
  });

  it("asks for pod/name when a container name is ambiguous", () => {
    const text = `
pods: [{name: a}, {name: b}]
containers: [{name: app, pod: a}, {name: app, pod: b}]
steps:
  - create: app
  - create: b/app
`;
    expect(errorOf(text)).toBe(
      'bad.yaml:5:13: steps[0].create: container name "app" is ambiguous; write one of: a/app, b/app',
    );
  });

  it("takes env as a mapping or as KEY=value strings", () => {
    const text = `
pods: [{name: web}]
containers:
  - {name: a, pod: web, env: {A: 1, B: "two"}}
  - {name: b, pod: web, env: ["A=1", "B=two"]}
steps: [{create: a}]
`;
    expect(parseScenario(text).containers.map((c) => c.env)).toEqual([
      ["A=1", "B=two"],
      ["A=1", "B=two"],
    ]);
  });

  it("finds the step of an expectation by its text or number, and refuses ambiguous text", () => {
    const text = `${minimal}  - create: app
expect:
  - {after: 1, ok: true}
  - {after: create app, ok: true}
`;
    expect(errorOf(text)).toBe(
      'bad.yaml:10:13: expect[1].after: "create app" names steps 2, 3; write the step number instead',
    );
  });

  it("checks event names in expectations", () => {
    const text = `${minimal}expect:
  - after: create app
    events: {10-x: [CreateContainer, Created]}
`;
    expect(errorOf(text)).toMatch(
      /^bad\.yaml:9:38: expect\[0\]\.events\.10-x\[1\]: unknown event "Created"; events are: RunPodSandbox, /,
    );
  });

  it("refuses fields that what an expectation matches does not have, at any depth, whatever their value", () => {
    const text = `${minimal}  - exit: app
expect:
  - {after: exit app, container: {exitcode: 0}}
  - after: create app
    adjustment: {linux: {resources: {memory: {limt: 1Gi}}}, anotations: {a: b}, mounts: [{destination: /x, typ: bind}]}
    updates: [{container: app, resources: {cpu: {shares: 2}}, from: CreateContainer}]
    evictions: [{container: app, reson: full}]
    failures: [{plugin: 10-x, policy: {failrequest: true}}]
    containers: {app: {resources: {hugepageLimits: [{pagesize: 2MB}]}, netDevices: {eth0: {nam: x}}, env: {ANY: thing}}}
`;
    expect(errorOf(text)).toBe(
      [
        `bad.yaml:9:35: expect[0].container.exitcode: unknown field; expected one of: ${Object.keys(CONTAINER_VIEW_SHAPE.fields).join(", ")}`,
        "bad.yaml:11:47: expect[1].adjustment.linux.resources.memory.limt: unknown field; expected one of: limit, reservation, swap, kernel, kernelTcp, swappiness, disableOomKiller, useHierarchy",
        "bad.yaml:11:61: expect[1].adjustment.anotations: unknown field; expected one of: annotations, mounts, env, hooks, linux, rlimits, CDIDevices, args",
        "bad.yaml:11:108: expect[1].adjustment.mounts[0].typ: unknown field; expected one of: destination, type, source, options",
        "bad.yaml:12:63: expect[1].updates[0].from: unknown field; expected one of: container, resources, ignoreFailure, applied",
        "bad.yaml:13:34: expect[1].evictions[0].reson: unknown field; expected one of: container, reason, from",
        "bad.yaml:14:40: expect[1].failures[0].policy.failrequest: unknown field; expected one of: failRequest, keepConnected",
        "bad.yaml:15:54: expect[1].containers.app.resources.hugepageLimits[0].pagesize: unknown field; expected one of: pageSize, limit",
        "bad.yaml:15:92: expect[1].containers.app.netDevices.eth0.nam: unknown field; expected one of: name",
      ].join("\n"),
    );
  });

  it("takes every field of what expectations match", () => {
    const text = `${minimal}expect:
  - after: create app
    adjustment: {annotations: {a: b}, env: [{key: A, value: "1"}], linux: {resources: {memory: {limit: 1Gi}, unified: {x: y}}, oomScoreAdj: 5}}
    container: {state: created, exitCode: 0, env: {A: "1"}, resources: {cpu: {shares: 2}}, mounts: [{destination: /x}], netDevices: {eth0: {name: e}}}
    updates: [{container: app, resources: {memory: {limit: 1Gi}}, ignoreFailure: false, applied: true}]
    evictions: [{container: app, reason: full, from: 10-x}]
    failures: [{plugin: 10-x, event: CreateContainer, error: x, policy: {failRequest: true, keepConnected: false}, requestFailed: true, dropped: false}]
`;
    expect(parseScenario(text).expect).toHaveLength(1);
  });

  it("reads every kind of step", () => {
    const text = `
pods: [{name: web}]
containers: [{name: app, pod: web}, {name: side, pod: web}]
steps:
  - run-pod: web
  - update-pod: {pod: web, resources: {cpu: {shares: 2}}}
  - create: app
  - start: app
  - update: {container: app, resources: {memory: {limit: 1Gi}, pids: 10}}
  - plugin-update:
      plugin: 50-scaler
      update: [{container: side, resources: {cpu: {quota: 1000}}, ignoreFailure: true}]
      evict: [{container: app, reason: too big}]
  - wait: 50ms
  - exit: app
  - stop: {container: side, code: 143}
  - remove: app
  - stop-pod: web
  - remove-pod: web
`;
    const steps = parseScenario(text).steps;
    expect(steps.map((s) => s.text)).toEqual([
      "run-pod web",
      "update-pod web",
      "create app",
      "start app",
      "update app",
      "plugin-update 50-scaler",
      "wait 50ms",
      "exit app",
      "stop side",
      "remove app",
      "stop-pod web",
      "remove-pod web",
    ]);
    expect(steps[5]).toMatchObject({
      plugin: "50-scaler",
      updates: [{ container: "web/side", ignoreFailure: true, resources: { cpu: { quota: { value: 1000n } } } }],
      evictions: [{ container: "web/app", reason: "too big" }],
    });
    expect(steps[6]).toMatchObject({ kind: "wait", ms: 50 });
    expect(steps[8]).toMatchObject({ kind: "stop", container: "web/side", code: 143 });
  });

  it("checks scenarios given as objects, without line numbers", () => {
    expect(() => scenarioFromObject({ pods: [{ name: "web" }], steps: [{ "run-pod": "db" }] }, "inline")).toThrow(
      'inline: steps[0].run-pod: no pod "db" is declared; declared: web',
    );
  });

  it("throws only ScenarioError, whatever the text", () => {
    fc.assert(
      fc.property(fc.string(), (text) => {
        try {
          parseScenario(text);
        } catch (error) {
          expect(error).toBeInstanceOf(ScenarioError);
        }
      }),
      { numRuns: 300 },
    );
  });
});

describe("parseScenario on hostile nesting", () => {
  it("refuses a document nested thousands deep with a scenario error at the line where it got too deep", () => {
    const deep = `name: x\nsteps:\n  - ${"[".repeat(5000)}`;
    expect(() => parseScenario(deep, "deep.yaml")).toThrow(ScenarioError);
    expect(() => parseScenario(deep, "deep.yaml")).toThrow(/^deep\.yaml:3:\d+: nested deeper than 300 levels$/);
  });

  it("reads a wide scenario: hundreds of annotations on one line, brackets in quoted values", () => {
    const annotations = Array.from({ length: 400 }, (_, i) => `a${i}: "[{v${i}}]"`).join(", ");
    const scenario = parseScenario(`pods: [{name: web, annotations: {${annotations}}}]\nsteps: [{run-pod: web}]\n`);
    expect(Object.keys(scenario.pods[0].annotations)).toHaveLength(400);
    expect(scenario.pods[0].annotations.a399).toBe("[{v399}]");
  });
});
