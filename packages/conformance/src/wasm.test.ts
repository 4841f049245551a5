/*
 * WASM plugins under @nri-ts/adaptation and under the Go adaptation: the
 * same Go module (cmd/wasm-plugin, built with GOOS=wasip1 on upstream's
 * pkg/api) in the same plugin directory, next to a Go process plugin
 * (cmd/adaptation-plugin) connected to the socket, through the same
 * scenario. Everything must come out the same: responses, error texts (the
 * plugin's own, a trap's with its stack, a timeout's), what the modules log
 * through the host, the invocation order, what each synchronization asked
 * for.
 */
import { chmod, mkdir, mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import {
  Container,
  ContainerState,
  type ContainerUpdate,
  type CreateContainerRequest,
  type CreateContainerResponse,
  PodSandbox,
} from "@nri-ts/api";
import { renderHeader, simulate } from "@nri-ts/sim";
import { afterEach, beforeAll, beforeEach, expect, test } from "vitest";
import {
  type GoPlugin,
  installWasmPlugins,
  readable,
  readableSync,
  type RunOptions,
  type RunResult,
  runGo,
  runOurs,
  type Scenario,
  step,
  type WasmPlugins,
} from "../fixtures/adaptation/harness.js";
import { describeWithGo, goCommand } from "./go.js";

let driverBin: string;
let pluginBin: string;
let wasmModule: string;
let dir: string;

beforeAll(async () => {
  [driverBin, pluginBin, wasmModule] = await Promise.all([
    goCommand("adaptation-driver"),
    goCommand("adaptation-plugin"),
    goCommand("wasm-plugin", "wasm"),
  ]);
  // go build leaves a c-shared module without an execute bit; a runtime (and so nri-sim's --exec)
  // runs only executable plugin files
  await chmod(wasmModule, 0o755);
}, 600_000);

beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), "nri-wasm-conformance-"));
});

afterEach(async () => {
  await rm(dir, { recursive: true, force: true });
});

async function install(plugins: WasmPlugins) {
  return installWasmPlugins(dir, wasmModule, plugins);
}

const LOG_PREFIX = "wasm-plugin ";

async function both(scenario: Scenario, plugins: GoPlugin[], extra: Partial<RunOptions>) {
  const options = async (side: string): Promise<RunOptions> => {
    await mkdir(join(dir, side));
    return { pluginBin, plugins, dir: join(dir, side), logPrefix: LOG_PREFIX, ...extra };
  };
  const go = await runGo(driverBin, scenario, await options("go"));
  const ours = await runOurs(scenario, await options("ours"));
  return { go, ours };
}

function expectSame(go: RunResult, ours: RunResult): void {
  expect(ours.results.map(readable)).toEqual(go.results.map(readable));
  expect(readableSync(ours)).toEqual(readableSync(go));
  expect(ours.logs).toEqual(go.logs);
  expect(ours.order).toEqual(go.order);
}

const pod0 = PodSandbox.fromPartial({ id: "pod0", name: "pod0", uid: "uid-pod0", namespace: "default" });

function ctr(id: string, name: string, fields: Partial<Container> = {}): Container {
  return Container.fromPartial({
    id,
    podSandboxId: "pod0",
    name,
    state: ContainerState.CONTAINER_CREATED,
    env: ["PATH=/bin"],
    createdAt: 1_767_225_800_000_000_000n,
    ...fields,
  });
}

