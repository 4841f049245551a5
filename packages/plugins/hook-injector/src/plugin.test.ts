import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { simulate } from "@nri-ts/sim";
import { silentLogger } from "@nri-ts/stub";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { HookStore } from "./hook-store.js";
import { createHookInjector } from "./plugin.js";

let dir: string;

beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), "nri-hook-injector-"));
});

afterEach(() => rm(dir, { recursive: true, force: true }));

async function run(scenario: string) {
  const store = await HookStore.open([dir], silentLogger);
  return simulate(scenario, {
    plugins: [
      { plugin: createHookInjector({ hooks: store, logger: silentLogger }), index: "10", name: "hook-injector" },
    ],
    clock: "virtual",
  });
}

const oneContainer = `
pods: [{name: test-pod}]
containers: [{name: test-container, pod: test-pod, args: [run.sh]}]
steps: [{run-pod: test-pod}, {create: test-container}]
`;

// The two cases of the Go plugin's tests, with our own inputs.
describe("the hook-injector under nri-sim", () => {
  it("leaves a container alone when no hooks are configured", async () => {
    const report = await run(oneContainer);
    expect(report.failures).toEqual([]);
    expect(report.steps[1].events.map((e) => e.event)).toEqual(["CreateContainer"]);
    expect(report.steps[1].adjustment).toEqual({});
  });

  it("injects a configured createRuntime hook", async () => {
    const hook = {
      version: "1.0.0",
      hook: { path: "/bin/echo", args: ["echo", "testing from hook"] },
      when: { always: true },
      stages: ["createRuntime"],
    };
    await writeFile(join(dir, "test-hook.json"), JSON.stringify(hook));
    const report = await run(oneContainer);
    expect(report.failures).toEqual([]);
    expect(report.steps[1].adjustment).toEqual({
      hooks: { createRuntime: [{ path: "/bin/echo", args: ["echo", "testing from hook"] }] },
    });
    expect(report.steps[1].changes.map((c) => c.owner)).toEqual(["10-hook-injector"]);
  });

  it("matches commands, pod and container annotations and mounts, and fails a container it cannot decide for", async () => {
    const write = (name: string, content: object) => writeFile(join(dir, name), JSON.stringify(content));
    await write("10-busybox.json", {
      version: "1.0.0",
      hook: { path: "/bin/true", args: ["busybox-hook"] },
      when: { commands: ["busybox$"] },
      stages: ["prestart"],
    });
    await write("20-annotated.json", {
      version: "1.0.0",
      hook: { path: "/bin/true", env: ["TRACE=1"] },
      when: { annotations: { "^example\\.com/trace$": "^on$" } },
      stages: ["poststart"],
    });
    await write("30-legacy.json", {
      hook: "/bin/true",
      arguments: ["mounted"],
      stage: ["poststop"],
      hasbindmounts: true,
    });
    const report = await run(`
pods:
  - {name: web, annotations: {example.com/trace: "on"}}
  - {name: db}
containers:
  - {name: box, pod: db, args: [/bin/busybox, sh]}
  - {name: traced, pod: db, args: [nginx], annotations: {example.com/trace: "on"}}
  - {name: overridden, pod: web, args: [nginx], annotations: {example.com/trace: "off"}}
  - {name: mounted, pod: db, args: [app], mounts: [{destination: /data, source: /srv, type: bind}]}
  - {name: plain, pod: db, args: [app]}
  - {name: bare, pod: db}
steps:
  - run-pod: web
  - run-pod: db
  - create: box
  - create: traced
  - create: overridden
  - create: mounted
  - create: plain
  - create: bare
`);
    const [, , box, traced, overridden, mounted, plain, bare] = report.steps;
    expect(box.adjustment).toEqual({ hooks: { createRuntime: [{ path: "/bin/true", args: ["busybox-hook"] }] } });
    expect(traced.adjustment).toEqual({ hooks: { poststart: [{ path: "/bin/true", env: ["TRACE=1"] }] } });
    // the pod's annotation wins over the container's
    expect(overridden.adjustment).toEqual(traced.adjustment);
    expect(mounted.adjustment).toEqual({
      hooks: { poststop: [{ path: "/bin/true", args: ["/bin/true", "mounted"] }] },
    });
    expect(plain.adjustment).toEqual({});
    expect(bare.ok).toBe(false);
    expect(bare.error).toContain(
      'hook generation failed: matching hook "10-busybox.json": process.args must have at least one entry',
    );
  });
});
