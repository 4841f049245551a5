import { fileURLToPath } from "node:url";
import type { Plugin } from "@nri-ts/stub";
import { describe, expect, it } from "vitest";
import { loadScenario, parseScenario, type ScenarioError } from "../scenario/parse-scenario.js";
import { PluginSetupError } from "../plugins/plugin-setup.js";
import { renderStep } from "../report/render-text.js";
import type { StepReport } from "../report/report.js";
import { simulate } from "./simulate.js";

const annotate = fileURLToPath(new URL("../fixtures/annotate.ts", import.meta.url));
const shippedScenario = fileURLToPath(new URL("../../scenarios/failure-policy.yaml", import.meta.url));
const logger = fileURLToPath(new URL("../../../plugins/logger/src/index.ts", import.meta.url));

const net: Plugin = {
  createContainer: () => ({ env: [{ key: "NET", value: "up" }] }),
  stopContainer: () => {},
};
const dns: Plugin = { createContainer: () => ({ annotations: { dns: "ok" } }) };

/**
 * Two plugins, a policy for 10-net, and a fault in step 2 (and 3). The
 * request timeout is the time the plugins have for every other request: 2 s,
 * for a busy machine (a timeout fault makes its step take that long).
 */
function scenario(policy: string, fault = "timeout"): string {
  return `
runtime: {requestTimeout: 2s}
plugins:
  10-net: {failurePolicy: ${policy}}
pods: [{name: web}]
containers: [{name: app, pod: web}, {name: side, pod: web}]
steps:
  - run-pod: web
  - create: app
    faults: {10-net: ${fault}}
  - create: side
`;
}

const plugins = [
  { plugin: net, index: "10", name: "net" },
  { plugin: dns, index: "20", name: "dns" },
];

function step(steps: StepReport[], n: number): StepReport {
  return steps[n - 1]!;
}