describeWithGo("WASM plugins: @nri-ts/adaptation and the Go adaptation host the same module alike", () => {
  test("one that adjusts, one that fails, one that traps, one that hangs, between process plugins", async () => {
    const dirs = await install({
      "10-adjuster": { name: "adjuster", role: "adjust" },
      "20-failer": { name: "failer", role: "fail", when: "refused" },
      "30-trapper": { name: "trapper", role: "trap", when: "crash" },
      "40-hang": { name: "hang", role: "spin", when: "stuck" },
    });
    const web = ctr("ctr0", "web");
    const running = ctr("ctr0", "web", {
      state: ContainerState.CONTAINER_RUNNING,
      startedAt: 1_767_225_801_000_000_000n,
    });
    const stopped = ctr("ctr0", "web", {
      state: ContainerState.CONTAINER_STOPPED,
      startedAt: 1_767_225_801_000_000_000n,
      finishedAt: 1_767_225_900_000_000_000n,
      exitCode: 137,
      statusReason: "OOMKilled",
    });
    const scenario: Scenario = {
      pods: [pod0],
      containers: [],
      steps: [
        step("RunPodSandbox", { pod: pod0 }),
        step("CreateContainer", { pod: pod0, container: web }),
        step("StartContainer", { pod: pod0, container: running }),
        step("UpdateContainer", {
          pod: pod0,
          container: running,
          linuxResources: { cpu: { shares: { value: 512n } } },
        }),
        step("CreateContainer", { pod: pod0, container: ctr("ctr1", "refused") }),
        step("CreateContainer", { pod: pod0, container: ctr("ctr2", "crash") }),
        step("CreateContainer", { pod: pod0, container: ctr("ctr3", "after-crash") }),
        step("CreateContainer", { pod: pod0, container: ctr("ctr4", "stuck") }),
        step("CreateContainer", { pod: pod0, container: ctr("ctr5", "after-hang") }),
        step("StopContainer", { pod: pod0, container: stopped }),
        step("RemoveContainer", { pod: pod0, container: stopped }),
      ],
    };
    const { go, ours } = await both(scenario, [{ index: "15", name: "annotator", modes: ["annotator"] }], {
      ...dirs,
      requestTimeoutMs: 1000,
    });
    expectSame(go, ours);

    // what both agree on is what the plugins did
    expect(ours.order).toEqual(["10-adjuster", "15-annotator", "20-failer", "30-trapper", "40-hang"]);
    const results = ours.results.map(readable);
    const created = results[1] as { error: string; response: CreateContainerResponse; request: CreateContainerRequest };
    expect(created.error).toBe("");
    expect(created.response.adjust?.annotations).toEqual({
      "wasm.nri-ts.dev/adjuster": "adjusted",
      "annotator.annotator": "done",
    });
    expect(created.response.adjust?.linux?.resources?.memory?.limit).toEqual({ value: 256n << 20n });
    expect(created.request.container?.env).toEqual(["PATH=/bin", "WASM_ADJUSTER=PATH", "ANNOTATED_BY_annotator=15"]);
    const updated = results[3] as { updates: Array<ContainerUpdate | null> };
    expect(updated.updates.map((u) => u?.linux?.resources?.cpu?.shares)).toEqual([{ value: 2048n }]);
    expect(results.map((r) => r.error).slice(4, 9)).toEqual([
      "wasm-plugin failer refuses container refused",
      expect.stringMatching(
        /^wasm error: unreachable\nwasm stack trace:\n\t\.runtime\.abort\(i32\) i32\n(\t\.[^\n]+\n)*\t\.main\.__plugin_\.CreateContainer\(i32\) i32\n(\t\.[^\n]+\n)*\t\.plugin_create_container\(i32,i32\) i64$/,
      ),
      "",
      "",
      "",
    ]);
    expect(ours.logs).toContainEqual({ level: "warn", message: "wasm-plugin failer: refusing refused" });
    expect(ours.logs).toContainEqual({ level: "error", message: "wasm-plugin trapper: crashing on crash" });
    expect(ours.logs).toContainEqual({
      level: "debug",
      message: "wasm-plugin adjuster: Synchronize with 1 pods and 0 containers",
    });
    expect(ours.logs).toContainEqual({
      level: "info",
      message: "wasm-plugin failer: CreateContainer web seeing env ANNOTATED_BY_annotator,PATH,WASM_ADJUSTER",
    });
    expect(ours.logs).toContainEqual({
      level: "info",
      message: "wasm-plugin trapper: StopContainer web exit code 137 reason OOMKilled",
    });
    // the hanging module was dropped at its timeout: it hears nothing after
    const hang = ours.logs.filter((line) => line.message.startsWith("wasm-plugin hang: ")).map((line) => line.message);
    expect(hang.at(-1)).toBe(
      "wasm-plugin hang: CreateContainer stuck seeing env ANNOTATED_BY_annotator,PATH,WASM_ADJUSTER",
    );
  }, 600_000);
});

