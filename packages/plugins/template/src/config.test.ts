import { describe, expect, it } from "vitest";
import { decodeTemplateConfig, TemplateConfigError } from "./config.js";

describe("decodeTemplateConfig", () => {
  it("reads cfgParam1 with the Go template's leniency", () => {
    expect(decodeTemplateConfig("cfgParam1: hello\n")).toEqual({ cfgParam1: "hello" });
    expect(decodeTemplateConfig("CFGPARAM1: 42\nother: ignored\n")).toEqual({ cfgParam1: "42" });
    expect(decodeTemplateConfig("cfgParam1: yes\n")).toEqual({ cfgParam1: "true" });
    expect(decodeTemplateConfig("cfgParam1:\n")).toEqual({ cfgParam1: "" });
    expect(decodeTemplateConfig("# nothing\n")).toEqual({ cfgParam1: "" });
  });

  it("refuses what Go's decoder refuses, in its words", () => {
    expect(() => decodeTemplateConfig("cfgParam1: [a]\n")).toThrow(
      new TemplateConfigError(
        "failed to parse configuration: error unmarshaling JSON: while decoding JSON: json: cannot unmarshal array into Go struct field config.cfgParam1 of type string",
      ),
    );
    expect(() => decodeTemplateConfig("- cfgParam1\n")).toThrow(
      "failed to parse configuration: error unmarshaling JSON: while decoding JSON: json: cannot unmarshal array into Go value of type main.config",
    );
    expect(() => decodeTemplateConfig("cfgParam1: [\n")).toThrow(/^failed to parse configuration: /);
  });

  it("reads the update demonstration, ours, off unless CPU shares are given", () => {
    expect(decodeTemplateConfig("updates: {cpuShares: 512, unsolicited: true}\n")).toEqual({
      cfgParam1: "",
      updates: { cpuShares: 512n, unsolicited: true },
    });
    expect(decodeTemplateConfig("updates: {unsolicited: true}\n")).toEqual({ cfgParam1: "" });
    const json = "failed to parse configuration: error unmarshaling JSON: while decoding JSON: json: cannot unmarshal";
    expect(() => decodeTemplateConfig("updates: {cpuShares: -1}\n")).toThrow(
      `${json} number -1 into Go struct field updateDemo.updates.cpuShares of type uint64`,
    );
    expect(() => decodeTemplateConfig("updates: {cpuShares: 2, unsolicited: maybe}\n")).toThrow(
      `${json} string into Go struct field updateDemo.updates.unsolicited of type bool`,
    );
    expect(() => decodeTemplateConfig("updates: [1]\n")).toThrow(
      `${json} array into Go struct field config.updates of type main.updateDemo`,
    );
  });
});

describe("decodeTemplateConfig on hostile nesting", () => {
  it("refuses YAML nested thousands deep with a configuration error", () => {
    expect(() => decodeTemplateConfig(`cfgParam1: ${"[".repeat(5000)}`)).toThrow(TemplateConfigError);
    expect(() => decodeTemplateConfig(`cfgParam1: ${"[".repeat(5000)}`)).toThrow(/exceeded max depth of 300/);
  });
});
