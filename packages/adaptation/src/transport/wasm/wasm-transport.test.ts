import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import {
  ConfigureRequest,
  ConfigureResponse,
  CreateContainerResponse,
  Event,
  eventMask,
  LogRequest,
  LogRequest_Level,
  PluginDefinition,
} from "@nri-ts/api";
import fc from "fast-check";
import { Status } from "nice-grpc-common";
import { afterEach, beforeEach, describe, expect, test } from "vitest";
import { CallFailure, type PluginMethod, type PluginRequest } from "../plugin-transport.js";
import { type ExportBehaviour, type TestModuleOptions, testWasmModule } from "../../testing/wasm-module.js";
import { exportName, LOG_LIMIT, WasmLoadError, type WasmLogLevel, WasmTransport } from "./wasm-transport.js";
import { PLUGIN_TEXT_LIMIT } from "@nri-ts/common";

let dir: string;
const loaded: WasmTransport[] = [];

beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), "nri-wasm-transport-"));
});

afterEach(async () => {
  for (const transport of loaded.splice(0)) {
    transport.close();
    await transport.ended;
  }
  await rm(dir, { recursive: true, force: true });
});

let files = 0;

async function moduleFile(options: TestModuleOptions | Uint8Array): Promise<string> {
  const path = join(dir, `${String(files++).padStart(2, "0")}-test`);
  await writeFile(path, options instanceof Uint8Array ? options : testWasmModule(options), { mode: 0o755 });
  return path;
}

async function load(options: TestModuleOptions, logs: Array<[WasmLogLevel, string]> = []): Promise<WasmTransport> {
  const transport = await WasmTransport.load(await moduleFile(options), {
    timeoutMs: 5000,
    onLog: (level, message) => logs.push([level, message]),
  });
  loaded.push(transport);
  return transport;
}

async function loadFailure(
  options: TestModuleOptions | Uint8Array,
  timeoutMs = 5000,
): Promise<{ path: string; error: WasmLoadError }> {
  const path = await moduleFile(options);
  const error = await WasmTransport.load(path, { timeoutMs, onLog: () => {} }).then(
    (transport) => {
      loaded.push(transport);
      throw new Error("loaded");
    },
    (error: unknown) => error as WasmLoadError,
  );
  expect(error).toBeInstanceOf(WasmLoadError);
  return { path, error };
}

const soon = () => Date.now() + 5000;

/** An empty request of a method. */
function request<K extends PluginMethod>(method: K): PluginRequest<K> {
  const type = PluginDefinition.methods[method].requestType as unknown as {
    fromPartial(object: object): PluginRequest<K>;
  };
  return type.fromPartial({});
}

const answering = (method: string, answer: Uint8Array): Partial<Record<string, ExportBehaviour>> => ({
  [method]: { answer },
});

async function failure(promise: Promise<unknown>): Promise<CallFailure> {
  const error = await promise.then(
    () => undefined,
    (error: unknown) => error,
  );
  expect(error).toBeInstanceOf(CallFailure);
  return error as CallFailure;
}

