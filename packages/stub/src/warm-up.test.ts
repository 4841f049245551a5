import { CreateContainerRequest, CreateContainerResponse } from "@nri-ts/api";
import { afterEach, describe, expect, it } from "vitest";
import type { Plugin } from "./plugin.js";
import type { Stub } from "./stub.js";
import { HANDLER_EVENTS } from "./subscription.js";
import { connectPlugin } from "./harness/connect-plugin.js";
import { codecRehearsals } from "./warm-up.js";

/** A plugin with every lifecycle handler, each recording that it ran. */
function everyHandler(calls: string[]): Plugin {
  return Object.fromEntries(Object.keys(HANDLER_EVENTS).map((handler) => [handler, () => void calls.push(handler)]));
}

const stubs: Stub[] = [];
afterEach(async () => {
  await Promise.all(stubs.splice(0).map((stub) => stub.stop()));
});

/** Lets every turn of the event loop the warm-up takes pass. */
const turns = async (count: number) => {
  for (let i = 0; i < count; i++) await new Promise((resolve) => setImmediate(resolve));
};

describe("codecRehearsals", () => {
  it("has one step per handler, each decoding its request and encoding its answer without calling any handler", () => {
    const calls: string[] = [];
    const steps = codecRehearsals(everyHandler(calls));
    expect(steps).toHaveLength(Object.keys(HANDLER_EVENTS).length);
    for (const step of steps) step();
    expect(calls).toEqual([]);
  });

  it("has steps only for the handlers the plugin has", () => {
    expect(codecRehearsals({ createContainer: () => {} })).toHaveLength(1);
    expect(codecRehearsals({ createContainer: () => {}, removeContainer: () => {} })).toHaveLength(2);
  });

  it("decodes a request with the parts a runtime sends: labels, mounts, hooks, Linux namespaces, devices and resources", () => {
    let decoded: CreateContainerRequest | undefined;
    const decode = CreateContainerRequest.decode;
    CreateContainerRequest.decode = (input, length) => (decoded = decode(input, length));
    try {
      for (const step of codecRehearsals({ createContainer: () => {} })) step();
    } finally {
      CreateContainerRequest.decode = decode;
    }
    const container = decoded?.container;
    expect(container?.labels).not.toEqual({});
    expect(container?.mounts[0]?.options).not.toEqual([]);
    expect(container?.hooks?.prestart[0]?.timeout?.value).toBe(5n);
    expect(container?.linux?.devices[0]?.fileMode?.value).toBe(0o666);
    expect(container?.linux?.resources?.memory?.limit?.value).toBe(1n << 30n);
    expect(container?.linux?.resources?.cpu?.shares?.value).toBe(1024n);
    expect(container?.rlimits[0]?.hard).toBe(1024n);
    expect(decoded?.pod?.linux?.podResources?.pids?.limit).toBe(1024n);
  });
});

/** Counts CreateContainerRequest decodes while `run` runs. */
async function countingDecodes(run: () => Promise<void>): Promise<number> {
  let count = 0;
  const decode = CreateContainerRequest.decode;
  CreateContainerRequest.decode = (input, length) => {
    count++;
    return decode(input, length);
  };
  try {
    await run();
  } finally {
    CreateContainerRequest.decode = decode;
  }
  return count;
}

// In this order: the warm-up runs once per process, at the first stub that has it on.
describe("codecRehearsals' answers", () => {
  it("encodes createContainer's response from an adjustment, as the stub turns a plugin's answer into one", () => {
    const encoded: CreateContainerResponse[] = [];
    const encode = CreateContainerResponse.encode;
    CreateContainerResponse.encode = (message, writer) => {
      encoded.push(message);
      return encode(message, writer);
    };
    try {
      for (const step of codecRehearsals({ createContainer: () => {} })) step();
    } finally {
      CreateContainerResponse.encode = encode;
    }
    expect(encoded).toHaveLength(1);
    expect(encoded[0]?.adjust?.annotations).toEqual({ "example.com/adjusted": "true" });
    expect(encoded[0]?.adjust?.linux?.resources?.memory?.limit?.value).toBe(1n << 30n);
  });
});

describe("the warm-up after Synchronize", () => {
  it("does not run with warmUp: false", async () => {
    const decodes = await countingDecodes(async () => {
      const { stub } = await connectPlugin({ createContainer: () => {} }, { stub: { warmUp: false } });
      stubs.push(stub);
      await turns(4);
    });
    expect(decodes).toBe(0);
  });

  it("decodes exemplars before the first request, calls no handler, and the first request is served as usual", async () => {
    const calls: string[] = [];
    const plugin: Plugin = { ...everyHandler(calls), createContainer: () => ({ annotations: { seen: "yes" } }) };
    const { stub, runtime } = await connectPlugin(plugin);
    stubs.push(stub);
    const decodes = await countingDecodes(() => turns(Object.keys(HANDLER_EVENTS).length + 2));
    expect(decodes).toBe(1);
    expect(calls).toEqual([]);
    const reply = await runtime.plugin.createContainer({ pod: { id: "p" }, container: { id: "c" } });
    expect(reply.adjust?.annotations).toEqual({ seen: "yes" });
    expect(calls).toEqual([]); // createContainer was replaced; the others still never ran
  });
});
