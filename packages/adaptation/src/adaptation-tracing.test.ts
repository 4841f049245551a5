import { type Plugin, silentLogger, Stub } from "@nri-ts/stub";
import { trace } from "@opentelemetry/api";
import { afterEach, describe, expect, test } from "vitest";
import { type ReadableSpan, TraceRecorder } from "../../ttrpc/src/testing/trace-recorder.js";
import type { AdaptationOptions } from "./adaptation.js";
import type { PluginHandlers } from "./testing/scripted-plugin.js";
import { defaultValidatorConfig } from "./validation/default-validator-config.js";
import { container, createRequest, pod, TestRuntime } from "./testing/runtime.js";

const PLUGIN = "nri.pkg.api.v1alpha1.Plugin";
const never = () => new Promise<never>(() => {});

let recorder: TraceRecorder | undefined;
let runtime: TestRuntime | undefined;
const stubs: Stub[] = [];
afterEach(async () => {
  for (const stub of stubs.splice(0)) await stub.stop();
  await runtime?.close();
  runtime = undefined;
  await recorder?.stop();
  recorder = undefined;
});

async function tracedRuntime(options: AdaptationOptions = {}): Promise<{ runtime: TestRuntime; spans: TraceRecorder }> {
  recorder = await TraceRecorder.start();
  runtime = await TestRuntime.create(options);
  await runtime.adaptation.start();
  return { runtime, spans: recorder };
}

/** A plugin on @nri-ts/stub, in this process, connected and taken on by the runtime. */
async function stubPlugin(index: string, name: string, plugin: Plugin): Promise<void> {
  const stub = new Stub(plugin, { index, name, socketPath: runtime!.socketPath, logger: silentLogger, env: {} });
  stubs.push(stub);
  await stub.start();
  await runtime!.waitFor(() => runtime!.pluginNames.includes(`${index}-${name}`));
}

const id = (span: ReadableSpan | undefined) => span?.spanContext().spanId;
const childrenOf = (spans: TraceRecorder, parent: ReadableSpan) =>
  spans.spans.filter((span) => span.parentSpanContext?.spanId === id(parent));