describe("calls", () => {
  test("an export's answer comes back as the decoded response", async () => {
    const events = eventMask(Event.CREATE_CONTAINER, Event.STOP_CONTAINER);
    const transport = await load({
      exports: answering("plugin_configure", ConfigureResponse.encode({ events }).finish()),
    });
    await expect(
      transport.call("configure", ConfigureRequest.fromPartial({ runtimeName: "rt" }), soon()),
    ).resolves.toEqual(ConfigureResponse.fromPartial({ events }));
  });

  test("the request is in the module's memory, where its malloc put it, and the module's logs arrive before its answer", async () => {
    const logs: Array<[WasmLogLevel, string]> = [];
    // a ConfigureRequest with only its config set has the bytes of a LogRequest with that message
    const transport = await load(
      { exports: { plugin_configure: { logRequest: true, answer: new Uint8Array() } } },
      logs,
    );
    const configured = await transport.call(
      "configure",
      ConfigureRequest.fromPartial({ config: "request reached the module" }),
      soon(),
    );
    expect(configured).toEqual(ConfigureResponse.fromPartial({}));
    expect(logs).toEqual([["debug", "request reached the module"]]);
  });

  test("log levels map as the Go host maps them; a message that does not decode is reported as such", async () => {
    const logs: Array<[WasmLogLevel, string]> = [];
    const message = (msg: string, level: LogRequest_Level) => LogRequest.encode({ msg, level }).finish();
    const transport = await load(
      {
        exports: {
          plugin_run_pod_sandbox: {
            log: [
              message("an info", LogRequest_Level.LEVEL_INFO),
              message("a warning", LogRequest_Level.LEVEL_WARN),
              message("an error", LogRequest_Level.LEVEL_ERROR),
              message("a debug line", LogRequest_Level.LEVEL_DEBUG),
              message("unspecified", LogRequest_Level.LEVEL_UNSPECIFIED),
              message("out of range", 9 as LogRequest_Level),
              new Uint8Array([0x0a, 0x05, 0x61]),
            ],
          },
        },
      },
      logs,
    );
    await transport.call("runPodSandbox", request("runPodSandbox"), soon());
    expect(logs).toEqual([
      ["info", "an info"],
      ["warn", "a warning"],
      ["error", "an error"],
      ["debug", "a debug line"],
      ["debug", "unspecified"],
      ["debug", "out of range"],
      [
        "warn",
        expect.stringMatching(
          /^WASM plugin log message does not decode: cannot decode nri\.pkg\.api\.v1alpha1\.LogRequest/,
        ),
      ],
    ]);
  });

  describe("a module's log is bounded per request", () => {
    const message = (msg: string) => LogRequest.encode({ msg, level: LogRequest_Level.LEVEL_INFO }).finish();
    const overLimit = (messages: number, bytes: number, during: string) =>
      `WASM plugin log over its limit of ${LOG_LIMIT.messages} messages or ${LOG_LIMIT.bytes} bytes per request: ${messages} messages (${bytes} bytes) of ${during} dropped`;

    test("beyond the limit, messages are dropped and counted, and the count is said once", async () => {
      const logs: Array<[WasmLogLevel, string]> = [];
      const line = message("again");
      const transport = await load({ exports: { plugin_create_container: { logLoop: line, times: 5000 } } }, logs);
      await transport.call("createContainer", request("createContainer"), soon());
      expect(logs.slice(0, LOG_LIMIT.messages)).toEqual(Array(LOG_LIMIT.messages).fill(["info", "again"]));
      expect(logs.slice(LOG_LIMIT.messages)).toEqual([
        ["warn", overLimit(4000, 4000 * line.length, "CreateContainer")],
      ]);
      // the next request has a limit of its own
      logs.length = 0;
      await transport.call("createContainer", request("createContainer"), soon());
      expect(logs).toHaveLength(LOG_LIMIT.messages + 1);
    });

    test("a module logging in a loop until its deadline passes on the limit, and says how many it dropped", async () => {
      const logs: Array<[WasmLogLevel, string]> = [];
      const transport = await load({ exports: { plugin_create_container: { logLoop: message("flood") } } }, logs);
      // long enough for 1,000 messages and more on a busy machine
      const error = await failure(transport.call("createContainer", request("createContainer"), Date.now() + 2000));
      expect(error.local).toBe("deadline");
      expect(logs.filter(([level]) => level === "info")).toHaveLength(LOG_LIMIT.messages);
      const notices = logs.filter(([level]) => level === "warn");
      expect(notices).toEqual([
        [
          "warn",
          expect.stringMatching(
            /^WASM plugin log over its limit .*: \d+ messages \(\d+ bytes\) of CreateContainer dropped$/,
          ),
        ],
      ]);
    });

    test("a message over the request's bytes is dropped; a long one is cut to its head", async () => {
      const logs: Array<[WasmLogLevel, string]> = [];
      const huge = message("h".repeat(LOG_LIMIT.bytes));
      const long = message("l".repeat(PLUGIN_TEXT_LIMIT + 10));
      const transport = await load({ exports: { plugin_create_container: { log: [huge, long] } } }, logs);
      await transport.call("createContainer", request("createContainer"), soon());
      expect(logs).toEqual([
        ["info", `${"l".repeat(PLUGIN_TEXT_LIMIT)}… [10 more bytes]`],
        ["warn", overLimit(1, huge.length, "CreateContainer")],
      ]);
    });
  });

  test("an empty answer (pointer and size 0) is the empty message", async () => {
    const transport = await load({});
    await expect(transport.call("createContainer", request("createContainer"), soon())).resolves.toEqual(
      CreateContainerResponse.fromPartial({}),
    );
  });

  test("an error answer is the plugin's error, with its text as is", async () => {
    const transport = await load({ exports: { plugin_create_container: { error: "container refused: no quota" } } });
    const error = await failure(transport.call("createContainer", request("createContainer"), soon()));
    expect(error).toMatchObject({ message: "container refused: no quota", code: Status.UNKNOWN, local: undefined });
    expect(transport.closed).toBe(false);
  });

  test("an error text too long for a string (540 MB) fails the request with its head, marked; the runtime and the module stay", async () => {
    const size = 540_000_000;
    const transport = await load({
      exports: { plugin_create_container: { errorBytes: size }, plugin_stop_container: { error: "short" } },
    });
    const error = await failure(transport.call("createContainer", request("createContainer"), soon()));
    expect(error.message).toBe(`${"\0".repeat(PLUGIN_TEXT_LIMIT)}… [${size - PLUGIN_TEXT_LIMIT} more bytes]`);
    expect(error).toMatchObject({ code: Status.UNKNOWN, local: undefined });
    expect(error.details).toBe(error.message);
    expect(transport.closed).toBe(false);
    expect((await failure(transport.call("stopContainer", request("stopContainer"), soon()))).message).toBe("short");
  });

  test("a trap is the plugin's error, in wazero's words with the module's stack; the module stays", async () => {
    const transport = await load({
      exports: { plugin_create_container: "trap", plugin_stop_container: { answer: new Uint8Array() } },
    });
    const error = await failure(transport.call("createContainer", request("createContainer"), soon()));
    expect(error.message).toBe(
      "wasm error: unreachable\nwasm stack trace:\n\t.helper.crash()\n\t.plugin_create_container(i32,i32) i64",
    );
    expect(error.local).toBeUndefined();
    expect(transport.closed).toBe(false);
    await expect(transport.call("stopContainer", request("stopContainer"), soon())).resolves.toMatchObject({
      update: [],
    });
  });

  test("without a name section, frames are numbered", async () => {
    const transport = await load({ exports: { plugin_create_container: "trap" }, anonymous: true });
    const error = await failure(transport.call("createContainer", request("createContainer"), soon()));
    expect(error.message).toBe("wasm error: unreachable\nwasm stack trace:\n\t.$2()\n\t.$15(i32,i32) i64");
  });

  test("a module that does not return by the deadline is ended: a timeout, and the module is gone", async () => {
    const transport = await load({ exports: { plugin_create_container: "spin" } });
    const started = Date.now();
    const error = await failure(transport.call("createContainer", request("createContainer"), Date.now() + 200));
    expect(Date.now() - started).toBeGreaterThanOrEqual(190);
    expect(error).toMatchObject({
      message: "module closed with context deadline exceeded",
      code: Status.DEADLINE_EXCEEDED,
      local: "deadline",
    });
    expect(transport.closed).toBe(true);
    await transport.ended;
    const again = await failure(transport.call("createContainer", request("createContainer"), soon()));
    expect(again).toMatchObject({ message: "module closed with context deadline exceeded", local: "deadline" });
  });

  test("the runtime giving up ends the module: the call fails as aborted, in wazero's words; later calls find it closed", async () => {
    const transport = await load({ exports: { plugin_create_container: "spin" } });
    const runtime = new AbortController();
    const call = failure(transport.call("createContainer", request("createContainer"), soon(), runtime.signal));
    setTimeout(() => runtime.abort(), 100);
    expect(await call).toMatchObject({
      message: "module closed with context canceled",
      code: Status.CANCELLED,
      local: "aborted",
    });
    expect(transport.closed).toBe(true);
    expect(await failure(transport.call("createContainer", request("createContainer"), soon()))).toMatchObject({
      message: "module closed with context canceled",
      local: "closed",
    });
  });

  test("a runtime deadline that passed already ends the module before the call", async () => {
    const transport = await load({});
    const expired = AbortSignal.timeout(0);
    await new Promise((resolve) => setTimeout(resolve, 5));
    expect(await failure(transport.call("createContainer", request("createContainer"), soon(), expired))).toMatchObject(
      {
        message: "module closed with context deadline exceeded",
        code: Status.DEADLINE_EXCEEDED,
        local: "aborted",
      },
    );
    expect(transport.closed).toBe(true);
  });

  test("an answer before the runtime gives up is the answer", async () => {
    const transport = await load({});
    const runtime = new AbortController();
    await expect(
      transport.call("createContainer", request("createContainer"), soon(), runtime.signal),
    ).resolves.toBeDefined();
    runtime.abort();
    expect(transport.closed).toBe(false);
  });

  test("a module that exits fails that call as its error; it is gone, later calls fail at once", async () => {
    const transport = await load({ exports: { plugin_create_container: "exit" } });
    const error = await failure(transport.call("createContainer", request("createContainer"), soon()));
    expect(error).toMatchObject({ message: "module closed with exit_code(7)", code: Status.UNKNOWN, local: undefined });
    expect(transport.closed).toBe(true);
    const again = await failure(transport.call("runPodSandbox", request("runPodSandbox"), soon()));
    expect(again).toMatchObject({ message: "module closed with exit_code(7)", local: "closed" });
  });

  test("an answer outside the module's memory or one that does not decode breaks the protocol", async () => {
    const transport = await load({
      exports: {
        plugin_create_container: "bad-pointer",
        plugin_stop_container: { answer: new Uint8Array([0x0a, 0x7f]) },
      },
    });
    expect(await failure(transport.call("createContainer", request("createContainer"), soon()))).toMatchObject({
      message: "Memory.Read(2147418112, 16) out of range of memory size 65536",
      local: "protocol",
    });
    expect(await failure(transport.call("stopContainer", request("stopContainer"), soon()))).toMatchObject({
      message: expect.stringMatching(/^cannot decode nri\.pkg\.api\.v1alpha1\.StopContainerResponse from 2 bytes/),
      local: "protocol",
    });
  });

  test("whatever bytes a module answers with, the call resolves to a message or fails as a protocol error", async () => {
    await fc.assert(
      fc.asyncProperty(fc.uint8Array({ maxLength: 64 }), async (answer) => {
        const transport = await load({ exports: { plugin_create_container: { answer } } });
        try {
          const response = await transport.call("createContainer", request("createContainer"), soon());
          expect(CreateContainerResponse.encode(response as CreateContainerResponse).finish()).toBeInstanceOf(
            Uint8Array,
          );
        } catch (error) {
          expect(error).toBeInstanceOf(CallFailure);
          expect((error as CallFailure).local).toBe("protocol");
        }
      }),
      { numRuns: 15 },
    );
  });

  test("close ends the module; calls fail as on a closed module", async () => {
    const transport = await load({});
    transport.close();
    expect(transport.closed).toBe(true);
    await transport.ended;
    expect(await failure(transport.call("createContainer", request("createContainer"), soon()))).toMatchObject({
      message: "module closed with exit_code(0)",
      local: "closed",
    });
  });
});