describeWithGo("WASM plugins: where we differ from the Go adaptation on purpose", () => {
  test("a module that exits: both fail that request alike; Go then fails every later one, we go on without the plugin", async () => {
    const dirs = await install({
      "10-quitter": { name: "quitter", role: "exit", when: "quit" },
    });
    const scenario: Scenario = {
      pods: [pod0],
      containers: [],
      steps: [
        step("CreateContainer", { pod: pod0, container: ctr("ctr0", "quit") }),
        step("CreateContainer", { pod: pod0, container: ctr("ctr1", "web") }),
      ],
    };
    const { go, ours } = await both(scenario, [], dirs);
    expect(go.results.map((r) => r.error)).toEqual([
      "module closed with exit_code(3)",
      "module closed with exit_code(3)",
    ]);
    expect(ours.results.map((r) => r.error)).toEqual(["module closed with exit_code(3)", ""]);
  }, 600_000);
});

describeWithGo("WASM plugins under nri-sim: the Go module as --exec and from --plugin-dir", () => {
  const scenario = `
name: a WASM plugin
pods: [{name: web}]
containers: [{name: app, pod: web, env: {GREETING: hello}}]
steps:
  - run-pod: web
  - create: app
  - start: app
  - exit: {container: app, code: 137, reason: OOMKilled}
`;

  test("an executable that is a WASM module runs as a WASM plugin; the report says so and shows its adjustments and logs", async () => {
    const report = await simulate(scenario, {
      plugins: [
        {
          executable: wasmModule,
          index: "10",
          name: "adjuster",
          config: JSON.stringify({ name: "adjuster", role: "adjust" }),
        },
      ],
      clock: "virtual",
    });
    expect(report.plugins).toEqual([{ name: "10-adjuster", source: "wasm", path: wasmModule }]);
    expect(renderHeader(report)).toContain(`plugins: 10-adjuster (wasm ${wasmModule})`);
    const [, create, start, exit] = report.steps;
    expect(create?.ok).toBe(true);
    expect(create?.changes.map((c) => [c.text, c.owner])).toEqual(
      expect.arrayContaining([
        ["annotation wasm.nri-ts.dev/adjuster=adjusted", "10-adjuster"],
        ["env WASM_ADJUSTER=GREETING", "10-adjuster"],
      ]),
    );
    expect(create?.output).toEqual([
      { plugin: "10-adjuster", text: "wasm-plugin adjuster: CreateContainer app seeing env GREETING" },
    ]);
    expect(start?.output).toEqual([{ plugin: "10-adjuster", text: "wasm-plugin adjuster: StartContainer app" }]);
    expect(exit?.output).toEqual([
      { plugin: "10-adjuster", text: "wasm-plugin adjuster: StopContainer app exit code 137 reason OOMKilled" },
    ]);
    expect(report.setup.output).toEqual([
      { plugin: "10-adjuster", text: "wasm-plugin adjuster: Configure by nri-sim 0.1.0 as adjust" },
      { plugin: "10-adjuster", text: "debug: wasm-plugin adjuster: Synchronize with 0 pods and 0 containers" },
    ]);
  }, 120_000);

  test("from a plugin directory: a failing and a trapping module fail the steps they refuse, with their texts", async () => {
    const dirs = await install({
      "20-failer": { name: "failer", role: "fail", when: "app" },
      "30-trapper": { name: "trapper", role: "trap", when: "other" },
    });
    const report = await simulate(
      `
name: refusing WASM plugins
pods: [{name: web}]
containers: [{name: app, pod: web}, {name: other, pod: web}]
steps:
  - run-pod: web
  - create: app
  - create: other
`,
      { pluginDir: dirs.pluginDir, configDir: dirs.configDir, clock: "virtual" },
    );
    expect(report.plugins.map(({ name, source }) => ({ name, source }))).toEqual([
      { name: "20-failer", source: "wasm" },
      { name: "30-trapper", source: "wasm" },
    ]);
    expect(report.steps.map((s) => s.ok)).toEqual([true, false, false]);
    expect(report.steps[1]?.error).toContain("wasm-plugin failer refuses container app");
    expect(report.steps[2]?.error).toContain("wasm error: unreachable");
  }, 120_000);
});
