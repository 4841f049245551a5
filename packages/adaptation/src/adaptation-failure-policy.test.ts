import { Event, eventMask, type FailurePolicy, type RunPodSandboxRequest } from "@nri-ts/api";
import { encodeFrame, encodeResponseFrame, MessageType } from "@nri-ts/ttrpc";
import { ServerError, Status } from "nice-grpc-common";
import { afterEach, beforeEach, describe, expect, test } from "vitest";
import { PluginError } from "./plugin-error.js";
import type { PluginHandlers, ScriptedPlugin } from "./testing/scripted-plugin.js";
import { createRequest, pod, TestRuntime } from "./testing/runtime.js";

/*
 * Failure policies (NRI v0.12.4 and v0.12.5), as Go's TestHandleRequestError,
 * TestPluginFailurePolicy and TestPluginFailureScenarios state them, with
 * real connections: what the runtime gets back, who else is called, and who
 * stays registered.
 */

let runtime: TestRuntime;

beforeEach(async () => {
  runtime = await TestRuntime.create({ requestTimeoutMs: 1000 });
  await runtime.adaptation.start();
});

afterEach(async () => {
  await runtime.close();
});

const pod0 = pod("pod0");
const runPod: RunPodSandboxRequest = { pod: pod0 };
const forever = () => new Promise<never>(() => {});
const runs = eventMask(Event.RUN_POD_SANDBOX);
const creates = eventMask(Event.CREATE_CONTAINER);
const validates = eventMask(Event.VALIDATE_CONTAINER_ADJUSTMENT);

/** The stream id of a plugin's first relayed request (after Configure 1 and Synchronize 3). */
const FIRST_RELAY_STREAM = 5;

const POLICIES: ReadonlyArray<[string, FailurePolicy | undefined]> = [
  ["unset", undefined],
  ["drop+proceed {}", { failRequest: false, keepConnected: false }],
  ["drop+fail", { failRequest: true, keepConnected: false }],
  ["keep+proceed", { failRequest: false, keepConnected: true }],
  ["keep+fail", { failRequest: true, keepConnected: true }],
];

/** How a plugin fails RunPodSandbox, and Go's text for it. */
const FAULTS: ReadonlyArray<[string, string, (self: () => ScriptedPlugin) => PluginHandlers]> = [
  [
    "lost connection",
    "ttrpc: closed",
    (self) => ({
      runPodSandbox: async () => {
        self().close();
        return forever();
      },
    }),
  ],
  [
    "protocol error",
    'unexpected "data" message received: protocol error',
    (self) => ({
      runPodSandbox: async () => {
        self().pluginConnection.write(encodeFrame(FIRST_RELAY_STREAM, MessageType.Data, 0, Buffer.from("x")));
        return forever();
      },
    }),
  ],
  ["timeout", "context deadline exceeded", () => ({ runPodSandbox: forever })],
];

/** A plugin that fails RunPodSandbox as `fault` says, with `policy`. */
async function attachFailing(
  name: string,
  policy: FailurePolicy | undefined,
  handlers: (self: () => ScriptedPlugin) => PluginHandlers,
  events = runs,
): Promise<ScriptedPlugin> {
  let plugin: ScriptedPlugin | undefined;
  plugin = await runtime.attach({
    index: "00",
    name,
    handlers: { configure: async () => ({ events, failurePolicy: policy }), ...handlers(() => plugin!) },
  });
  return plugin;
}

async function attachNext(): Promise<ScriptedPlugin> {
  return runtime.attach({ index: "10", name: "next", events: runs | creates });
}