describe("loading", () => {
  test("exports are the methods in snake case", () => {
    expect(exportName("validateContainerAdjustment")).toBe("plugin_validate_container_adjustment");
    expect(exportName("postUpdatePodSandbox")).toBe("plugin_post_update_pod_sandbox");
    expect(exportName("configure")).toBe("plugin_configure");
  });

  test("a file that is no module names the file and what is wrong", async () => {
    const bytes = Uint8Array.from([0x00, 0x61, 0x73, 0x6d, 0x01, 0x00, 0x00, 0x00, 0x01, 0xff]);
    const { path, error } = await loadFailure(bytes);
    expect(error.message).toMatch(new RegExp(`^load WASM plugin ${path}: WebAssembly\\.compile\\(\\): `));
    expect(error.path).toBe(path);
  });

  test("a file that cannot be read", async () => {
    const path = join(dir, "10-missing");
    await expect(WasmTransport.load(path, { timeoutMs: 1000, onLog: () => {} })).rejects.toThrow(
      `load WASM plugin ${path}: ENOENT: no such file or directory, open '${path}'`,
    );
  });

  test.each([
    ["no plugin_api_version", { omit: ["plugin_api_version"] }, "plugin_api_version is not exported"],
    ["API version 2", { apiVersion: 2n }, "API version mismatch, host: 1, plugin: 2"],
    ["API version -1", { apiVersion: -1n }, "API version mismatch, host: 1, plugin: 18446744073709551615"],
    ["two exports missing", { omit: ["plugin_shutdown", "plugin_stop_container"] }, "plugin_shutdown is not exported"],
    [
      "the last plugin export missing",
      { omit: ["plugin_validate_container_adjustment"] },
      "plugin_validate_container_adjustment is not exported",
    ],
    ["no malloc", { omit: ["malloc"] }, "malloc is not exported"],
    ["no free", { omit: ["free"] }, "free is not exported"],
    ["_initialize exits with 3", { initialize: "exit" }, "unexpected exit_code: 3"],
    ["_initialize exits with 0", { initialize: "exit0" }, "module closed with exit_code(0)"],
    [
      "_initialize traps",
      { initialize: "trap" },
      "module[] function[_initialize] failed: wasm error: unreachable\nwasm stack trace:\n\t.helper.crash()\n\t._initialize()",
    ],
    ["no memory", { omit: ["memory"] }, `"instance.exports.memory" property must be a WebAssembly.Memory object`],
  ] satisfies Array<[string, TestModuleOptions, string]>)("%s: the Go host's words", async (_, options, reason) => {
    const { path, error } = await loadFailure(options);
    expect(error.message).toBe(`load WASM plugin ${path}: ${reason}`);
  });

  test("a module that does not finish initializing is ended at the timeout", async () => {
    const { path, error } = await loadFailure({ initialize: "spin" }, 300);
    expect(error.message).toBe(`load WASM plugin ${path}: the module did not initialize within 300 ms`);
  });
});
