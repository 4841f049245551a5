import { chmod, writeFile } from "node:fs/promises";
import { join } from "node:path";
import {
  ConfigureResponse,
  CreateContainerResponse,
  type DeepPartial,
  Event,
  eventMask,
  LogRequest,
  LogRequest_Level,
} from "@nri-ts/api";
import { afterEach, beforeEach, expect, test } from "vitest";
import { PluginError } from "./plugin-error.js";
import { createRequest, TestRuntime } from "./testing/runtime.js";
import { type ExportBehaviour, type TestModuleOptions, testWasmModule } from "./testing/wasm-module.js";

/*
 * WebAssembly plugins in the plugin directory: loaded instead of launched,
 * then hosted like any other plugin (same order, relays, merge, failures).
 * The modules are assembled by test-wasm-module.ts; Go-built ones are
 * compared with the Go adaptation in packages/conformance.
 */

let runtime: TestRuntime;

/**
 * The request timeout of the tests with a module that spins; the others get
 * a generous one, as a call to a worker thread can take seconds on a busy
 * machine.
 */
const SPIN_TIMEOUT_MS = 2000;

beforeEach(async () => {
  runtime = await TestRuntime.create({ requestTimeoutMs: 60_000 });
});

afterEach(async () => {
  await runtime.close();
});

const subscribed = (...events: Event[]): ExportBehaviour => ({
  answer: ConfigureResponse.encode({ events: eventMask(...events) }).finish(),
});

const answering = (partial: DeepPartial<CreateContainerResponse>): ExportBehaviour => ({
  answer: CreateContainerResponse.encode(CreateContainerResponse.fromPartial(partial)).finish(),
});

/** Installs a module as `<pluginPath>/<fileName>`, executable as Go's discovery wants it. */
async function installWasm(fileName: string, options: TestModuleOptions): Promise<string> {
  const path = join(runtime.pluginPath, fileName);
  await writeFile(path, testWasmModule(options));
  await chmod(path, 0o755);
  return path;
}

/** A module subscribed to CreateContainer that answers it as `create` says. */
function creating(create: ExportBehaviour, extra: TestModuleOptions["exports"] = {}): TestModuleOptions {
  return {
    exports: { plugin_configure: subscribed(Event.CREATE_CONTAINER), plugin_create_container: create, ...extra },
  };
}

test("a WASM plugin is loaded, configured and synchronized, and takes its place in the order with the others", async () => {
  await installWasm("20-wasm", creating(answering({ adjust: { annotations: { "wasm.example.com": "20" } } })));
  await runtime.adaptation.start();
  const order: string[] = [];
  await runtime.attach({
    name: "first",
    index: "10",
    handlers: {
      configure: async () => ({ events: eventMask(Event.CREATE_CONTAINER) }),
      createContainer: async () => {
        order.push("10-first");
        return { adjust: { env: [{ key: "FIRST", value: "1" }] } };
      },
    },
  });
  expect(runtime.adaptation.plugins).toMatchObject([
    { fullName: "10-first", kind: "external" },
    { fullName: "20-wasm", kind: "wasm", events: eventMask(Event.CREATE_CONTAINER) },
  ]);
  expect(runtime.syncUpdates).toEqual([[], []]);
  const response = await runtime.adaptation.createContainer(createRequest("pod0", "ctr0"));
  expect(order).toEqual(["10-first"]);
  expect(response.adjust?.annotations).toEqual({ "wasm.example.com": "20" });
  expect(response.adjust?.env).toEqual([{ key: "FIRST", value: "1" }]);
  expect(runtime.log.find((line) => line.message.startsWith("found WASM plugin"))?.message).toBe(
    `found WASM plugin ${join(runtime.pluginPath, "20-wasm")}`,
  );
});

test("what the module logs reaches the adaptation's logger at the Go host's levels, naming the plugin", async () => {
  const log = (msg: string, level: LogRequest_Level) => LogRequest.encode({ msg, level }).finish();
  await installWasm(
    "10-chatty",
    creating({ log: [log("creating ctr0", LogRequest_Level.LEVEL_INFO), log("careful", LogRequest_Level.LEVEL_WARN)] }),
  );
  await runtime.adaptation.start();
  await runtime.adaptation.createContainer(createRequest("pod0", "ctr0"));
  expect(runtime.log.filter((line) => line.fields?.pluginLog)).toEqual([
    { level: "info", message: "creating ctr0", fields: { plugin: "10-chatty", pluginLog: true } },
    { level: "warn", message: "careful", fields: { plugin: "10-chatty", pluginLog: true } },
  ]);
});

test("the module's error fails the request with its text, as a plugin error does; the plugin stays", async () => {
  await installWasm("10-refuser", creating({ error: "no room for ctr0" }));
  await runtime.adaptation.start();
  const error = await runtime.adaptation.createContainer(createRequest("pod0", "ctr0")).catch((e: unknown) => e);
  expect(error).toBeInstanceOf(PluginError);
  expect(error).toMatchObject({
    message: "no room for ctr0",
    plugin: "10-refuser",
    operation: "CreateContainer",
    fatal: false,
  });
  expect(runtime.pluginNames).toEqual(["10-refuser"]);
});