describe("a failure (timeout, lost connection, protocol error) under each policy", () => {
  for (const [faultName, cause, handlers] of FAULTS) {
    for (const [policyName, policy] of POLICIES) {
      const fails = policy?.failRequest ?? false;
      const kept = faultName === "timeout" && (policy?.keepConnected ?? false);
      test(`${faultName}, ${policyName}: ${fails ? "fails the request" : "proceeds"}, plugin ${kept ? "kept" : "dropped"}`, async () => {
        await attachFailing("test", policy, handlers);
        const next = await attachNext();
        const outcome = await runtime.adaptation.runPodSandbox(runPod).then(
          () => undefined,
          (error: unknown) => error,
        );
        if (fails) {
          expect(outcome).toBeInstanceOf(PluginError);
          expect((outcome as PluginError).message).toBe(
            `plugin 00-test failed to handle RunPodSandbox request: ${cause}`,
          );
          expect((outcome as PluginError).fatal).toBe(true);
          expect(next.methods).not.toContain("RunPodSandbox");
        } else {
          expect(outcome).toBeUndefined();
          expect(next.methods).toContain("RunPodSandbox");
        }
        expect(runtime.pluginNames).toEqual(kept ? ["00-test", "10-next"] : ["10-next"]);
      });
    }
  }
});

describe("errors that are not the plugin's failure go back unchanged, and the plugin stays", () => {
  for (const [policyName, policy] of POLICIES) {
    test(`the plugin's own error, ${policyName}`, async () => {
      await attachFailing("test", policy, () => ({
        runPodSandbox: async () => {
          throw new ServerError(Status.NOT_FOUND, "no such pod");
        },
      }));
      const error = await runtime.adaptation.runPodSandbox(runPod).catch((e: unknown) => e as PluginError);
      expect([error?.message, error?.fatal]).toEqual(["rpc error: code = NotFound desc = no such pod", false]);
      expect(runtime.pluginNames).toEqual(["00-test"]);
    });

    test(`the plugin answering DeadlineExceeded itself, ${policyName}`, async () => {
      await attachFailing("test", policy, () => ({
        runPodSandbox: async () => {
          throw new ServerError(Status.DEADLINE_EXCEEDED, "context deadline exceeded");
        },
      }));
      const next = await attachNext();
      await expect(runtime.adaptation.runPodSandbox(runPod)).rejects.toThrow(
        "rpc error: code = DeadlineExceeded desc = context deadline exceeded",
      );
      expect(next.methods).not.toContain("RunPodSandbox");
      expect(runtime.pluginNames).toEqual(["00-test", "10-next"]);
    });

    test(`the runtime's deadline passing during the call, ${policyName}`, async () => {
      await attachFailing("test", policy, () => ({ runPodSandbox: forever }));
      const next = await attachNext();
      const error = await runtime.adaptation
        .runPodSandbox(runPod, { signal: AbortSignal.timeout(100) })
        .catch((e: unknown) => e as PluginError);
      expect(error).toBeInstanceOf(PluginError);
      expect([error!.message, error!.local, error!.fatal]).toEqual(["context deadline exceeded", "aborted", false]);
      expect(next.methods).not.toContain("RunPodSandbox");
      expect(runtime.pluginNames).toEqual(["00-test", "10-next"]);
    });
  }

  test("the runtime cancelling: context canceled, and a plugin already over its timeout is not taken for it (scenario A)", async () => {
    await runtime.attach({ index: "00", name: "slow", events: runs, handlers: { runPodSandbox: forever } });
    const controller = new AbortController();
    await runtime.attach({
      index: "10",
      name: "blocked",
      events: runs,
      handlers: {
        runPodSandbox: async () => {
          controller.abort();
          return forever();
        },
      },
    });
    await expect(runtime.adaptation.runPodSandbox(runPod, { signal: controller.signal })).rejects.toThrow(
      /^context canceled$/,
    );
    expect(runtime.pluginNames).toEqual(["10-blocked"]);
  });

  test("a runtime signal aborted before the request: the first plugin called gets nothing, the request fails", async () => {
    const first = await runtime.attach({ index: "00", name: "first", events: runs });
    const signal = AbortSignal.abort();
    await expect(runtime.adaptation.runPodSandbox(runPod, { signal })).rejects.toThrow(/^context canceled$/);
    expect(first.methods).not.toContain("RunPodSandbox");
    expect(runtime.pluginNames).toEqual(["00-first"]);
  });
});

