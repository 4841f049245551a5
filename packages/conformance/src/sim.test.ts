/*
 * nri-sim against the real thing: a Go plugin built on the upstream stub
 * (cmd/sim-plugin, launched twice as 10-alpha and 20-beta, as a runtime
 * launches pre-installed plugins) runs through a scenario under nri-sim,
 * which records every CreateContainer, UpdateContainer and StopContainer
 * request it sends. The same requests then go, in the same order, to the Go
 * adaptation (github.com/containerd/nri/pkg/adaptation, driven by
 * cmd/stub-host) hosting the same two plugins; what the Go adaptation
 * merges must be what nri-sim reports, step by step, conflicts included.
 */
import { mkdir, mkdtemp, rm, symlink, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import {
  type Container,
  ContainerAdjustment,
  ContainerUpdate,
  CreateContainerRequest,
  type LinuxResources,
  type PodSandbox,
  StopContainerRequest,
  UpdateContainerRequest,
} from "@nri-ts/api";
import { parseScenario, plain, type SimReport, simulate, type StepReport } from "@nri-ts/sim";
import type { Plugin } from "@nri-ts/stub";
import { afterAll, beforeAll, expect, it } from "vitest";
import { StubHost } from "../fixtures/stub/harness.js";
import { describeWithGo, goCommand } from "./go.js";

const scenario = parseScenario(`
name: two Go plugins
pods: [{name: web}]
containers:
  - {name: side, pod: web, resources: {cpu: {shares: 100}}}
  - {name: app, pod: web, env: {GREETING: hello}, resources: {memory: {limit: 256Mi}}}
steps:
  - run-pod: web
  - create: side
  - start: side
  - create: app
  - start: app
  - update: {container: app, resources: {cpu: {shares: 300}}}
  - stop: app
  - remove: app
`);

type Recorded =
  | { op: "CreateContainer"; step: number; request: unknown }
  | { op: "UpdateContainer"; step: number; request: unknown }
  | { op: "StopContainer"; step: number; request: unknown };

/**
 * A plugin that only listens, first in line (index 00): it sees each request
 * as the runtime sent it, before any other plugin changed it.
 */
function recorder(requests: Recorded[], currentStep: () => number): Plugin {
  return {
    createContainer(pod: PodSandbox, container: Container) {
      requests.push({
        op: "CreateContainer",
        step: currentStep(),
        request: CreateContainerRequest.toJSON({ pod, container }),
      });
    },
    updateContainer(pod: PodSandbox, container: Container, linuxResources: LinuxResources | undefined) {
      requests.push({
        op: "UpdateContainer",
        step: currentStep(),
        request: UpdateContainerRequest.toJSON({ pod, container, linuxResources }),
      });
    },
    stopContainer(pod: PodSandbox, container: Container) {
      requests.push({
        op: "StopContainer",
        step: currentStep(),
        request: StopContainerRequest.toJSON({ pod, container }),
      });
    },
  };
}

const ids = new Map(scenario.containers.map((c) => [`${c.pod}/${c.name}`, c.id]));

/** Updates as nri-sim reports them: container id and resources. */
function simUpdates(step: StepReport, from: string): unknown[] {
  return step.updates.filter((u) => u.from === from).map((u) => ({ id: ids.get(u.container), resources: u.resources }));
}

/** Updates as the Go adaptation answers them, in the same shape (a null entry: the requested container, untouched). */
function goUpdates(response: { update?: unknown[] }): unknown[] {
  return (response.update ?? [])
    .filter((u) => u !== null)
    .map((u) => ContainerUpdate.fromJSON(u))
    .map((u) => ({ id: u.containerId, resources: plain(u.linux?.resources) }));
}

let simPlugin: string;
let stubHost: string;
let dir: string;

beforeAll(async () => {
  [simPlugin, stubHost] = await Promise.all([goCommand("sim-plugin"), goCommand("stub-host")]);
  dir = await mkdtemp(join(tmpdir(), "nri-sim-conformance-"));
});

afterAll(() => rm(dir, { recursive: true, force: true }));

/** Runs the scenario under nri-sim with the Go plugins in these roles, recording the requests. */
async function underSim(roles: Record<string, string>): Promise<{ report: SimReport; requests: Recorded[] }> {
  const requests: Recorded[] = [];
  let step = 0;
  const report = await simulate(scenario, {
    plugins: [
      { plugin: recorder(requests, () => step), index: "00", name: "recorder" },
      ...Object.entries(roles).map(([fullName, role]) => ({
        executable: simPlugin,
        index: fullName.slice(0, 2),
        name: fullName.slice(3),
        config: role,
      })),
    ],
    clock: "virtual",
    observer: { stepStarted: (number) => (step = number) },
  });
  return { report, requests };
}

/** Replays the requests to the Go adaptation hosting the same plugins; its answers (or errors), in order. */
async function underGo(
  roles: Record<string, string>,
  requests: Recorded[],
): Promise<{ response?: Record<string, unknown[]>; error?: string }[]> {
  const root = await mkdtemp(join(dir, "go-"));
  const plugins = join(root, "plugins");
  const config = join(root, "conf.d");
  await Promise.all([mkdir(plugins), mkdir(config)]);
  for (const [fullName, role] of Object.entries(roles)) {
    await symlink(simPlugin, join(plugins, fullName));
    await writeFile(join(config, `${fullName}.conf`), role);
  }
  const host = new StubHost(stubHost, { pluginPath: plugins, pluginConfigPath: config });
  try {
    await host.call("start");
    const replies = [];
    for (const { op, request } of requests) {
      const reply = await host.request<Record<string, unknown[]>>(op, { request });
      replies.push({
        ...(reply.response !== undefined && { response: reply.response }),
        ...(reply.error !== undefined && { error: reply.error }),
      });
    }
    return replies;
  } finally {
    await host.stop();
  }
}

describeWithGo("nri-sim and the Go adaptation merge a Go plugin's answers alike", () => {
  it("adjustments, updates during creation, solicited updates and updates on stop", async () => {
    const roles = { "10-alpha": "alpha", "20-beta": "beta" };
    const { report, requests } = await underSim(roles);
    expect(report.failures).toEqual([]);
    expect(requests.map((r) => `${r.op} ${r.step}`)).toEqual([
      "CreateContainer 2",
      "CreateContainer 4",
      "UpdateContainer 6",
      "StopContainer 7",
    ]);
    const replies = await underGo(roles, requests);
    expect(replies.map((r) => r.error)).toEqual([undefined, undefined, undefined, undefined]);

    for (const [i, { op, step: number }] of requests.entries()) {
      const step = report.steps[number - 1];
      const response = replies[i].response ?? {};
      if (op === "CreateContainer") {
        expect(step.adjustment).toEqual(plain(ContainerAdjustment.fromJSON(response.adjust)) ?? {});
      }
      expect(simUpdates(step, op)).toEqual(goUpdates(response));
    }

    // What the comparison covered, spelled out: the adjustment of app and the updates of side.
    const createApp = report.steps[3];
    expect(createApp.adjustment).toMatchObject({
      annotations: { "-sim.nri-ts/owner": "", "sim.nri-ts/owner": "beta", "sim.nri-ts/alpha": "app" },
      env: [
        { key: "ALPHA", value: "1" },
        { key: "GREETING", value: "from-beta" },
      ],
      mounts: [{ destination: "-/var/alpha" }],
    });
    expect(
      createApp.changes
        .filter((c) => c.key === "sim.nri-ts/owner" || c.key === "/var/alpha")
        .map((c) => [c.text, c.owner]),
    ).toEqual([
      ["annotation -sim.nri-ts/owner (remove)", "20-beta"],
      ["annotation sim.nri-ts/owner=beta", "20-beta"],
      ["mount -/var/alpha (remove)", "-20-beta"],
    ]);
    expect(simUpdates(createApp, "CreateContainer")).toEqual([
      { id: ids.get("web/side"), resources: { cpu: { shares: 128 }, hugepageLimits: [{ pageSize: "2MB" }] } },
    ]);
    expect(report.steps[5].container).toMatchObject({
      resources: { cpu: { shares: 300, quota: 50000, period: 100000 }, memory: { limit: 384 << 20 } },
    });
  });

  it("the same conflict, with the same error text", async () => {
    const roles = { "10-alpha": "alpha", "30-gamma": "gamma" };
    const { report, requests } = await underSim(roles);
    const createSide = report.steps[1];
    expect(createSide.error).toBe('plugins "30-gamma" and "10-alpha" both tried to set CPUShares ');
    const replies = await underGo(roles, requests.slice(0, 1));
    expect(replies[0].error).toBe(createSide.error);
  });
});
