import { ConfigureResponse, Event, eventMask } from "@nri-ts/api";
import { afterEach, describe, expect, it } from "vitest";
import { StubError } from "./errors.js";
import type { FailurePolicyInput } from "./failure-policy.js";
import { silentLogger } from "./logger.js";
import type { Plugin } from "./plugin.js";
import { Stub } from "./stub.js";
import { ScriptedRuntime } from "./harness/scripted-runtime.js";

const plugin: Plugin = { createContainer: () => {}, stopContainer: () => {} };
const stubs: Stub[] = [];

afterEach(async () => {
  await Promise.all(stubs.splice(0).map((stub) => stub.stop()));
});

/** The Configure reply of a stub with these options, as bytes on the wire (hex). */
async function configureReply(
  failurePolicy: FailurePolicyInput | undefined,
  p: Plugin = plugin,
  nriVersion = "v0.12.5",
): Promise<string> {
  const { runtime, connection } = await ScriptedRuntime.pair();
  const stub = new Stub(p, { index: "10", name: "test", logger: silentLogger, env: {}, connection, failurePolicy });
  stubs.push(stub);
  const started = stub.start();
  await runtime.registered();
  const reply = await runtime.configure({ NRIVersion: nriVersion });
  await started;
  return Buffer.from(ConfigureResponse.encode(reply).finish()).toString("hex");
}

describe("the failurePolicy option", () => {
  // CreateContainer and StopContainer: events 0x208 (10 88 04)
  it.each<[string, FailurePolicyInput | undefined, string]>([
    ["no policy: the field stays off the wire", undefined, "108804"],
    ["an empty policy: an empty sub-message, like Go's &FailurePolicy{}", {}, "1088041a00"],
    ["failRequest", { failRequest: true }, "1088041a020801"],
    ["keepConnected", { keepConnected: true }, "1088041a021001"],
    ["both", { failRequest: true, keepConnected: true }, "1088041a0408011001"],
  ])("goes out with the subscription in Configure: %s", async (_name, policy, hex) => {
    expect(await configureReply(policy)).toBe(hex);
  });

  it("goes out to runtimes that predate policies too (they skip the unknown field), as in Go", async () => {
    expect(await configureReply({ failRequest: true }, plugin, "v0.12.2")).toBe("1088041a020801");
  });

  it("goes out with the narrower subscription a configure handler chose", async () => {
    const narrowing: Plugin = { ...plugin, configure: () => eventMask(Event.STOP_CONTAINER) };
    expect(await configureReply({ keepConnected: true }, narrowing)).toBe("1080041a021001");
  });

  it("is what the stub reports", () => {
    const stub = new Stub(plugin, {
      index: "10",
      name: "test",
      logger: silentLogger,
      env: {},
      failurePolicy: { failRequest: true },
    });
    expect(stub.failurePolicy).toEqual({ failRequest: true, keepConnected: false });
    expect(
      new Stub(plugin, { index: "10", name: "test", logger: silentLogger, env: {} }).failurePolicy,
    ).toBeUndefined();
  });

  it.each<[string, unknown, string]>([
    ["null, Go's nil", null, "nil failure policy"],
    ["not an object", true, "failure policy must be an object"],
    [
      "a field that is not a boolean",
      { failRequest: "yes" },
      "failure policy: failRequest must be a boolean, not string",
    ],
    [
      "a field that is not a boolean",
      { keepConnected: 1 },
      "failure policy: keepConnected must be a boolean, not number",
    ],
  ])("refuses %s before connecting", (_name, policy, text) => {
    expect(
      () =>
        new Stub(plugin, {
          index: "10",
          name: "test",
          logger: silentLogger,
          env: {},
          failurePolicy: policy as FailurePolicyInput,
        }),
    ).toThrow(new StubError("ERR_STUB_FAILURE_POLICY", text));
  });
});