describe("plugins closed before their turn are skipped (v0.12.5)", () => {
  test("a plugin with fail_request that disconnected while idle does not fail the next request", async () => {
    const gone = await attachFailing("gone", { failRequest: true, keepConnected: true }, () => ({}));
    const next = await attachNext();
    await runtime.adaptation.runPodSandbox(runPod);
    gone.close();
    await runtime.waitFor(() => runtime.log.some((line) => line.message === "connection to plugin 00-gone closed"));
    await runtime.adaptation.runPodSandbox({ pod: pod("pod1") });
    expect(gone.requests<RunPodSandboxRequest>("RunPodSandbox").map((r) => r.pod?.id)).toEqual(["pod0"]);
    expect(next.requests<RunPodSandboxRequest>("RunPodSandbox").map((r) => r.pod?.id)).toEqual(["pod0", "pod1"]);
    expect(runtime.pluginNames).toEqual(["10-next"]);
  });

  test("a plugin that disconnects while an earlier one handles the request is skipped", async () => {
    let gone: ScriptedPlugin | undefined;
    await runtime.attach({
      index: "00",
      name: "slow",
      events: runs,
      handlers: {
        runPodSandbox: async () => {
          gone!.close();
          await new Promise((resolve) => setTimeout(resolve, 50));
          return {};
        },
      },
    });
    gone = await runtime.attach({
      index: "10",
      name: "gone",
      handlers: {
        configure: async () => ({ events: runs, failurePolicy: { failRequest: true, keepConnected: true } }),
      },
    });
    await runtime.adaptation.runPodSandbox(runPod);
    expect(gone.methods).not.toContain("RunPodSandbox");
    expect(runtime.pluginNames).toEqual(["00-slow"]);
  });

  test("a validator that disconnected while idle does not fail the next creation", async () => {
    const validator = await runtime.attach({ index: "00", name: "validator", events: validates });
    await runtime.adaptation.createContainer(createRequest("pod0", "ctr0"));
    validator.close();
    await validator.closed;
    await runtime.waitFor(() =>
      runtime.log.some((line) => line.message === "connection to plugin 00-validator closed"),
    );
    await runtime.adaptation.createContainer(createRequest("pod0", "ctr1"));
    expect(validator.requests("ValidateContainerAdjustment")).toHaveLength(1);
  });
});

describe("validators", () => {
  test("keep_connected keeps a validator that timed out; the creation fails with Go's text", async () => {
    let hang = true;
    const validator = await runtime.attach({
      index: "00",
      name: "validator",
      handlers: {
        configure: async () => ({ events: validates, failurePolicy: { failRequest: false, keepConnected: true } }),
        validateContainerAdjustment: async () => (hang ? forever() : {}),
      },
    });
    await expect(runtime.adaptation.createContainer(createRequest("pod0", "ctr0"))).rejects.toThrow(
      /^validator plugin 00-validator failed: context deadline exceeded$/,
    );
    expect(runtime.pluginNames).toEqual(["00-validator"]);
    hang = false;
    await runtime.adaptation.createContainer(createRequest("pod0", "ctr1"));
    expect(validator.requests("ValidateContainerAdjustment")).toHaveLength(2);
  });

  test("a validator that timed out without a policy fails the creation and is dropped", async () => {
    await runtime.attach({
      index: "00",
      name: "validator",
      events: validates,
      handlers: { validateContainerAdjustment: forever },
    });
    await expect(runtime.adaptation.createContainer(createRequest("pod0", "ctr0"))).rejects.toThrow(
      "validator plugin 00-validator failed: context deadline exceeded",
    );
    expect(runtime.pluginNames).toEqual([]);
  });

  test("with the runtime's signal aborted, a validator's failure fails the creation and the validator stays", async () => {
    await runtime.attach({
      index: "00",
      name: "validator",
      events: validates,
      handlers: { validateContainerAdjustment: forever },
    });
    await expect(
      runtime.adaptation.createContainer(createRequest("pod0", "ctr0"), { signal: AbortSignal.timeout(100) }),
    ).rejects.toThrow(/^validator plugin 00-validator failed: context deadline exceeded$/);
    expect(runtime.pluginNames).toEqual(["00-validator"]);
  });
});

