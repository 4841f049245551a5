/*
 * A plugin's logs show up in the report the same way whether nri-sim runs
 * it as a plugin object (in this process) or as a module (in a child process).
 */
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";
import infoLogger from "../fixtures/info-logger.js";
import { readableLogLine } from "../report/log-line.js";
import { renderSetup, renderStep } from "../report/render-text.js";
import type { OutputLine } from "../report/report.js";
import { simulate } from "../run/simulate.js";
import { makeStyle } from "../report/style.js";

const module = fileURLToPath(new URL("../fixtures/info-logger.ts", import.meta.url));
const SCENARIO = "pods: [{name: web}]\ncontainers: [{name: app, pod: web}]\nsteps: [{run-pod: web}, {create: app}]\n";
const plain = makeStyle(false);

/**
 * The lines as logged, without the time (which differs between runs) and the
 * program that runs the stub (the test runner, or nri-sim's plugin host).
 */
function logged(output: OutputLine[]): unknown[] {
  return output.map((line) => {
    const { time: _, program: __, ...fields } = JSON.parse(line.text) as Record<string, unknown>;
    expect(fields.plugin).toBe(line.plugin);
    return fields;
  });
}

describe("a plugin's logs in the report", () => {
  it("are the same for a plugin object and a module: info lines included, fields kept", async () => {
    const runs = await Promise.all([
      simulate(SCENARIO, { plugins: [{ plugin: infoLogger, index: "10", name: "logs" }], clock: "virtual" }),
      simulate(SCENARIO, { plugins: [{ module, index: "10", name: "logs" }], clock: "virtual", waitTimeoutMs: 60_000 }),
    ]);
    const [object, moduleRun] = runs.map((report) => {
      expect(report.ok, report.failures.join("\n")).toBe(true);
      return report;
    });
    const create = (report: typeof object) => report.steps[1]!;

    expect(logged(create(object).output)).toEqual([
      { plugin: "10-logs", level: "info", msg: "adjusting", container: "app", pod: "web" },
      { plugin: "10-logs", level: "warn", msg: "no memory limit given" },
    ]);
    expect(logged(create(moduleRun).output)).toEqual(logged(create(object).output));
    expect(create(object).output.map((line) => readableLogLine(line.text))).toEqual([
      "adjusting plugin=10-logs container=app pod=web",
      "warn: no memory limit given plugin=10-logs",
    ]);
    expect(renderStep(create(moduleRun), plain)).toBe(renderStep(create(object), plain));

    // the stub's own start-up lines show under setup, for both
    expect(logged(moduleRun.setup.output)).toEqual(logged(object.setup.output));
    const withoutProgram = (lines: string[]) => lines.map((line) => line.replace(/ program=\S+/g, ""));
    expect(withoutProgram(renderSetup(moduleRun, plain))).toEqual(withoutProgram(renderSetup(object, plain)));
    expect(object.setup.output.map((line) => readableLogLine(line.text))).toContainEqual(
      expect.stringMatching(/^started plugin 10-logs /),
    );
  });
});
