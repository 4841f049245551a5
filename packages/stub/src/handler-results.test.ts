/*
 * What a careless plugin author returns from handlers, as the runtime and
 * the plugin's log see it; and (checked by the typecheck step) which of it
 * TypeScript refuses.
 */
import { AdjustmentBuilder, UpdateBuilder } from "@nri-ts/api";
import { ClientError, Status } from "nice-grpc-common";
import { afterEach, describe, expect, it } from "vitest";
import { createLogger } from "./logger.js";
import type { Plugin } from "./plugin.js";
import { definePlugin } from "./plugin-check.js";
import { Stub } from "./stub.js";
import { connectPlugin } from "./harness/connect-plugin.js";

const stubs: Stub[] = [];
afterEach(async () => {
  await Promise.all(stubs.splice(0).map((stub) => stub.stop()));
});

const pod = { id: "pod-1", name: "web", namespace: "default" };
const container = { id: "ctr-1", podSandboxId: "pod-1", name: "nginx" };

async function connect(plugin: Plugin) {
  const lines: Array<Record<string, unknown>> = [];
  const logger = createLogger({ stream: { write: (line: string) => lines.push(JSON.parse(line)) > 0 } });
  // the plugin is cast: these tests run what TypeScript refuses, as plain JavaScript would
  const { stub, runtime } = await connectPlugin(plugin as never, { stub: { logger } });
  stubs.push(stub);
  return { runtime, lines };
}

describe("a handler result that would lose data fails the request, and says why", () => {
  it("createContainer mixing an adjustment with updates: the runtime gets the keys, the plugin logs them", async () => {
    const { runtime, lines } = await connect({
      // @ts-expect-error the two forms do not mix
      createContainer: () => ({ annotations: { "example.com/seen": "yes" }, update: [{ containerId: "other" }] }),
    });
    const error = await runtime.plugin.createContainer({ pod, container }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ClientError);
    expect(error).toMatchObject({
      code: Status.UNKNOWN,
      details:
        "createContainer result mixes an adjustment (annotations) with the {adjust, update, evict} form (update); " +
        "return one or the other: put the adjustment under adjust",
    });
    expect(lines.at(-1)).toMatchObject({
      level: "error",
      method: "createContainer",
      msg: expect.stringContaining("createContainer failed: createContainer result mixes an adjustment (annotations)"),
    });
  });

  it("createContainer with a misspelt key next to good ones", async () => {
    const { runtime } = await connect(
      // @ts-expect-error "anotations" is no key of an adjustment
      definePlugin({ createContainer: () => ({ env: [{ key: "A", value: "1" }], anotations: { seen: "yes" } }) }),
    );
    await expect(runtime.plugin.createContainer({ pod, container })).rejects.toMatchObject({
      details: expect.stringMatching(/^createContainer result: anotations: unknown field \(known here: annotations, /),
    });
  });

  it("a memory limit given as a Kubernetes quantity", async () => {
    const { runtime } = await connect({
      createContainer: () => ({ linux: { resources: { memory: { limit: { value: "512Mi" } } } } }),
    });
    await expect(runtime.plugin.createContainer({ pod, container })).rejects.toMatchObject({
      details:
        'createContainer result: linux.resources.memory.limit.value: expected an int64 (a safe integer, a bigint or a string of decimal digits), got "512Mi"',
    });
  });

  it("a memory limit given as a decimal string is parsed", async () => {
    const { runtime } = await connect({
      createContainer: () => ({ linux: { resources: { memory: { limit: { value: "536870912" } } } } }),
    });
    const reply = await runtime.plugin.createContainer({ pod, container });
    expect(reply.adjust?.linux?.resources?.memory?.limit?.value).toBe(536870912n);
  });

  it("updateContainer returning one update instead of a list", async () => {
    const { runtime } = await connect({
      // @ts-expect-error a lone update is not a list of them
      updateContainer: (_pod, ctr) => new UpdateBuilder(ctr.id).setCpuShares(1024),
    });
    await expect(runtime.plugin.updateContainer({ pod, container })).rejects.toMatchObject({
      details: "updateContainer result: expected a list of updates or {update, evict}, got an UpdateBuilder",
    });
  });

  it("stopContainer returning an update instead of a list", async () => {
    const { runtime } = await connect({
      // @ts-expect-error a lone update is not a list of them
      stopContainer: () => ({ containerId: "sidecar" }),
    });
    await expect(runtime.plugin.stopContainer({ pod, container })).rejects.toMatchObject({
      details: "stopContainer result: expected a list of updates, got an object with containerId",
    });
  });

  it("a handler the runtime takes no answer from returning an adjustment: served, with one warning", async () => {
    const { runtime, lines } = await connect({
      // @ts-expect-error the runtime takes no answer to postCreateContainer
      postCreateContainer: () => new AdjustmentBuilder().addAnnotation("late", "yes"),
    });
    await runtime.plugin.postCreateContainer({ pod, container });
    await runtime.plugin.postCreateContainer({ pod, container });
    const warnings = lines.filter((line) => line.level === "warn");
    expect(warnings).toEqual([
      expect.objectContaining({
        method: "postCreateContainer",
        msg:
          "postCreateContainer returned an object, which is dropped: the runtime takes no answer to it " +
          "(only createContainer, updateContainer, stopContainer and synchronize answer with changes)",
      }),
    ]);
  });
});

describe("pushing updates that would lose data", () => {
  it("updateContainers refuses them before sending anything", async () => {
    const { stub, runtime } = await connectPlugin({ stopContainer: () => {} });
    stubs.push(stub);
    await expect(
      stub.updateContainers([{ containerId: "c1", linux: { resources: { cpu: { shares: { value: "lots" } } } } }]),
    ).rejects.toThrow(
      'updateContainers update[0]: linux.resources.cpu.shares.value: expected a uint64 (a safe integer, a bigint or a string of decimal digits), got "lots"',
    );
    expect(runtime.updateRequests).toEqual([]);
  });
});

describe("at the type level", () => {
  it("accepts every good form and refuses stray keys wherever the plugin is given", () => {
    const good = definePlugin({
      createContainer: async (p) => (p.name === "" ? undefined : { annotations: { a: p.name } }),
      updateContainer: (_p, c) => ({ update: [new UpdateBuilder(c.id)], evict: [] }),
      stopContainer: () => [{ containerId: "x" }],
    });
    expect(() => new Stub(good, { index: "10", name: "good", env: {} })).not.toThrow();
    const wide: Plugin = good;
    expect(() => new Stub(wide, { index: "10", name: "wide", env: {} })).not.toThrow();
    const misshapen = () =>
      // @ts-expect-error "adjustment" is no key of the {adjust, update, evict} form
      new Stub({ createContainer: () => ({ adjustment: {}, update: [] }) }, { index: "10", name: "x", env: {} });
    expect(misshapen).not.toThrow();
    // @ts-expect-error "evictions" is no key of the {update, evict} form
    definePlugin({ updateContainer: () => ({ update: [], evictions: [] }) });
    // @ts-expect-error "colour" is no key of an adjustment, even under adjust
    definePlugin({ createContainer: () => ({ adjust: { annotations: {}, colour: "red" } }) });
  });
});
