import { Event, eventMask, type StartContainerRequest } from "@nri-ts/api";
import { encodeFrame, encodeResponseFrame, MessageType } from "@nri-ts/ttrpc";
import fc from "fast-check";
import { afterEach, beforeEach, describe, expect, test } from "vitest";
import type { ScriptedPlugin } from "./testing/scripted-plugin.js";
import { container, createRequest, pod, TestRuntime } from "./testing/runtime.js";

/*
 * Misbehaving plugins: whatever one of them does, the adaptation answers
 * every request and keeps serving the others.
 */

let runtime: TestRuntime;

beforeEach(async () => {
  // Long enough for a well-behaved plugin on a busy machine; only hanging plugins wait it out.
  runtime = await TestRuntime.create({ requestTimeoutMs: 1000 });
  await runtime.adaptation.start();
});

afterEach(async () => {
  await runtime.close();
});

const pod0 = pod("pod0");
const ctr0 = container("ctr0", "pod0");
const creating = eventMask(Event.CREATE_CONTAINER, Event.START_CONTAINER);

/** A well-behaved plugin that annotates every container it sees created. */
async function attachGood(): Promise<ScriptedPlugin> {
  return runtime.attach({
    index: "50",
    name: "good",
    events: creating,
    handlers: { createContainer: async () => ({ adjust: { annotations: { good: "yes" } } }) },
  });
}

/** Ten creations at once: every one must be answered, with the good plugin's adjustment. */
async function createMany(): Promise<void> {
  const responses = await Promise.all(
    Array.from({ length: 10 }, (_, i) => runtime.adaptation.createContainer(createRequest("pod0", `ctr${i}`))),
  );
  for (const response of responses) expect(response.adjust?.annotations).toEqual({ good: "yes" });
}

/** The stream id of the plugin's n-th relayed request (after Configure 1 and Synchronize 3). */
function relayStream(n: number): number {
  return 3 + 2 * n;
}