test("a trap fails the request as a plugin error does; the plugin stays and is asked again", async () => {
  await installWasm("10-trapper", creating("trap"));
  await runtime.adaptation.start();
  for (const id of ["ctr0", "ctr1"]) {
    await expect(runtime.adaptation.createContainer(createRequest("pod0", id))).rejects.toThrow(
      "wasm error: unreachable\nwasm stack trace:\n\t.helper.crash()\n\t.plugin_create_container(i32,i32) i64",
    );
  }
  expect(runtime.pluginNames).toEqual(["10-trapper"]);
});

test("a module that runs past the request timeout is closed and the request goes on without it", async () => {
  await installWasm("10-spinner", creating("spin"));
  await installWasm("20-after", creating(answering({ adjust: { annotations: { after: "yes" } } })));
  await runtime.adaptation.start();
  runtime.adaptation.requestTimeoutMs = SPIN_TIMEOUT_MS;
  const response = await runtime.adaptation.createContainer(createRequest("pod0", "ctr0"));
  expect(response.adjust?.annotations).toEqual({ after: "yes" });
  expect(runtime.pluginNames).toEqual(["20-after"]);
  expect(runtime.log.filter((line) => line.level === "error").map((line) => line.message)).toEqual([
    "closing plugin 10-spinner, failed to handle CreateContainer request: module closed with context deadline exceeded",
  ]);
});

test("a module that exits fails that request with wazero's text; it is gone, so later requests go on without it", async () => {
  await installWasm("10-quitter", creating("exit"));
  await runtime.adaptation.start();
  await expect(runtime.adaptation.createContainer(createRequest("pod0", "ctr0"))).rejects.toThrow(
    "module closed with exit_code(7)",
  );
  expect(runtime.pluginNames).toEqual([]);
  await expect(runtime.adaptation.createContainer(createRequest("pod0", "ctr1"))).resolves.toMatchObject({
    update: [],
  });
});

test("a module that does not load is left out with a warning naming the file; the others start", async () => {
  const broken = await installWasm("10-broken", { ...creating(answering({})), omit: ["plugin_stop_container"] });
  const path = join(runtime.pluginPath, "20-truncated");
  await writeFile(path, testWasmModule().subarray(0, 40));
  await chmod(path, 0o755);
  await installWasm("30-fine", creating(answering({})));
  await runtime.adaptation.start();
  expect(runtime.pluginNames).toEqual(["30-fine"]);
  const warnings = runtime.log.filter((line) => line.level === "warn").map((line) => line.message);
  expect(warnings[0]).toBe(
    `failed to initialize pre-installed NRI plugin "broken": load WASM plugin ${broken}: plugin_stop_container is not exported`,
  );
  expect(warnings[1]).toMatch(
    new RegExp(
      `^failed to initialize pre-installed NRI plugin "truncated": load WASM plugin ${path}: WebAssembly\\.compile\\(\\): `,
    ),
  );
});

test("a module whose Configure fails is not started", async () => {
  await installWasm("10-unhappy", { exports: { plugin_configure: { error: "bad config" } } });
  await runtime.adaptation.start();
  expect(runtime.pluginNames).toEqual([]);
  expect(runtime.log.filter((line) => line.level === "warn").map((line) => line.message)).toEqual([
    `failed to start pre-installed NRI plugin "unhappy": failed to configure plugin: bad config`,
  ]);
});

const policy = (failRequest: boolean, keepConnected: boolean): ExportBehaviour => ({
  answer: ConfigureResponse.encode({
    events: eventMask(Event.CREATE_CONTAINER),
    failurePolicy: { failRequest, keepConnected },
  }).finish(),
});

test("a WASM plugin's failure policy applies as to any plugin: fail_request fails the request that timed out", async () => {
  await installWasm("10-strict", {
    exports: { plugin_configure: policy(true, false), plugin_create_container: "spin" },
  });
  await runtime.adaptation.start();
  runtime.adaptation.requestTimeoutMs = SPIN_TIMEOUT_MS;
  expect(runtime.adaptation.plugins[0]?.failurePolicy).toEqual({ failRequest: true, keepConnected: false });
  await expect(runtime.adaptation.createContainer(createRequest("pod0", "ctr0"))).rejects.toThrow(
    "plugin 10-strict failed to handle CreateContainer request: module closed with context deadline exceeded",
  );
  expect(runtime.pluginNames).toEqual([]);
});

test("keep_connected cannot keep a WASM plugin whose module timed out: the module is gone, so is the plugin", async () => {
  await installWasm("10-kept", { exports: { plugin_configure: policy(false, true), plugin_create_container: "spin" } });
  await runtime.adaptation.start();
  runtime.adaptation.requestTimeoutMs = SPIN_TIMEOUT_MS;
  await expect(runtime.adaptation.createContainer(createRequest("pod0", "ctr0"))).resolves.toMatchObject({
    update: [],
  });
  expect(runtime.pluginNames).toEqual([]);
});

test("the runtime's own deadline ends a WASM call: the runtime gets wazero's text, the plugin is gone with its module", async () => {
  await installWasm("10-slow", creating("spin"));
  await runtime.adaptation.start();
  await expect(
    runtime.adaptation.createContainer(createRequest("pod0", "ctr0"), { signal: AbortSignal.timeout(100) }),
  ).rejects.toThrow("module closed with context deadline exceeded");
  expect(runtime.pluginNames).toEqual([]);
});
