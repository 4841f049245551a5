import { ContainerAdjustment, type LinuxRdt } from "@nri-ts/api";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { adjustRdt, RdtAnnotationError } from "./rdt.js";

const rdt = (fields: Partial<LinuxRdt>) => ContainerAdjustment.fromPartial({ linux: { rdt: fields } });
const key = (field: string, container = "app") => `${field}.rdt.noderesource.dev/container.${container}`;

// The six cases of the Go plugin's tests, with our own inputs.
describe("adjustRdt", () => {
  it("sets nothing without annotations", () => {
    expect(adjustRdt("app", {})).toEqual(ContainerAdjustment.fromPartial({}));
  });

  it("sets all three fields", () => {
    const adjustment = adjustRdt("app", {
      [key("closid")]: "gold",
      [key("schemata")]: "L3:0=ff,MB:0=70",
      [key("enablemonitoring")]: "1",
    });
    expect(adjustment).toEqual(
      rdt({
        closId: { value: "gold" },
        schemata: { value: ["L3:0=ff", "MB:0=70"] },
        enableMonitoring: { value: true },
      }),
    );
  });

  it("ignores an unknown field", () => {
    expect(adjustRdt("app", { [key("bandwidth")]: "50" })).toEqual(ContainerAdjustment.fromPartial({}));
  });

  it("sets the known field next to an unknown one", () => {
    expect(adjustRdt("app", { [key("closid")]: "silver", [key("l3")]: "x" })).toEqual(
      rdt({ closId: { value: "silver" } }),
    );
  });

  it("reads only its own container's keys", () => {
    expect(adjustRdt("app", { [key("closid", "db")]: "gold", [key("schemata")]: "MB:0=100" })).toEqual(
      rdt({ schemata: { value: ["MB:0=100"] } }),
    );
  });

  it("fails for a value Go's ParseBool refuses, naming the annotation, and sets nothing", () => {
    expect(() => adjustRdt("app", { [key("closid")]: "gold", [key("enablemonitoring")]: "yes" })).toThrow(
      new RdtAnnotationError(key("enablemonitoring"), 'strconv.ParseBool: parsing "yes": invalid syntax'),
    );
  });
});

describe("what the annotations mean exactly", () => {
  it("takes the schemata as written, split on every comma, and any Go boolean", () => {
    expect(adjustRdt("app", { [key("schemata")]: " L3:0=f, ,MB:0=5," }).linux?.rdt?.schemata?.value).toEqual([
      " L3:0=f",
      " ",
      "MB:0=5",
      "",
    ]);
    for (const [text, value] of [
      ["t", true],
      ["TRUE", true],
      ["True", true],
      ["0", false],
      ["F", false],
      ["false", false],
    ] as const) {
      expect(adjustRdt("app", { [key("enablemonitoring")]: text }).linux?.rdt?.enableMonitoring?.value).toBe(value);
    }
  });

  it("has no pod-wide form, and the field must match exactly", () => {
    expect(
      adjustRdt("app", { "closid.rdt.noderesource.dev/pod": "x", [key("ClosID")]: "y", [`x.${key("closid")}`]: "z" }),
    ).toEqual(ContainerAdjustment.fromPartial({}));
  });

  it("logs what it sets and what it does not know", () => {
    const lines: unknown[][] = [];
    adjustRdt(
      "app",
      { [key("closid")]: "gold", [key("schemata")]: "a,b", [key("enablemonitoring")]: "true", [key("what")]: "?" },
      { info: (...args: unknown[]) => lines.push(args) },
    );
    expect(lines).toEqual([
      [{ closid: "gold" }, "Adjust closid"],
      [{ schemata: ["a", "b"] }, "Adjust schemata"],
      [{ enablemonitoring: true }, "Adjust enablemonitoring"],
      [{ field_name: "what" }, "Unknown rdt field"],
    ]);
  });

  it("never fails otherwise than with an RdtAnnotationError naming the annotation, whatever the annotations", () => {
    const field = fc.constantFrom("closid", "schemata", "enablemonitoring", "other", "");
    const annotations = fc.dictionary(
      fc.oneof(
        field.map((f) => key(f)),
        fc.string(),
      ),
      fc.oneof(fc.string(), fc.constantFrom("true", "false", "1", "0", "yes", "L3:0=f,MB:0=1")),
    );
    fc.assert(
      fc.property(annotations, (values) => {
        try {
          adjustRdt("app", values);
        } catch (error) {
          expect(error).toBeInstanceOf(RdtAnnotationError);
          expect((error as RdtAnnotationError).annotation).toBe(key("enablemonitoring"));
          expect((error as Error).message).toMatch(
            /^enablemonitoring\.rdt\.noderesource\.dev\/container\.app: strconv\.ParseBool: parsing ".*": invalid syntax$/s,
          );
        }
      }),
    );
  });
});
