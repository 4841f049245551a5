import { readFile } from "node:fs/promises";
import { simulate } from "@nri-ts/sim";
import { expect, it } from "vitest";
import { plugin, SEEN_BY } from "./plugin.js";

const scenario = await readFile(new URL("../scenario.yaml", import.meta.url), "utf8");

it("meets the scenario's expectations", async () => {
  const report = await simulate(scenario, { plugins: [{ plugin, index: "10", name: "{{name}}" }], clock: "virtual" });
  expect(report.ok, report.failures.join("\n")).toBe(true);
  const created = report.steps.find((step) => step.step === "create app");
  expect(created?.changes).toContainEqual(
    expect.objectContaining({ field: "Annotations", key: SEEN_BY, owner: "10-{{name}}" }),
  );
});
