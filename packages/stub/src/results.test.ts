import { AdjustmentBuilder, UpdateBuilder } from "@nri-ts/api";
import { describe, expect, it } from "vitest";
import { createContainerResponse, updateContainerResponse } from "./results.js";

describe("createContainerResponse", () => {
  it("answers nothing with an empty response", () => {
    expect(createContainerResponse(undefined)).toEqual({});
  });

  it("takes a bare adjustment, plain or built", () => {
    expect(createContainerResponse({ annotations: { a: "b" } })).toEqual({ adjust: { annotations: { a: "b" } } });
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

  it("takes updates alone", () => {
    expect(createContainerResponse({ update: [{ containerId: "c2" }] })).toEqual({
      adjust: undefined,
      update: [{ containerId: "c2" }],
      evict: [],
    });
  });
});

describe("updateContainerResponse", () => {
  it("takes nothing, a list of updates, or updates with evictions", () => {
    expect(updateContainerResponse(undefined)).toEqual({});
    expect(updateContainerResponse([{ containerId: "c1" }])).toEqual({ update: [{ containerId: "c1" }] });
    expect(updateContainerResponse({ evict: [{ containerId: "c2", reason: "r" }] })).toEqual({
      update: [],
      evict: [{ containerId: "c2", reason: "r" }],
    });
  });
});