describe("with an OpenTelemetry SDK registered", () => {
  test("a request is one trace: the runtime's span, a child per plugin call, and under each the plugin's own span", async () => {
    const { runtime, spans } = await tracedRuntime({ defaultValidator: { ...defaultValidatorConfig(), enable: true } });
    await stubPlugin("10", "env", { createContainer: () => ({ env: [{ key: "A", value: "1" }] }) });
    await stubPlugin("20", "quiet", {
      createContainer: () => {
        trace.getTracer("plugin's own").startSpan("lookup").end();
      },
    });
    spans.reset();

    const request = createRequest("pod0", "ctr0");
    await trace.getTracer("x").startActiveSpan("outer", async (outer) => {
      await runtime.adaptation.createContainer(request);
      outer.end();
    });

    const [outer] = spans.named("outer");
    const [root] = spans.named("nri.CreateContainer");
    expect(root.parentSpanContext?.spanId).toBe(id(outer));
    expect(root.attributes).toEqual({
      "k8s.pod.name": "pod0",
      "k8s.pod.uid": "uid-pod0",
      "k8s.namespace.name": "default",
      "k8s.container.name": "ctr0",
      "container.id": "ctr0",
    });
    const calls = childrenOf(spans, root);
    expect(
      calls.map((span) => [span.name, span.attributes["nri.plugin.index"], span.attributes["nri.plugin.name"]]),
    ).toEqual([
      [`${PLUGIN}/CreateContainer`, "10", "env"],
      [`${PLUGIN}/CreateContainer`, "20", "quiet"],
      [`${PLUGIN}/ValidateContainerAdjustment`, "00", "default-validator"],
    ]);
    const [env, quiet, validator] = calls;
    expect(env.kind).toBe(2); // CLIENT
    expect(env.attributes).toEqual({
      "rpc.system": "ttrpc",
      "rpc.service": PLUGIN,
      "rpc.method": "CreateContainer",
      "nri.plugin.name": "env",
      "nri.plugin.index": "10",
      "nri.plugin.kind": "external",
      "nri.adjusted": true,
      "nri.updates": 0,
      "nri.evictions": 0,
    });
    expect(quiet.attributes["nri.adjusted"]).toBe(false);
    // in-process: not a ttrpc call
    expect(validator.kind).toBe(0); // INTERNAL
    expect(validator.attributes).toMatchObject({ "nri.plugin.kind": "builtin", "nri.validation.verdict": "accepted" });
    expect(validator.attributes["rpc.system"]).toBeUndefined();

    // each plugin's span (its stub's, in its process) is a child of the runtime's call to it
    for (const call of [env, quiet]) {
      const [served] = childrenOf(spans, call);
      expect(served.name).toBe(`${PLUGIN}/CreateContainer`);
      expect(served.kind).toBe(1); // SERVER
      expect(served.attributes["nri.plugin.name"]).toBe(call.attributes["nri.plugin.name"]);
    }
    const [lookup] = spans.named("lookup");
    expect(spans.parentOf(lookup)?.attributes["nri.plugin.name"]).toBe("quiet");
    expect(new Set(spans.spans.map((span) => span.spanContext().traceId)).size).toBe(1);
  });

  test("a plugin gets the call's W3C trace context in the request's metadata", async () => {
    const { runtime, spans } = await tracedRuntime();
    const seen: Array<string | undefined> = [];
    await runtime.attach({
      index: "10",
      name: "scripted",
      handlers: {
        startContainer: async (_request, { metadata }) => {
          seen.push(metadata.get("traceparent") as string | undefined);
          return {};
        },
      } as PluginHandlers,
    });
    await runtime.adaptation.startContainer({ pod: pod("pod0"), container: container("ctr0", "pod0") });
    const [call] = spans.named(`${PLUGIN}/StartContainer`);
    const { traceId, spanId } = call.spanContext();
    expect(seen).toEqual([`00-${traceId}-${spanId}-01`]);
    expect(spans.parentOf(call)?.name).toBe("nri.StartContainer");
  });

  test("a failure sets the call's status and says what the plugin's failure policy decided", async () => {
    const { runtime, spans } = await tracedRuntime({ requestTimeoutMs: 60_000 });
    await runtime.attach({
      index: "10",
      name: "slow",
      handlers: {
        configure: async () => ({ events: 0, failurePolicy: { failRequest: true, keepConnected: true } }),
        runPodSandbox: never,
      } as PluginHandlers,
    });
    runtime.adaptation.requestTimeoutMs = 300;
    await expect(runtime.adaptation.runPodSandbox({ pod: pod("pod0") })).rejects.toThrow(
      "plugin 10-slow failed to handle RunPodSandbox request: context deadline exceeded",
    );
    const [call] = spans.named(`${PLUGIN}/RunPodSandbox`);
    expect(call.status).toEqual({ code: 2, message: "context deadline exceeded" });
    expect(call.attributes).toMatchObject({
      "nri.failure": "deadline",
      "nri.failure_policy": "failRequest, keepConnected",
      "nri.failure_policy.decision": "request failed, plugin kept",
      "nri.plugin.dropped": false,
      "nri.request.failed": true,
    });
    const [request] = spans.named("nri.RunPodSandbox");
    expect(request.status).toEqual({
      code: 2,
      message: "plugin 10-slow failed to handle RunPodSandbox request: context deadline exceeded",
    });
  });

  test("a conflict fails the request's span, naming both plugins and the field", async () => {
    const { runtime, spans } = await tracedRuntime();
    const setsA = { createContainer: () => ({ env: [{ key: "A", value: "x" }] }) };
    await stubPlugin("10", "first", setsA);
    await stubPlugin("20", "second", setsA);
    await expect(runtime.adaptation.createContainer(createRequest("pod0", "ctr0"))).rejects.toThrow(
      'plugins "20-second" and "10-first" both tried to set Env A',
    );
    const [request] = spans.named("nri.CreateContainer");
    expect(request.status.code).toBe(2);
    expect(request.attributes).toMatchObject({
      "nri.conflict.plugins": ["10-first", "20-second"],
      "nri.conflict.field": "Env A",
    });
  });

  test("a rejecting validator's call carries its verdict", async () => {
    const { runtime, spans } = await tracedRuntime();
    await stubPlugin("90", "strict", {
      validateContainerAdjustment: () => {
        throw new Error("not on my node");
      },
    });
    await expect(runtime.adaptation.createContainer(createRequest("pod0", "ctr0"))).rejects.toThrow("not on my node");
    const [call] = spans.named(`${PLUGIN}/ValidateContainerAdjustment`);
    expect(call.attributes).toMatchObject({
      "nri.validation.verdict": "rejected",
      "nri.validation.reason": "not on my node",
    });
    expect(spans.named("nri.CreateContainer")[0].status.code).toBe(2);
  });

  test("synchronizing a new plugin is a request of its own; its unsolicited updates nest under the plugin's span", async () => {
    const { runtime, spans } = await tracedRuntime();
    runtime.pods = [pod("pod0")];
    runtime.containers = [container("ctr0", "pod0")];
    await stubPlugin("10", "updater", {
      synchronize: () => [],
      postStartContainer: async (_pod, _container, { stub }) => {
        await stub.updateContainers([
          { containerId: "ctr0", linux: { resources: { cpu: { shares: { value: 512n } } } } },
        ]);
      },
    });
    const [sync] = spans.named("nri.Synchronize");
    expect(sync.attributes).toEqual({ "nri.pods": 1, "nri.containers": 1 });
    expect(childrenOf(spans, sync).map((span) => span.name)).toEqual([`${PLUGIN}/Synchronize`]);

    await runtime.adaptation.postStartContainer({ pod: pod("pod0"), container: container("ctr0", "pod0") });
    const [served] = spans.named("nri.pkg.api.v1alpha1.Runtime/UpdateContainers").filter((s) => s.kind === 1);
    expect(served.attributes).toMatchObject({
      "nri.plugin.name": "updater",
      "nri.updates": 1,
      "nri.updates.failed": 0,
    });
    expect(spans.parentOf(served)?.kind).toBe(2); // the stub's client span
    expect(served.spanContext().traceId).toBe(spans.named("nri.PostStartContainer")[0].spanContext().traceId);
  });

  test("a builtin plugin's handler runs with its call's span active", async () => {
    let active: string | undefined;
    const { runtime, spans } = await tracedRuntime({
      builtinPlugins: [
        {
          index: "05",
          name: "inline",
          handlers: {
            removeContainer: () => {
              active = trace.getActiveSpan()?.spanContext().spanId;
            },
          },
        },
      ],
    });
    await runtime.adaptation.removeContainer({ pod: pod("pod0"), container: container("ctr0", "pod0") });
    expect(active).toBe(id(spans.named(`${PLUGIN}/RemoveContainer`)[0]));
  });
});

describe("without an SDK", () => {
  test("plugins get no trace context", async () => {
    runtime = await TestRuntime.create();
    await runtime.adaptation.start();
    const keys: string[][] = [];
    await runtime.attach({
      index: "10",
      name: "scripted",
      handlers: {
        startContainer: async (_request, { metadata }) => {
          keys.push(Array.from(metadata, ([key]) => key));
          return {};
        },
      } as PluginHandlers,
    });
    await runtime.adaptation.startContainer({ pod: pod("pod0"), container: container("ctr0", "pod0") });
    expect(keys).toEqual([[]]);
  });
});
