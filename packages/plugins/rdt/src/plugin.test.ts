import { simulate } from "@nri-ts/sim";
import { describe, expect, it } from "vitest";
import { createRdtPlugin } from "./plugin.js";

describe("the rdt plugin under nri-sim", () => {
  it("sets the annotated RDT fields, fails the container whose annotation is wrong, and keeps serving the others", async () => {
    const report = await simulate(
      `
pods:
  - name: web
    annotations:
      closid.rdt.noderesource.dev/container.app: gold
      schemata.rdt.noderesource.dev/container.app: "L3:0=f,MB:0=50"
      enablemonitoring.rdt.noderesource.dev/container.pause: "true"
      enablemonitoring.rdt.noderesource.dev/container.bad: "on"
containers: [{name: app, pod: web}, {name: pause, pod: web}, {name: bad, pod: web}, {name: plain, pod: web}]
steps: [{run-pod: web}, {create: app}, {create: pause}, {create: bad}, {create: plain}]
`,
      { plugins: [{ plugin: createRdtPlugin(), index: "10", name: "rdt" }], clock: "virtual" },
    );
    const [, app, pause, bad, plain] = report.steps;
    expect(report.steps.map((s) => s.events.map((e) => e.event))).toEqual([[], ...Array(4).fill(["CreateContainer"])]);
    expect(app.adjustment).toEqual({ linux: { rdt: { closId: "gold", schemata: ["L3:0=f", "MB:0=50"] } } });
    expect(pause.adjustment).toEqual({ linux: { rdt: { enableMonitoring: true } } });
    expect(bad.ok).toBe(false);
    expect(bad.error).toContain(
      'enablemonitoring.rdt.noderesource.dev/container.bad: strconv.ParseBool: parsing "on": invalid syntax',
    );
    expect(plain.ok).toBe(true);
    expect(plain.adjustment).toEqual({});
  });
});
