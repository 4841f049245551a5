import {
  AdjustmentBuilder,
  ContainerAdjustment,
  ContainerUpdate,
  PartialMessageError,
  UpdateBuilder,
} from "@nri-ts/api";
import { describe, expect, it } from "vitest";
import { StubError } from "./errors.js";
import { createContainerResponse, toUpdates, updateContainerResponse } from "./results.js";

/** What a handler in plain JavaScript (or a careless cast) may return. */
const loosely = (value: unknown) => value as never;

function stubErrorOf(run: () => unknown): StubError {
  try {
    run();
  } catch (error) {
    if (error instanceof StubError) return error;
    throw error;
  }
  throw new Error("expected a StubError");
}

describe("createContainerResponse", () => {
  it("answers nothing with an empty response", () => {
    expect(createContainerResponse(undefined)).toEqual({});
    expect(createContainerResponse(null)).toEqual({});
  });

  it("takes a bare adjustment, plain or built", () => {
    expect(createContainerResponse({ annotations: { a: "b" } })).toEqual({
      adjust: ContainerAdjustment.fromPartial({ annotations: { a: "b" } }),
    });
    const built = createContainerResponse(new AdjustmentBuilder().addAnnotation("a", "b"));
    expect(built.adjust?.annotations).toEqual({ a: "b" });
  });

  it("takes adjustment, updates and evictions together", () => {
    const response = createContainerResponse({
      adjust: new AdjustmentBuilder().addEnv("K", "V"),
      update: [new UpdateBuilder("c2").setCpuShares(512), { containerId: "c3" }],
      evict: [{ containerId: "c4", reason: "pressure" }],
    });
    expect(response.adjust?.env).toEqual([{ key: "K", value: "V" }]);
    expect(response.update?.map((u) => u?.containerId)).toEqual(["c2", "c3"]);
    expect(response.update?.[0]?.linux?.resources?.cpu?.shares?.value).toBe(512n);
    expect(response.evict).toEqual([{ containerId: "c4", reason: "pressure" }]);
  });

  it("takes updates alone, and keys set to undefined as absent", () => {
    expect(createContainerResponse({ update: [{ containerId: "c2" }] })).toEqual({
      adjust: undefined,
      update: [ContainerUpdate.fromPartial({ containerId: "c2" })],
      evict: [],
    });
    expect(
      createContainerResponse(loosely({ annotations: { a: "b" }, update: undefined })).adjust?.annotations,
    ).toEqual({
      a: "b",
    });
  });

  it("refuses an adjustment mixed with the {adjust, update, evict} form, naming the keys", () => {
    const error = stubErrorOf(() =>
      createContainerResponse(loosely({ annotations: { a: "b" }, env: [], update: [{ containerId: "c2" }] })),
    );
    expect(error.code).toBe("ERR_STUB_INVALID_MESSAGE");
    expect(error.message).toBe(
      "createContainer result mixes an adjustment (annotations, env) with the {adjust, update, evict} form (update); " +
        "return one or the other: put the adjustment under adjust",
    );
  });

  it("refuses unknown keys in either form and inside the adjustment", () => {
    expect(() => createContainerResponse(loosely({ annotations: { a: "b" }, annotation: { c: "d" } }))).toThrow(
      "createContainer result: annotation: unknown field (known here: annotations, mounts, env, hooks, linux, rlimits, CDIDevices, args)",
    );
    expect(() => createContainerResponse(loosely({ adjust: {}, updates: [] }))).toThrow(
      "createContainer result: unknown key updates next to adjust (the {adjust, update, evict} form has no others)",
    );
    expect(() => createContainerResponse(loosely({ adjust: { linux: { resources: { cpus: "0-3" } } } }))).toThrow(
      "createContainer result adjust: linux.resources.cpus: unknown field",
    );
  });

  it("refuses 64-bit integers that are not, naming the update and the field", () => {
    const error = stubErrorOf(() =>
      createContainerResponse({
        update: [
          { containerId: "c2" },
          { containerId: "c3", linux: { resources: { memory: { limit: { value: "2Gi" } } } } },
        ],
      }),
    );
    expect(error.message).toBe(
      'createContainer result update[1]: linux.resources.memory.limit.value: expected an int64 (a safe integer, a bigint or a string of decimal digits), got "2Gi"',
    );
    expect(error.cause).toBeInstanceOf(PartialMessageError);
    expect(
      createContainerResponse({
        update: [{ containerId: "c3", linux: { resources: { memory: { limit: { value: "2147483648" } } } } }],
      }).update?.[0]?.linux?.resources?.memory?.limit?.value,
    ).toBe(2147483648n);
  });

  it("refuses what is neither form", () => {
    expect(() => createContainerResponse(loosely([{ annotations: {} }]))).toThrow(
      "createContainer result: expected an adjustment or {adjust, update, evict}, got a list",
    );
    expect(() => createContainerResponse(loosely({ update: new UpdateBuilder("c2") }))).toThrow(
      "createContainer result: expected a list of updates, got an UpdateBuilder",
    );
    expect(() => createContainerResponse(loosely({ evict: { containerId: "c2" } }))).toThrow(
      "createContainer result: expected a list of evictions, got an object with containerId",
    );
  });
});