describe("failure policies under nri-sim", () => {
  it("fail_request + keep_connected: the create fails naming the plugin, the plugin stays and serves the next one", async () => {
    const report = await simulate(scenario("{failRequest: true, keepConnected: true}"), { plugins, clock: "virtual" });
    expect(report.plugins.find((p) => p.name === "10-net")?.failurePolicy).toEqual({
      failRequest: true,
      keepConnected: true,
    });
    const create = step(report.steps, 2);
    expect(create.ok).toBe(false);
    expect(create.error).toBe("plugin 10-net failed to handle CreateContainer request: context deadline exceeded");
    expect(create.faults).toEqual([{ plugin: "10-net", fault: "timeout", happened: true }]);
    expect(create.failures).toEqual([
      {
        plugin: "10-net",
        event: "CreateContainer",
        error: "context deadline exceeded",
        policy: { failRequest: true, keepConnected: true },
        requestFailed: true,
        dropped: false,
      },
    ]);
    expect(create.closed).toEqual([]);
    // 20-dns was not asked; the next create reaches both
    expect(create.events.filter((e) => e.event === "CreateContainer").map((e) => e.plugin)).toEqual(["10-net"]);
    const next = step(report.steps, 3);
    expect(next.ok).toBe(true);
    expect(next.container?.env).toEqual({ NET: "up" });
    expect(renderStep(create)).toContain("policy failRequest, keepConnected: request failed, plugin kept");
    expect(report.ok).toBe(false);
    expect(report.failures).toEqual([
      "step 2 (create app) failed: plugin 10-net failed to handle CreateContainer request: context deadline exceeded",
    ]);
  });

  it("no policy: the late plugin is dropped and the create goes on without its answer", async () => {
    const report = await simulate(
      `${scenario("{failRequest: false, keepConnected: false}")}expect:
  - after: create app
    ok: true
    closed: [10-net]
    failures: [{plugin: 10-net, event: CreateContainer, requestFailed: false, dropped: true}]
    container: {annotations: {dns: ok}}
`,
      { plugins, clock: "virtual" },
    );
    expect(report.failures).toEqual([]);
    expect(report.ok).toBe(true);
    expect(step(report.steps, 3).container?.env ?? {}).toEqual({});
  });

  it("a lost connection drops the plugin whatever the policy; fail_request fails the request with ttrpc: closed", async () => {
    const report = await simulate(scenario("{failRequest: true, keepConnected: true}", "disconnect"), {
      plugins,
      clock: "virtual",
    });
    const create = step(report.steps, 2);
    expect(create.error).toBe("plugin 10-net failed to handle CreateContainer request: ttrpc: closed");
    expect(create.failures.map((f) => [f.requestFailed, f.dropped])).toEqual([[true, true]]);
    expect(create.closed).toEqual(["10-net"]);
  });

  it("a module plugin (its own process) takes the policy and the fault too", async () => {
    const report = await simulate(
      `
runtime: {requestTimeout: 2s}  # the module plugin answers the other requests in time on a busy machine
plugins:
  10-annotate: {failurePolicy: {keepConnected: true}}
pods: [{name: web}]
containers: [{name: app, pod: web}, {name: side, pod: web}]
steps:
  - run-pod: web
  - create: app
    faults: {10-annotate: {fault: timeout, on: CreateContainer}}
  - create: side
`,
      // a module starts with Node and tsx: seconds on a busy machine
      { plugins: [{ module: annotate, index: "10", name: "annotate" }], clock: "virtual", waitTimeoutMs: 60_000 },
    );
    const create = step(report.steps, 2);
    expect([create.ok, create.faults?.[0]?.happened, create.closed]).toEqual([true, true, []]);
    expect(create.failures).toEqual([
      {
        plugin: "10-annotate",
        event: "CreateContainer",
        error: "context deadline exceeded",
        policy: { failRequest: false, keepConnected: true },
        requestFailed: false,
        dropped: false,
      },
    ]);
    expect(step(report.steps, 3).events.map((e) => [e.plugin, e.event, e.error])).toContainEqual([
      "10-annotate",
      "CreateContainer",
      undefined,
    ]);
    expect(report.ok).toBe(true);
  }, 120_000);

  it("a fault whose request never comes fails the run, saying so", async () => {
    const report = await simulate(
      `
plugins: {}
pods: [{name: web}]
containers: [{name: app, pod: web}]
steps:
  - run-pod: web
    faults: {10-net: {fault: timeout, on: StopContainer}}
`,
      { plugins, clock: "virtual" },
    );
    expect(step(report.steps, 1).faults).toEqual([
      { plugin: "10-net", fault: "timeout", on: "StopContainer", happened: false },
    ]);
    expect(report.failures).toEqual([
      "step 1 (run-pod web): plugin 10-net was to fail (timeout on StopContainer) but got no such request",
    ]);
  });

  it("refuses policies and faults for plugins it does not run", async () => {
    await expect(simulate(scenario("{failRequest: true}"), { plugins: [plugins[1]!] })).rejects.toThrow(
      new PluginSetupError(
        "the scenario gives 10-net a failure policy, but no plugin module or object is named 10-net; plugins: 20-dns",
      ),
    );
    await expect(
      simulate(scenario("{failRequest: true}"), { plugins: [{ executable: "/bin/true", index: "10", name: "net" }] }),
    ).rejects.toThrow(/^the scenario gives 10-net a failure policy, but 10-net is an executable/);
  });

  it("reads plugins: and faults: strictly", () => {
    const text = `
plugins:
  net: {failurePolicy: {failRequest: yes please}}
pods: [{name: web}]
steps:
  - run-pod: web
    faults: {10-net: explode, 20-x: {fault: timeout, on: Boot}}
`;
    const issues = (): string[] => {
      try {
        parseScenario(text);
      } catch (error) {
        return (error as ScenarioError).issues.map((issue) => `${issue.path}: ${issue.message}`);
      }
      return [];
    };
    expect(issues()).toEqual([
      'plugins.net: "net" is not a plugin\'s full name (NN-name, e.g. 10-logger)',
      'plugins.net.failurePolicy.failRequest: expected true or false, got "yes please"',
      'steps[0].faults.10-net: unknown fault "explode"; faults are: timeout, disconnect',
      expect.stringMatching(/^steps\[0\]\.faults\.20-x\.on: unknown event "Boot"; events are: RunPodSandbox, /),
    ]);
  });

  it("runs the shipped scenarios/failure-policy.yaml with the logger, as its header says", async () => {
    const report = await simulate(await loadScenario(shippedScenario), {
      plugins: [{ module: logger, index: "10", name: "logger" }],
      waitTimeoutMs: 60_000, // a module starts with Node and tsx: seconds on a busy machine
    });
    expect(report.failures).toEqual([]);
    expect(report.expectations.map((e) => e.ok)).toEqual([true, true, true]);
  }, 120_000);
});
