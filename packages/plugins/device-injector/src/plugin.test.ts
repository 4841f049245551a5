import { type SimReport, simulate } from "@nri-ts/sim";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { type AnnotationKind, KINDS } from "./annotations.js";
import { deviceAdjustment } from "./inject.js";
import { DeviceInjectorError } from "./parse.js";
import { plugin } from "./index.js";

describe("the device-injector under nri-sim", () => {
  it("injects into the annotated containers, fails the badly annotated one and keeps serving", async () => {
    const report: SimReport = await simulate(
      `
pods:
  - name: web
    annotations:
      devices.noderesource.dev/container.c0: "- {path: /dev/nri-null, type: c, major: 1, minor: 3}"
      mounts.noderesource.dev/container.bad: "- {source: /home, options: bind}"
containers: [{name: c0, pod: web}, {name: bad, pod: web}, {name: c2, pod: web}]
steps: [{run-pod: web}, {create: c0}, {create: bad}, {create: c2}]
`,
      { plugins: [{ plugin: plugin(), name: "device-injector", index: "10" }], clock: "virtual" },
    );
    expect(report.steps.map((s) => s.ok)).toEqual([true, true, false, true]);
    expect(report.steps[1].adjustment).toEqual({
      linux: { devices: [{ path: "/dev/nri-null", type: "c", major: 1, minor: 3 }] },
    });
    expect(report.steps[2].error).toContain(
      'invalid mount annotation "- {source: /home, options: bind}": error unmarshaling JSON: while decoding JSON: json: cannot unmarshal string into Go struct field mount.options of type []string',
    );
  });
});

describe("the device-injector on arbitrary annotations", () => {
  const keys = Object.values(KINDS).flatMap((kind: AnnotationKind) =>
    [kind.key, kind.legacyKey ?? kind.key].flatMap((k) => [k, `${k}/pod`, `${k}/container.c0`]),
  );
  const value = fc.oneof(
    fc.string(),
    fc.stringMatching(/^[-:{}[\]&*!<>|"'#,.~ \n\ta-z0-9_+]{0,60}$/),
    fc.constantFrom(
      "- {path: /dev/x, major: 1}",
      "class: IOPRIO_CLASS_RT",
      "mode: MPOL_BIND",
      "- ~",
      "a: 1",
      "- [a]",
      "{{",
    ),
  );

  it("never fails otherwise than with a DeviceInjectorError naming the annotation kind and the problem", () => {
    fc.assert(
      fc.property(fc.dictionary(fc.constantFrom(...keys), value, { maxKeys: 6 }), (annotations) => {
        try {
          deviceAdjustment({ name: "p", annotations }, { name: "c0" });
        } catch (error) {
          expect(error).toBeInstanceOf(DeviceInjectorError);
          expect((error as Error).message).toMatch(
            /^invalid (device|CDI device|mount|I\/O priority|scheduler|net device|sysctl|memory policy)( annotation "[\s\S]*":|:) ./,
          );
        }
      }),
      { numRuns: 3000 },
    );
  });
});
