/*
 * The report's views are typed: a test reads a container's env, an
 * adjustment's memory limit or an update's CPU shares without casts. The
 * expectTypeOf and @ts-expect-error lines are checked by the typecheck step.
 */
import { AdjustmentBuilder, UpdateBuilder } from "@nri-ts/api";
import { definePlugin } from "@nri-ts/stub";
import { describe, expect, expectTypeOf, it } from "vitest";
import { simulate } from "../run/simulate.js";

const plugin = definePlugin({
  createContainer: (_pod, container) => ({
    adjust: new AdjustmentBuilder()
      .addEnv("SEEN", container.name)
      .setMemoryLimit(1n << 30n)
      .addAnnotation("a", "b"),
    update: container.name === "app" ? [new UpdateBuilder("ctr-side").setCpuShares(512)] : [],
  }),
});

const SCENARIO = `
pods: [{name: web}]
containers: [{name: app, pod: web}, {name: side, pod: web, id: ctr-side}]
steps: [{run-pod: web}, {create: side}, {create: app}]
`;

describe("a report's views", () => {
  it("read typed, as a test uses them", async () => {
    const report = await simulate(SCENARIO, { plugins: [{ plugin, index: "10", name: "views" }], clock: "virtual" });
    expect(report.ok, report.failures.join("\n")).toBe(true);
    const create = report.steps[2];

    const container = create?.container;
    expectTypeOf(container?.env).toEqualTypeOf<{ [name: string]: string } | undefined>();
    expectTypeOf(container?.state).toEqualTypeOf<string | undefined>();
    expect(container?.env.SEEN).toBe("app");
    expect(container?.annotations.a).toBe("b");
    expect(container?.resources.memory?.limit).toBe(1073741824);

    const limit = create?.adjustment?.linux?.resources?.memory?.limit;
    expectTypeOf(limit).toEqualTypeOf<number | string | undefined>();
    expect(limit).toBe(1073741824);
    expectTypeOf(create?.adjustment?.env).toEqualTypeOf<{ key?: string; value?: string }[] | undefined>();
    expect(create?.adjustment?.env).toEqual([{ key: "SEEN", value: "app" }]);
    // @ts-expect-error a view has the message's fields only
    expect(create?.adjustment?.memoryLimit).toBeUndefined();

    const update = create?.updates[0];
    expectTypeOf(update?.resources?.cpu?.shares).toEqualTypeOf<number | string | undefined>();
    expect([update?.container, update?.resources?.cpu?.shares]).toEqual(["web/side", 512]);
  });
});
