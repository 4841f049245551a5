import { describe, expect, it } from "vitest";
import { decodeConfig, defaultConfig, LoggerConfigError } from "./config.js";

describe("decodeConfig", () => {
  it("decodes over the flags, keys in any case, unknown keys ignored", () => {
    const base = { ...defaultConfig(), addEnv: "FROM_FLAG", logFile: "/tmp/a.log" };
    expect(
      decodeConfig(
        "LogFile: /var/log/nri.log\nevents: [CreateContainer, 'StopContainer,RemoveContainer']\nSETANNOTATION: example.com/logger\nsomething: else\n",
        base,
      ),
    ).toEqual({
      logFile: "/var/log/nri.log",
      events: ["CreateContainer", "StopContainer,RemoveContainer"],
      addAnnotation: "",
      setAnnotation: "example.com/logger",
      addEnv: "FROM_FLAG",
      setEnv: "",
    });
  });

  it("takes numbers and booleans as text, with YAML 1.1 booleans", () => {
    expect(decodeConfig("addEnv: 42\nsetEnv: yes\n", defaultConfig())).toMatchObject({ addEnv: "42", setEnv: "true" });
  });

  it("keeps everything for an empty document", () => {
    expect(decodeConfig("", { ...defaultConfig(), addEnv: "X" }).addEnv).toBe("X");
  });

  it("refuses wrong shapes, in the Go logger's words", () => {
    const json =
      "failed to parse provided configuration: error unmarshaling JSON: while decoding JSON: json: cannot unmarshal";
    expect(() => decodeConfig("events: CreateContainer\n", defaultConfig())).toThrow(
      new LoggerConfigError(`${json} string into Go struct field config.events of type []string`),
    );
    expect(() => decodeConfig("addEnv: [a]\n", defaultConfig())).toThrow(
      `${json} array into Go struct field config.addEnv of type string`,
    );
    expect(() => decodeConfig("- a\n", defaultConfig())).toThrow(`${json} array into Go value of type main.config`);
    expect(() => decodeConfig("a: [\n", defaultConfig())).toThrow(
      /^failed to parse provided configuration: error converting YAML to JSON: yaml: /,
    );
  });
});

describe("decodeConfig on hostile nesting", () => {
  it("refuses YAML nested thousands deep with a configuration error", () => {
    expect(() => decodeConfig(`events: ${"[".repeat(5000)}`, defaultConfig())).toThrow(
      new LoggerConfigError(
        "failed to parse provided configuration: error converting YAML to JSON: yaml: exceeded max depth of 300",
      ),
    );
  });
});
