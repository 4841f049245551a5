import { type HandlerContext, createLogger } from "@nri-ts/stub";
import { simulate } from "@nri-ts/sim";
import { describe, expect, it } from "vitest";
import type { TemplateConfig } from "./config.js";
import { createTemplatePlugin } from "./plugin.js";

/** The CPU shares of an update as nri-sim reports it. */
const shares = (resources: unknown) => (resources as { cpu?: { shares?: number } } | undefined)?.cpu?.shares;

const scenario = `
name: template
pods: [{name: web, namespace: shop}]
containers:
  - {name: side, pod: web}
  - {name: app, pod: web}
steps:
  - run-pod: web
  - create: side
  - start: side
  - wait: 200ms
  - create: app
  - start: app
  - wait: 200ms
  - update: {container: app, resources: {cpu: {shares: 300}}}
  - stop: app
  - remove: app
  - stop-pod: web
  - remove-pod: web
`;

function capture() {
  const messages: string[] = [];
  const write = (line: string) => messages.push(JSON.parse(line).msg) > 0;
  const logger = createLogger({ stream: { write } });
  return { logger, messages };
}

async function run(config?: TemplateConfig) {
  const { logger, messages } = capture();
  const report = await simulate(scenario, {
    plugins: [{ plugin: createTemplatePlugin({ logger, ...(config && { config }) }), index: "10", name: "template" }],
    clock: "virtual",
  });
  return { report, messages };
}

describe("the template under nri-sim", () => {
  it("logs each event it handles as the Go template does, and changes nothing", async () => {
    const { report, messages } = await run();
    expect(report.failures).toEqual([]);
    expect(messages).toEqual([
      "Connected to nri-sim/0.1.0...",
      "Synchronized state with the runtime (0 pods, 0 containers)...",
      "Started pod shop/web...",
      "Creating container shop/web/side...",
      "Created container shop/web/side...",
      "Starting container shop/web/side...",
      "Started container shop/web/side...",
      "Creating container shop/web/app...",
      "Created container shop/web/app...",
      "Starting container shop/web/app...",
      "Started container shop/web/app...",
      "Updating container shop/web/app...",
      "Updated container shop/web/app...",
      "Stopped container shop/web/app...",
      "Removed container shop/web/app...",
      "Stopped container shop/web/side...",
      "Stopped pod shop/web...",
      "Removed container shop/web/side...",
      "Removed pod shop/web...",
    ]);
    expect(report.steps.flatMap((s) => s.updates)).toEqual([]);
    expect(report.steps.map((s) => s.adjustment).filter((a) => a !== undefined)).toEqual([{}, {}]);
  });

  it("shows updates when configured: in replies, and unsolicited once a container starts", async () => {
    const { report, messages } = await run({ cfgParam1: "", updates: { cpuShares: 512n, unsolicited: true } });
    expect(report.failures).toEqual([]);
    // an unsolicited update lands during its start step or the wait after it
    const updates = report.steps.flatMap((s) =>
      s.updates.map((u) => `${u.from} ${u.container} ${shares(u.resources)} ${u.applied}`),
    );
    expect(updates).toEqual([
      "unsolicited from 10-template web/side 512 true",
      "CreateContainer web/side 512 true",
      "unsolicited from 10-template web/app 512 true",
      "UpdateContainer web/side 512 true",
      "StopContainer web/side 512 true",
    ]);
    expect(messages).toContain("Updating CPU shares of container shop/web/side to 512...");
    expect(messages).toContain("Pushing CPU shares 512 to container shop/web/app...");
  });
});

describe("configure", () => {
  const input = {
    runtimeName: "containerd",
    runtimeVersion: "2.1.0",
    runtimeNriVersion: "v0.9.0",
    registrationTimeoutMs: 5000,
    requestTimeoutMs: 2000,
  };
  const ctx = {} as HandlerContext;

  it("logs the runtime and the configuration, and keeps every event", () => {
    const { logger, messages } = capture();
    const plugin = createTemplatePlugin({ logger });
    expect(plugin.configure?.({ ...input, config: "cfgParam1: hello\n" }, ctx)).toBe(0);
    expect(messages).toEqual(["Connected to containerd/2.1.0...", "Got configuration data {CfgParam1:hello}..."]);
  });

  it("fails on a configuration it cannot decode", () => {
    const plugin = createTemplatePlugin({ logger: capture().logger });
    expect(() => plugin.configure?.({ ...input, config: "cfgParam1: {a: b}\n" }, ctx)).toThrow(
      /^failed to parse configuration: /,
    );
  });
});