describe("a plugin that", () => {
  test("crashes in the middle of a request is dropped; no request is lost", async () => {
    let crashed = false;
    const crashing: ScriptedPlugin = await runtime.attach({
      index: "10",
      name: "crashing",
      events: creating,
      handlers: {
        createContainer: async () => {
          crashed = true;
          crashing.close();
          return new Promise(() => {});
        },
      },
    });
    await attachGood();
    await createMany();
    expect(crashed).toBe(true);
    expect(runtime.pluginNames).toEqual(["50-good"]);
  });

  test("hangs past the timeout is dropped; the requests queued behind it are answered", async () => {
    await runtime.attach({
      index: "10",
      name: "hanging",
      events: creating,
      handlers: { createContainer: () => new Promise(() => {}) },
    });
    await attachGood();
    await createMany();
    expect(runtime.pluginNames).toEqual(["50-good"]);
  });

  test("disconnects while being synchronized is never taken on", async () => {
    const leaving = await runtime.connect({
      index: "10",
      name: "leaving",
      handlers: {
        synchronize: async () => {
          leaving.close();
          return new Promise(() => {});
        },
      },
    });
    await leaving.closed;
    await attachGood();
    await createMany();
    expect(runtime.pluginNames).toEqual(["50-good"]);
  });

  test("announces a mux frame over the size limit is dropped", async () => {
    const liar = await runtime.attach({
      index: "10",
      name: "liar",
      events: creating,
      handlers: { createContainer: () => new Promise(() => {}) },
    });
    await attachGood();
    liar.mux.trunk.write(Buffer.from([0, 0, 0, 1, 0xff, 0xff, 0xff, 0xff]));
    await createMany();
    expect(runtime.pluginNames).toEqual(["50-good"]);
  });

  test("answers with a frame it may not send (Data on a unary call) is dropped", async () => {
    const rude = await runtime.attach({
      index: "10",
      name: "rude",
      events: creating,
      handlers: {
        startContainer: async () => {
          rude.pluginConnection.write(encodeFrame(relayStream(1), MessageType.Data, 0, Buffer.from("hello")));
          return new Promise(() => {});
        },
      },
    });
    await attachGood();
    await runtime.adaptation.startContainer({ pod: pod0, container: ctr0 });
    expect(runtime.log.find((line) => line.level === "error")?.message).toBe(
      'closing plugin 10-rude, failed to handle StartContainer request: unexpected "data" message received: protocol error',
    );
    await createMany();
    expect(runtime.pluginNames).toEqual(["50-good"]);
  });

  test("answers bytes that do not decode is dropped", async () => {
    const garbled = await runtime.attach({
      index: "10",
      name: "garbled",
      events: creating,
      handlers: {
        createContainer: async () => {
          // field 1 (adjust) claims 5 bytes, 1 follows
          garbled.pluginConnection.write(
            encodeResponseFrame(relayStream(1), undefined, Buffer.from([0x0a, 0x05, 0x01])),
          );
          return new Promise(() => {});
        },
      },
    });
    await attachGood();
    const response = await runtime.adaptation.createContainer(createRequest("pod0", "ctr0"));
    expect(response.adjust?.annotations).toEqual({ good: "yes" });
    expect(runtime.log.find((line) => line.level === "error")?.message).toMatch(
      /^closing plugin 10-garbled, failed to handle CreateContainer request: ttrpc: error unmarshalling payload: /,
    );
    expect(runtime.pluginNames).toEqual(["50-good"]);
  });

  // Most garbage is a partial frame, so its request runs into the 1 s timeout:
  // up to 10 s of deliberate waiting before any slowness of the machine.
  test("sends random bytes is survived, whatever they are", { timeout: 60_000 }, async () => {
    await attachGood();
    let run = 0;
    await fc.assert(
      fc.asyncProperty(fc.uint8Array({ minLength: 1, maxLength: 512 }), async (garbage) => {
        const noisy = await runtime.attach({ index: "10", name: `noisy${run++}`, events: creating });
        noisy.mux.trunk.write(garbage);
        const response = await runtime.adaptation.createContainer(createRequest("pod0", "ctr0"));
        expect(response.adjust?.annotations).toEqual({ good: "yes" });
        noisy.close();
        await runtime.adaptation.startContainer({ pod: pod0, container: ctr0 });
        expect(runtime.pluginNames).toEqual(["50-good"]);
      }),
      { numRuns: 10 },
    );
  });

  test("floods the runtime with updates does not hold up requests; every update arrives", async () => {
    const flooder = await runtime.attach({ index: "10", name: "flooder", events: creating });
    await attachGood();
    const update = { containerId: "ctr0", linux: undefined, ignoreFailure: false };
    const flood = Promise.all(
      Array.from({ length: 500 }, () => flooder.runtime.updateContainers({ update: [update], evict: [] })),
    );
    await createMany();
    await flood;
    expect(runtime.unsolicited).toHaveLength(500);
    expect(runtime.pluginNames).toEqual(["10-flooder", "50-good"]);
  });
});

test("every event request is answered while plugins fail in every way at once", async () => {
  const crashing: ScriptedPlugin = await runtime.attach({
    index: "10",
    name: "crashing",
    handlers: {
      startContainer: async () => {
        crashing.close();
        return new Promise(() => {});
      },
    },
  });
  await runtime.attach({ index: "20", name: "hanging", handlers: { startContainer: () => new Promise(() => {}) } });
  const seen: StartContainerRequest[] = [];
  await runtime.attach({
    index: "30",
    name: "counting",
    handlers: {
      startContainer: async (request) => {
        seen.push(request);
        return {};
      },
    },
  });
  await Promise.all(
    Array.from({ length: 20 }, () => runtime.adaptation.startContainer({ pod: pod0, container: ctr0 })),
  );
  expect(seen).toHaveLength(20);
  expect(runtime.pluginNames).toEqual(["30-counting"]);
});