describe("the required plugins check (default validator)", () => {
  async function withRequired(): Promise<void> {
    await runtime.close();
    runtime = await TestRuntime.create({
      requestTimeoutMs: 1000,
      defaultValidator: { enable: true, requiredPlugins: ["gone"] } as never,
    });
    await runtime.adaptation.start();
  }

  test("catches a required plugin that disconnected while idle (scenario E)", async () => {
    await withRequired();
    const gone = await runtime.attach({ index: "10", name: "gone", events: creates });
    gone.close();
    await gone.closed;
    await runtime.waitFor(() => runtime.log.some((line) => line.message === "connection to plugin 10-gone closed"));
    await expect(runtime.adaptation.createContainer(createRequest("pod0", "ctr0"))).rejects.toThrow(
      /required plugin "gone"/,
    );
  });

  test("does not catch a required plugin dropped during its own relay (scenario D)", async () => {
    await withRequired();
    await runtime.attach({ index: "10", name: "gone", events: creates, handlers: { createContainer: forever } });
    await runtime.adaptation.createContainer(createRequest("pod0", "ctr0"));
    expect(runtime.pluginNames).toEqual(["00-default-validator"]);
  });
});

describe("what the policy does not cover", () => {
  test("Synchronize: a plugin with keep_connected that times out is not taken on", async () => {
    await runtime.connect({
      index: "00",
      name: "sleepy",
      handlers: {
        configure: async () => ({ events: runs, failurePolicy: { failRequest: true, keepConnected: true } }),
        synchronize: forever,
      },
    });
    await runtime.waitFor(() => runtime.log.some((line) => line.message.startsWith("failed to synchronize plugin")));
    expect(runtime.pluginNames).toEqual([]);
    await runtime.adaptation.runPodSandbox(runPod);
  });

  test("a builtin plugin takes its policy from its configure handler", async () => {
    await runtime.close();
    let hang = true;
    runtime = await TestRuntime.create({
      requestTimeoutMs: 300,
      builtinPlugins: [
        {
          index: "00",
          name: "inproc",
          handlers: {
            configure: () => ({ events: runs, failurePolicy: { failRequest: true, keepConnected: true } }),
            runPodSandbox: (_request, signal) =>
              hang
                ? new Promise((_, reject) => signal.addEventListener("abort", () => reject(new Error("gave up"))))
                : undefined,
          },
        },
      ],
    });
    await runtime.adaptation.start();
    await expect(runtime.adaptation.runPodSandbox(runPod)).rejects.toThrow(
      /^plugin 00-inproc failed to handle RunPodSandbox request: context deadline exceeded$/,
    );
    expect(runtime.adaptation.plugins.map((p) => [p.fullName, p.failurePolicy])).toEqual([
      ["00-inproc", { failRequest: true, keepConnected: true }],
    ]);
    hang = false;
    await runtime.adaptation.runPodSandbox(runPod);
  });
});

