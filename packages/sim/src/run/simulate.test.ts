import { type Container, ContainerState, type DeepPartial, type LinuxResources } from "@nri-ts/api";
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { type Plugin, silentLogger, Stub } from "@nri-ts/stub";
import { describe, expect, it } from "vitest";
import { parseScenario, ScenarioError } from "../scenario/parse-scenario.js";
import { renderStep } from "../report/render-text.js";
import type { StepReport } from "../report/report.js";
import { simulate } from "./simulate.js";

const lifecycle = `
name: lifecycle
pods:
  - name: web
containers:
  - name: app
    pod: web
    image: nginx:1.27
    env: {MODE: prod}
    resources: {memory: {limit: 256Mi}, cpu: {shares: 512}}
  - name: side
    pod: web
steps:
  - run-pod: web
  - create: side
  - start: side
  - create: app
  - start: app
  - update: {container: app, resources: {memory: {limit: 512Mi}}}
  - exit: {container: app, code: 137, reason: OOMKilled, message: memory limit of 512Mi exceeded}
  - remove: app
  - stop-pod: web
  - remove-pod: web
`;

function step(steps: StepReport[], text: string): StepReport {
  const found = steps.find((s) => s.step === text);
  if (!found) throw new Error(`no step ${text}`);
  return found;
}