describe("updateContainerResponse", () => {
  it("takes nothing, a list of updates, or updates with evictions", () => {
    expect(updateContainerResponse(undefined)).toEqual({});
    expect(updateContainerResponse({})).toEqual({});
    expect(updateContainerResponse([{ containerId: "c1" }])).toEqual({
      update: [ContainerUpdate.fromPartial({ containerId: "c1" })],
    });
    expect(updateContainerResponse({ evict: [{ containerId: "c2", reason: "r" }] })).toEqual({
      update: [],
      evict: [{ containerId: "c2", reason: "r" }],
    });
  });

  it("refuses a single update where a list belongs, and an update mixed with the {update, evict} form", () => {
    expect(() => updateContainerResponse(loosely({ containerId: "c1", linux: {} }))).toThrow(
      "updateContainer result: expected a list of updates or {update, evict}, got an object with containerId, linux",
    );
    expect(() => updateContainerResponse(loosely(new UpdateBuilder("c1")))).toThrow(
      "updateContainer result: expected a list of updates or {update, evict}, got an UpdateBuilder",
    );
    expect(() => updateContainerResponse(loosely({ containerId: "c1", evict: [] }))).toThrow(
      "updateContainer result mixes an update (containerId) with the {update, evict} form (evict); return one or the other",
    );
    expect(() => updateContainerResponse(loosely({ update: [], evictions: [] }))).toThrow(
      "updateContainer result: unknown key evictions next to update (the {update, evict} form has no others)",
    );
  });
});

describe("toUpdates", () => {
  it("refuses a lone update where a list belongs", () => {
    expect(() => toUpdates(loosely(new UpdateBuilder("c1")), "stopContainer result")).toThrow(
      "stopContainer result: expected a list of updates, got an UpdateBuilder",
    );
    expect(() => toUpdates(loosely([{ containerId: "c1", ignoreFailures: true }]), "synchronize result")).toThrow(
      "synchronize result update[0]: ignoreFailures: unknown field (known here: containerId, linux, ignoreFailure)",
    );
  });
});

it("refuses a builder of the other kind instead of dropping it", () => {
  expect(() => createContainerResponse(loosely(new UpdateBuilder("c1").setCpuShares(2)))).toThrow(
    "createContainer result: expected an adjustment or {adjust, update, evict}, got an UpdateBuilder",
  );
  expect(() => toUpdates(loosely([new AdjustmentBuilder()]), "stopContainer result")).toThrow(
    "stopContainer result update[0]: expected an object, got an AdjustmentBuilder",
  );
});
