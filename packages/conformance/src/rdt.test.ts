/*
 * The rdt plugin against Go's.
 *
 * The Go plugin (cmd/plugin-rdt: the upstream plugin restated on the
 * upstream stub and api setters, see its main.go) and ours
 * (@nri-ts/plugin-rdt's nri-rdt) each run, as a runtime launches them,
 * through the same nri-sim scenario: the merged adjustments must be the
 * same, step by step, and the same containers must fail with the same
 * error, ours naming the annotation before Go's text. Then the Go
 * program's decoder mode and our library read the same generated
 * annotations and must give the same RDT settings, or the same error.
 */
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { LinuxRdt } from "@nri-ts/api";
import { adjustRdt, RdtAnnotationError } from "@nri-ts/plugin-rdt";
import { type SimReport, simulate } from "@nri-ts/sim";
import fc from "fast-check";
import { afterAll, beforeAll, expect, it } from "vitest";
import { fixtureCommand, writeLauncher } from "../fixtures/stub/harness.js";
import { describeWithGo, goCommand, goJsonLines, moduleDir } from "./go.js";

/** Our program, run from source the way the fixture plugin is. */
const ourRdt = fixtureCommand([])
  .slice(0, -1)
  .concat(join(moduleDir, "..", "plugins", "rdt", "src", "main.ts"));

/** Ours names the annotation before Go's text: `enablemonitoring.rdt.noderesource.dev/container.x: strconv.ParseBool: ...`. */
const ANNOTATION_PREFIX = /\benablemonitoring\.rdt\.noderesource\.dev\/container\.[^:]*: /;

/** What the runtime saw of each step, with the annotation's name taken out of ours. */
function outcome(report: SimReport) {
  return report.steps.map((s) => ({
    step: s.step,
    ok: s.ok,
    error: s.error?.replace(ANNOTATION_PREFIX, ""),
    adjustment: s.adjustment,
    changes: s.changes,
  }));
}

const key = (field: string, container: string) => `${field}.rdt.noderesource.dev/container.${container}`;

const scenario = `
name: rdt
pods:
  - name: web
    annotations:
      ${key("closid", "app")}: gold
      ${key("schemata", "app")}: "L3:0=f,MB:0=50"
      ${key("enablemonitoring", "app")}: "T"
      ${key("enablemonitoring", "pause")}: "0"
      ${key("enablemonitoring", "bad")}: "yes"
      ${key("closid", "bad")}: silver
      ${key("bandwidth", "odd")}: "10"
      ${key("schemata", "odd")}: ""
      closid.rdt.noderesource.dev/pod: ignored
containers: [{name: app, pod: web}, {name: pause, pod: web}, {name: bad, pod: web}, {name: odd, pod: web}, {name: plain, pod: web}]
steps: [{run-pod: web}, {create: app}, {create: pause}, {create: bad}, {create: odd}, {create: plain}]
`;

interface Answer {
  rdt?: unknown;
  error?: string;
}

/** Our answer in the Go program's shape, with Go's error text (ours without the annotation's name). */
function ours(annotations: Record<string, string>): Answer & { annotation?: string } {
  try {
    const rdt = adjustRdt("c", annotations).linux?.rdt;
    return { rdt: rdt === undefined ? null : LinuxRdt.toJSON(rdt) };
  } catch (error) {
    if (!(error instanceof RdtAnnotationError)) throw error;
    return { error: error.reason, annotation: error.annotation };
  }
}

describeWithGo("rdt: ours and Go's", () => {
  let goBin: string;
  let dir: string;

  beforeAll(async () => {
    goBin = await goCommand("plugin-rdt");
    dir = await mkdtemp(join(tmpdir(), "nri-rdt-conformance-"));
  });

  afterAll(() => rm(dir, { recursive: true, force: true }));

  it("adjust the same containers alike, and fail the same ones with the same errors, under nri-sim", async () => {
    const runWith = async (command: string[]) => {
      const plugins = await mkdtemp(join(dir, "plugins-"));
      await writeLauncher(plugins, "10-rdt", command);
      return simulate(scenario, { pluginDir: plugins, clock: "virtual" });
    };
    const [go, ts] = [await runWith([goBin]), await runWith(ourRdt)];
    expect(outcome(ts)).toEqual(outcome(go));

    // What the comparison covered, spelled out.
    expect(go.steps.map((s) => s.ok)).toEqual([true, true, true, false, true, true]);
    expect(go.steps[1].adjustment).toEqual({
      linux: { rdt: { closId: "gold", schemata: ["L3:0=f", "MB:0=50"], enableMonitoring: true } },
    });
    expect(go.steps[2].adjustment).toEqual({ linux: { rdt: { enableMonitoring: false } } });
    expect(go.steps[3].error).toContain('strconv.ParseBool: parsing "yes": invalid syntax');
    expect(ts.steps[3].error).toContain(
      `${key("enablemonitoring", "bad")}: strconv.ParseBool: parsing "yes": invalid syntax`,
    );
    expect(go.steps[4].adjustment).toEqual({ linux: { rdt: { schemata: [""] } } });
    expect(go.steps[5].adjustment).toEqual({});
  });

  it("read the same generated annotations alike", async () => {
    const field = fc.constantFrom("closid", "schemata", "enablemonitoring", "ClosID", "l3", "");
    const value = fc.oneof(
      fc.constantFrom(
        "true",
        "false",
        "1",
        "0",
        "t",
        "F",
        "TRUE",
        "True",
        "yes",
        "on",
        " true",
        "",
        "L3:0=f,MB:0=50",
        ",",
        "a,,b",
      ),
      fc.string({ maxLength: 8 }),
    );
    const annotationKey = fc.oneof(
      { weight: 6, arbitrary: field.map((f) => key(f, "c")) },
      { weight: 1, arbitrary: field.map((f) => key(f, "other")) },
      { weight: 1, arbitrary: fc.string({ maxLength: 10 }) },
    );
    const values = fc.sample(fc.dictionary(annotationKey, value, { maxKeys: 4 }), { numRuns: 1000, seed: 20261201 });
    const answers = await goJsonLines<Answer>(
      goBin,
      ["-decode"],
      values.map((annotations) => ({ container: "c", annotations })),
    );
    const mismatches = values
      .map((annotations, i) => ({ annotations, go: answers[i], ours: ours(annotations) }))
      .filter(
        ({ go, ours: { annotation, ...mine } }) =>
          JSON.stringify(go) !== JSON.stringify(mine) ||
          (go.error !== undefined && annotation !== key("enablemonitoring", "c")),
      );
    expect(mismatches.slice(0, 3)).toEqual([]);
    const count = (test: (a: Answer) => boolean) => answers.filter(test).length;
    // with this seed, of the 1000 annotation sets 377 set RDT fields, 160 fail and 463 set nothing
    expect({
      set: count((a) => a.rdt !== undefined && a.rdt !== null),
      failed: count((a) => a.error !== undefined),
    }).toEqual({ set: 377, failed: 160 });
  });
});