describe("simulate", () => {
  it("drives the lifecycle and delivers each event in order, status fields included", async () => {
    const seen: { event: string; container?: Container }[] = [];
    const record =
      (event: string) =>
      (_pod: unknown, container?: Container): void => {
        seen.push({ event, ...(container && { container }) });
      };
    const watcher: Plugin = {
      runPodSandbox: () => record("RunPodSandbox")(undefined),
      createContainer: (_pod, c) => record("CreateContainer")(_pod, c),
      postCreateContainer: record("PostCreateContainer"),
      startContainer: record("StartContainer"),
      postStartContainer: record("PostStartContainer"),
      updateContainer: (_pod, c) => record("UpdateContainer")(_pod, c),
      postUpdateContainer: record("PostUpdateContainer"),
      stopContainer: (_pod, c) => record("StopContainer")(_pod, c),
      removeContainer: record("RemoveContainer"),
      stopPodSandbox: () => record("StopPodSandbox")(undefined),
      removePodSandbox: () => record("RemovePodSandbox")(undefined),
    };
    const report = await simulate(lifecycle, {
      plugins: [{ plugin: watcher, index: "10", name: "watcher" }],
      clock: "virtual",
    });

    expect(report.ok).toBe(true);
    expect(report.plugins).toEqual([{ name: "10-watcher", source: "object" }]);
    expect(report.setup.events).toEqual([{ plugin: "10-watcher", event: "Synchronize" }]);
    const app = (event: string) =>
      seen.filter((s) => s.event === event && s.container?.name === "app").map((s) => s.container!);
    expect(seen.filter((s) => !s.container || s.container.name === "app").map((s) => s.event)).toEqual([
      "RunPodSandbox",
      "CreateContainer",
      "PostCreateContainer",
      "StartContainer",
      "PostStartContainer",
      "UpdateContainer",
      "PostUpdateContainer",
      "StopContainer",
      "RemoveContainer",
      "StopPodSandbox",
      "RemovePodSandbox",
    ]);
    const t0 = 1767225600000000000n;
    const second = 1_000_000_000n;
    expect(app("CreateContainer")[0]).toMatchObject({
      state: ContainerState.CONTAINER_CREATED,
      createdAt: t0 + 4n * second,
      startedAt: 0n,
    });
    expect(app("StartContainer")[0]).toMatchObject({ state: ContainerState.CONTAINER_CREATED, startedAt: 0n });
    expect(app("PostStartContainer")[0]).toMatchObject({
      state: ContainerState.CONTAINER_RUNNING,
      startedAt: t0 + 5n * second,
    });
    expect(app("StopContainer")[0]).toMatchObject({
      state: ContainerState.CONTAINER_STOPPED,
      createdAt: t0 + 4n * second,
      startedAt: t0 + 5n * second,
      finishedAt: t0 + 7n * second,
      exitCode: 137,
      statusReason: "OOMKilled",
      statusMessage: "memory limit of 512Mi exceeded",
    });
    expect(app("UpdateContainer")[0].linux?.resources?.memory?.limit).toEqual({ value: 256n << 20n });
    expect(step(report.steps, "update app").container).toMatchObject({ resources: { memory: { limit: 512 << 20 } } });
    expect(step(report.steps, "exit app").events).toEqual([{ plugin: "10-watcher", event: "StopContainer" }]);
    expect(step(report.steps, "remove app").events).toEqual([{ plugin: "10-watcher", event: "RemoveContainer" }]);
    expect(step(report.steps, "stop-pod web").events.map((e) => e.event)).toEqual(["StopContainer", "StopPodSandbox"]);
    expect(step(report.steps, "stop-pod web").container).toBeUndefined();
    expect(step(report.steps, "remove app").container).toMatchObject({
      removed: true,
      exitCode: 137,
      state: "stopped",
    });
  });

  it("reports the merged adjustment with the owner of each change, and applies it as a runtime does", async () => {
    const alpha: Plugin = {
      createContainer: () => ({
        annotations: { "example.com/owner": "alpha" },
        env: [{ key: "GREETING", value: "alpha" }],
        linux: { resources: { memory: { limit: { value: 1n << 30n }, reservation: { value: 1n << 20n } } } },
      }),
    };
    const beta: Plugin = {
      createContainer: () => ({
        annotations: { "-example.com/owner": "", "example.com/owner": "beta" },
        env: [{ key: "-MODE", value: "" }],
      }),
    };
    const report = await simulate(lifecycle, {
      plugins: [
        { plugin: alpha, index: "10", name: "alpha" },
        { plugin: beta, index: "20", name: "beta" },
      ],
    });
    const create = step(report.steps, "create app");
    expect(create.adjustment).toEqual({
      annotations: { "-example.com/owner": "", "example.com/owner": "beta" },
      env: [{ key: "GREETING", value: "alpha" }],
      linux: { resources: { memory: { limit: 1 << 30, reservation: 1 << 20 } } },
    });
    expect(create.changes.map(({ text, owner }) => [text, owner])).toEqual([
      ["annotation -example.com/owner (remove)", "20-beta"],
      ["annotation example.com/owner=beta", "20-beta"],
      ["env GREETING=alpha", "10-alpha"],
      ["memory.limit 1Gi", "10-alpha"],
      ["memory.reservation 1Mi", "10-alpha"],
    ]);
    expect(create.ignored).toEqual(["linux.resources.memory.reservation"]);
    expect(create.container).toMatchObject({
      annotations: { "example.com/owner": "beta" },
      env: { MODE: "prod", GREETING: "alpha" },
      resources: { memory: { limit: 1 << 30, swap: 1 << 30 } },
    });
  });

  it("reports the owner of each change in updates carried by CreateContainer, UpdateContainer and StopContainer replies", async () => {
    const ids = new Map<string, string>();
    const remember = (container: Container) => ids.set(container.name, container.id);
    const resources = (containerId: string, linux: DeepPartial<LinuxResources>) => ({
      containerId,
      linux: { resources: linux },
    });
    const alpha: Plugin = {
      createContainer: (_pod, c) => {
        remember(c);
        if (c.name === "app") return { update: [resources(ids.get("side")!, { cpu: { shares: { value: 256n } } })] };
      },
      updateContainer: (_pod, c) => [resources(c.id, { memory: { limit: { value: 768n << 20n } } })],
      stopContainer: (_pod, c) =>
        c.name === "app" ? [resources(ids.get("side")!, { memory: { limit: { value: 128n << 20n } } })] : [],
    };
    const beta: Plugin = {
      createContainer: (_pod, c) => {
        if (c.name === "app")
          return { update: [resources(ids.get("side")!, { memory: { limit: { value: 64n << 20n } } })] };
      },
      updateContainer: (_pod, c) => [resources(c.id, { cpu: { shares: { value: 2048n } } })],
    };
    const report = await simulate(
      `${lifecycle}
expect:
  - after: update app
    owners: {MemLimit: 10-alpha, CPUShares: 20-beta}
`,
      {
        plugins: [
          { plugin: alpha, index: "10", name: "alpha" },
          { plugin: beta, index: "20", name: "beta" },
        ],
        clock: "virtual",
      },
    );
    const owned = (s: StepReport) =>
      s.updates.map(({ container, from, changes }) => ({
        container,
        from,
        owned: changes.filter((c) => c.owner).map((c) => [c.text, c.owner]),
      }));

    expect(report.failures).toEqual([]);
    expect(owned(step(report.steps, "create app"))).toEqual([
      {
        container: "web/side",
        from: "CreateContainer",
        owned: [
          ["memory.limit 64Mi", "20-beta"],
          ["cpu.shares 256", "10-alpha"],
        ],
      },
    ]);
    expect(owned(step(report.steps, "update app"))).toEqual([
      {
        container: "web/app",
        from: "UpdateContainer",
        owned: [
          ["memory.limit 768Mi", "10-alpha"],
          ["cpu.shares 2048", "20-beta"],
        ],
      },
    ]);
    expect(owned(step(report.steps, "exit app"))).toEqual([
      { container: "web/side", from: "StopContainer", owned: [["memory.limit 128Mi", "10-alpha"]] },
    ]);
    expect(renderStep(step(report.steps, "update app"))).toContain("memory.limit 768Mi  10-alpha");
  });

  it("fails a create on a conflict, with the Go reference's text, and undoes it for the plugins", async () => {
    const shares = (value: bigint): Plugin => ({
      createContainer: () => ({ linux: { resources: { cpu: { shares: { value } } } } }),
      stopContainer: () => {},
      removeContainer: () => {},
    });
    const report = await simulate(lifecycle, {
      plugins: [
        { plugin: shares(1n), index: "10", name: "one" },
        { plugin: shares(2n), index: "20", name: "two" },
      ],
    });
    const create = step(report.steps, "create side");
    expect(create.ok).toBe(false);
    expect(create.error).toBe('plugins "20-two" and "10-one" both tried to set CPUShares ');
    expect(create.events.map((e) => `${e.plugin} ${e.event}`)).toEqual([
      "10-one CreateContainer",
      "20-two CreateContainer",
      "10-one StopContainer",
      "20-two StopContainer",
      "10-one RemoveContainer",
      "20-two RemoveContainer",
    ]);
    expect(report.ok).toBe(false);
    expect(report.failures[0]).toBe(
      'step 2 (create side) failed: plugins "20-two" and "10-one" both tried to set CPUShares ',
    );
    expect(step(report.steps, "start side").error).toBe(
      'container "web/side" is declared; only a created container can start',
    );
  });

  it("reports validators' verdicts and a rejection", async () => {
    const scenario = parseScenario(`
pods: [{name: web}]
containers: [{name: app, pod: web}, {name: side, pod: web}]
steps: [{run-pod: web}, {create: side}, {create: app}]
expect:
  - after: create app
    error: 'validator "30-strict" rejected container adjustment, reason: no env changes allowed'
`);
    const report = await simulate(scenario, {
      plugins: [
        {
          plugin: { createContainer: (_pod, c) => (c.name === "app" ? { env: [{ key: "X", value: "1" }] } : {}) },
          index: "10",
          name: "env",
        },
        { plugin: { validateContainerAdjustment: () => {} }, index: "20", name: "lenient" },
        {
          plugin: {
            validateContainerAdjustment(request) {
              if ((request.adjust?.env.length ?? 0) > 0) throw new Error("no env changes allowed");
            },
          },
          index: "30",
          name: "strict",
        },
      ],
    });
    expect(step(report.steps, "create side").validation).toEqual([
      { plugin: "20-lenient", accepted: true },
      { plugin: "30-strict", accepted: true },
    ]);
    const create = step(report.steps, "create app");
    expect(create.validation).toEqual([
      { plugin: "20-lenient", accepted: true },
      { plugin: "30-strict", accepted: false, reason: "no env changes allowed" },
    ]);
    expect(create.error).toBe('validator "30-strict" rejected container adjustment, reason: no env changes allowed');
    expect(create.container).toBeUndefined();
    expect(report.expectations).toEqual([{ line: 6, step: 3, stepText: "create app", ok: true, failures: [] }]);
    expect(report.ok).toBe(true);
  });

  it("applies unsolicited updates and evictions a plugin sends, and tells the plugins", async () => {
    const scenario = `
pods: [{name: web}]
containers: [{name: app, pod: web}, {name: side, pod: web}]
steps:
  - run-pod: web
  - create: app
  - start: app
  - create: side
  - plugin-update:
      plugin: 90-scaler
      update:
        - {container: app, resources: {cpu: {quota: 20000, period: 100000}, pids: 10}}
        - {container: side, resources: {memory: {limit: 64Mi}}, ignoreFailure: true}
      evict: [{container: side, reason: too hungry}]
expect:
  - after: 5
    containers:
      app: {resources: {cpu: {quota: 20000}}}
      side: {state: stopped, exitCode: 137, statusReason: Error}
    evictions: [{container: web/side, reason: too hungry, from: 90-scaler}]
    events: {10-watch: [StopContainer]}
`;
    const report = await simulate(scenario, {
      plugins: [{ plugin: { stopContainer: () => {} }, index: "10", name: "watch" }],
    });
    const updated = report.steps[4];
    expect(report.plugins.map((p) => p.name)).toEqual(["10-watch"]);
    expect(updated.updates).toEqual([
      expect.objectContaining({
        container: "web/app",
        from: "unsolicited from 90-scaler",
        applied: true,
        ignored: ["linux.resources.pids"],
      }),
      expect.objectContaining({ container: "web/side", applied: true, ignoreFailure: true }),
    ]);
    expect(report.expectations.map((e) => e.failures)).toEqual([[]]);
    expect(report.ok).toBe(true);
  });

  it("drops a plugin that times out and goes on; the loss fails the run unless expected", async () => {
    const text = `
runtime: {requestTimeout: 2s}  # 20-fine answers in time on a busy machine
pods: [{name: web}]
containers: [{name: app, pod: web}]
steps:
  - run-pod: web
  - create: app
  - start: app
`;
    // never answers in time: it answers 500 ms after its request's deadline
    const slow: Plugin = {
      createContainer: (_pod, _container, ctx) =>
        new Promise((resolve) => ctx.signal.addEventListener("abort", () => setTimeout(resolve, 500), { once: true })),
      startContainer: () => {},
    };
    const fine: Plugin = { createContainer: () => ({ annotations: { fine: "yes" } }), startContainer: () => {} };
    const plugins = [
      { plugin: slow, index: "10", name: "slow" },
      { plugin: fine, index: "20", name: "fine" },
    ];
    const report = await simulate(text, { plugins });
    const create = report.steps[1];
    expect(create.ok).toBe(true);
    expect(create.closed).toEqual(["10-slow"]);
    expect(create.events).toEqual([
      { plugin: "10-slow", event: "CreateContainer", error: "context deadline exceeded" },
      { plugin: "20-fine", event: "CreateContainer" },
    ]);
    expect(create.adjustment).toEqual({ annotations: { fine: "yes" } });
    expect(report.steps[2].events).toEqual([{ plugin: "20-fine", event: "StartContainer" }]);
    expect(report.failures).toEqual(["step 2 (create app): plugin 10-slow was dropped by the runtime"]);

    const expected = await simulate(`${text}expect: [{after: create app, closed: [10-slow]}]\n`, { plugins });
    expect(expected.failures).toEqual([]);
    expect(expected.ok).toBe(true);
  });

  it("lets a scenario assert, and reports what does not match", async () => {
    const report = await simulate(
      `${lifecycle}
expect:
  - after: create app
    adjustment: {annotations: {seen: "no"}}
    owners: {Annotations seen: 20-other}
    container: {env: {MODE: dev}, resources: {memory: {limit: 256Mi}}}
`,
      {
        plugins: [{ plugin: { createContainer: () => ({ annotations: { seen: "yes" } }) }, index: "10", name: "seer" }],
      },
    );
    expect(report.ok).toBe(false);
    expect(report.expectations[0].failures).toEqual([
      'adjustment.annotations.seen: expected "no", got "yes"',
      "owners.Annotations seen: expected 20-other, got 10-seer",
      'container web/app.env.MODE: expected "dev", got "prod"',
    ]);
    expect(report.failures).toEqual(["expectation at line 26 after step 4 (create app) failed"]);
  });

  it("refuses, before any step, an events expectation naming a plugin not in the run", async () => {
    const text = `pods: [{name: web}]
containers: [{name: app, pod: web}]
steps:
  - run-pod: web
  - create: app
  - plugin-update: {update: [{container: app, resources: {pids: 10}}]}
expect:
  - after: create app
    events: {10-logger: [CreateContainer], 10-logr: []}
  - after: 3
    events:
      99-scenario: []
`;
    const runs: number[] = [];
    const plugins = [{ plugin: { createContainer: () => {} }, index: "10", name: "logger" }];
    const error = await simulate(parseScenario(text, "typo.yaml"), {
      plugins,
      observer: { stepStarted: (n) => runs.push(n) },
    }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ScenarioError);
    expect((error as Error).message).toBe(
      [
        'typo.yaml:9:44: expect[0].events.10-logr: no plugin "10-logr" is in the run; plugins: 10-logger',
        "typo.yaml:12:7: expect[1].events.99-scenario: 99-scenario is the scenario's scripted plugin (plugin-update); reports leave its events out",
      ].join("\n"),
    );
    expect(runs).toEqual([]);
    // the same scenario from an object: the field, without a line
    await expect(
      simulate(
        {
          pods: [{ name: "web" }],
          containers: [{ name: "app", pod: "web" }],
          steps: [{ "run-pod": "web" }, { create: "app" }],
          expect: [{ after: "create app", events: { "10-logr": [] } }],
        },
        { plugins },
      ),
    ).rejects.toThrow(
      /^scenario: expect\[0\]\.events\.10-logr: no plugin "10-logr" is in the run; plugins: 10-logger$/,
    );
  });

  it("hands plugins that connect the runtime's state in Synchronize and applies their updates", async () => {
    const report = await simulate(lifecycle, {
      plugins: [{ plugin: { synchronize: () => [], runPodSandbox: () => {} }, index: "10", name: "sync" }],
    });
    expect(report.setup.events).toEqual([{ plugin: "10-sync", event: "Synchronize" }]);
  });

  it("says why an external plugin it waited for did not join: it registered, then failed Configure", async () => {
    const dir = await mkdtemp(join(tmpdir(), "nri-sim-external-"));
    const socketPath = join(dir, "nri.sock");
    const external = new Stub(
      {
        configure: () => {
          throw new Error("no quota");
        },
        createContainer: () => ({}),
      },
      { index: "50", name: "outside", env: {}, logger: silentLogger, socketPath, onClose: () => {} },
    );
    try {
      await expect(
        simulate(lifecycle, {
          socketPath,
          waitPlugins: 1,
          waitTimeoutMs: 60_000,
          observer: { listening: () => void external.start().catch(() => {}) },
        }),
      ).rejects.toMatchObject({
        failures: [
          {
            reason:
              "external plugins: 1 awaited within 60000 ms, 1 came, 0 running; 50-outside: it registered, then failed Configure: rpc error: code = Unknown desc = no quota",
          },
        ],
      });
    } finally {
      await external.stop();
      await rm(dir, { recursive: true, force: true });
    }
  });

  it("waits for external plugins on the socket it was given", async () => {
    const dir = await mkdtemp(join(tmpdir(), "nri-sim-external-"));
    const socketPath = join(dir, "nri.sock");
    const external = new Stub(
      { createContainer: () => ({ annotations: { external: "yes" } }) },
      { index: "50", name: "outside", env: {}, logger: silentLogger, socketPath },
    );
    try {
      const report = await simulate(lifecycle, {
        socketPath,
        waitPlugins: 1,
        observer: { listening: () => void external.start() },
      });
      expect(report.plugins).toEqual([{ name: "50-outside", source: "external" }]);
      expect(step(report.steps, "create app").changes.map((c) => [c.text, c.owner])).toEqual([
        ["annotation external=yes", "50-outside"],
      ]);
    } finally {
      await external.stop();
      await rm(dir, { recursive: true, force: true });
    }
  });
});