describe("a garbled reply envelope is a protocol error (deliberately unlike Go, see the README)", () => {
  const garbled = (self: () => ScriptedPlugin): PluginHandlers => ({
    runPodSandbox: async () => {
      // a Response frame whose envelope says field 1 has 5 bytes, and 1 follows
      self().pluginConnection.write(
        encodeFrame(FIRST_RELAY_STREAM, MessageType.Response, 0, Buffer.from([0x0a, 0x05, 0x01])),
      );
      return forever();
    },
  });

  test("without a policy: the plugin is dropped and the request goes on", async () => {
    await attachFailing("garbled", undefined, garbled);
    const next = await attachNext();
    await runtime.adaptation.runPodSandbox(runPod);
    expect(next.methods).toContain("RunPodSandbox");
    expect(runtime.log.find((line) => line.level === "error")?.message).toMatch(
      /^closing plugin 00-garbled, failed to handle RunPodSandbox request: ttrpc: error unmarshalling response: /,
    );
    expect(runtime.pluginNames).toEqual(["10-next"]);
  });

  test("with fail_request: the request fails naming the plugin; keep_connected does not keep it", async () => {
    await attachFailing("garbled", { failRequest: true, keepConnected: true }, garbled);
    await expect(runtime.adaptation.runPodSandbox(runPod)).rejects.toThrow(
      /^plugin 00-garbled failed to handle RunPodSandbox request: ttrpc: error unmarshalling response: /,
    );
    expect(runtime.pluginNames).toEqual([]);
  });

  test("a payload that does not decode, the same", async () => {
    await attachFailing("garbled", { failRequest: true, keepConnected: false }, (self) => ({
      runPodSandbox: async () => {
        self().pluginConnection.write(
          encodeResponseFrame(FIRST_RELAY_STREAM, undefined, Buffer.from([0x0a, 0x05, 0x01])),
        );
        return forever();
      },
    }));
    await expect(runtime.adaptation.runPodSandbox(runPod)).rejects.toThrow(
      /^plugin 00-garbled failed to handle RunPodSandbox request: ttrpc: error unmarshalling payload: /,
    );
    expect(runtime.pluginNames).toEqual([]);
  });
});

describe("the onPluginFailure observer", () => {
  test("hears each failure with what the policy decided; the plugin's own errors and the runtime's signal are not failures", async () => {
    await runtime.close();
    const heard: unknown[] = [];
    // A generous request timeout while the plugins connect and answer; a short one only
    // for the requests a hanging plugin is to time out.
    runtime = await TestRuntime.create({
      requestTimeoutMs: 60_000,
      onPluginFailure: ({ plugin, operation, error, policy, dropped, requestFailed }) =>
        heard.push({ plugin, operation, message: error.message, policy, dropped, requestFailed }),
    });
    await runtime.adaptation.start();
    let mode: "hang" | "error" = "hang";
    await attachFailing("test", { failRequest: true, keepConnected: true }, () => ({
      runPodSandbox: async () => {
        if (mode === "error") throw new Error("no");
        return forever();
      },
    }));
    await runtime.attach({
      index: "10",
      name: "validator",
      events: validates,
      handlers: { validateContainerAdjustment: forever },
    });
    runtime.adaptation.requestTimeoutMs = 300;
    await expect(runtime.adaptation.runPodSandbox(runPod)).rejects.toThrow(/failed to handle RunPodSandbox request/);
    runtime.adaptation.requestTimeoutMs = 60_000;
    mode = "error";
    await expect(runtime.adaptation.runPodSandbox(runPod)).rejects.toThrow("rpc error: code = Unknown desc = no");
    mode = "hang";
    await expect(runtime.adaptation.runPodSandbox(runPod, { signal: AbortSignal.timeout(50) })).rejects.toThrow(
      "context deadline exceeded",
    );
    runtime.adaptation.requestTimeoutMs = 300;
    await expect(runtime.adaptation.createContainer(createRequest("pod0", "ctr0"))).rejects.toThrow(
      /^validator plugin 10-validator failed/,
    );
    expect(heard).toEqual([
      {
        plugin: "00-test",
        operation: "RunPodSandbox",
        message: "context deadline exceeded",
        policy: { failRequest: true, keepConnected: true },
        dropped: false,
        requestFailed: true,
      },
      {
        plugin: "10-validator",
        operation: "ValidateContainerAdjustment",
        message: "context deadline exceeded",
        policy: undefined,
        dropped: true,
        requestFailed: true,
      },
    ]);
  });
});
