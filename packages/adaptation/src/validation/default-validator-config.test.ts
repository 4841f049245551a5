import { describe, expect, it } from "vitest";
import {
  DefaultValidatorConfigError,
  defaultValidatorConfig,
  parseDefaultValidatorConfig,
} from "./default-validator-config.js";

describe("parseDefaultValidatorConfig", () => {
  it("defaults every switch to off", () => {
    expect(parseDefaultValidatorConfig({})).toStrictEqual(defaultValidatorConfig());
    expect(parseDefaultValidatorConfig("")).toStrictEqual(defaultValidatorConfig());
  });

  it("reads Go's YAML keys", () => {
    const yaml = [
      "enable: true",
      "rejectOCIHookAdjustment: true",
      "rejectRuntimeDefaultSeccompAdjustment: true",
      "rejectUnconfinedSeccompAdjustment: false",
      "rejectCustomSeccompAdjustment: on",
      "rejectNamespaceAdjustment: yes",
      "rejectSysctlAdjustment: true",
      "requiredPlugins: [ foo, 10-bar ]",
      "tolerateMissingPluginsAnnotation: tolerate-missing-plugins.noderesource.dev",
      "somethingElse: 1",
    ].join("\n");
    expect(parseDefaultValidatorConfig(yaml)).toStrictEqual({
      enable: true,
      rejectOCIHookAdjustment: true,
      rejectRuntimeDefaultSeccompAdjustment: true,
      rejectUnconfinedSeccompAdjustment: false,
      rejectCustomSeccompAdjustment: true,
      rejectNamespaceAdjustment: true,
      rejectSysctlAdjustment: true,
      requiredPlugins: ["foo", "10-bar"],
      tolerateMissingPluginsAnnotation: "tolerate-missing-plugins.noderesource.dev",
    });
  });

  it("reads Go's TOML keys from a parsed runtime configuration", () => {
    expect(
      parseDefaultValidatorConfig({
        enable: true,
        reject_oci_hook_adjustment: true,
        reject_runtime_default_seccomp_adjustment: false,
        reject_unconfined_seccomp_adjustment: true,
        reject_custom_seccomp_adjustment: true,
        reject_namespace_adjustment: true,
        reject_sysctl_adjustment: false,
        required_plugins: ["foo"],
        tolerate_missing_plugins_annotation: "tolerate",
      }),
    ).toStrictEqual({
      enable: true,
      rejectOCIHookAdjustment: true,
      rejectRuntimeDefaultSeccompAdjustment: false,
      rejectUnconfinedSeccompAdjustment: true,
      rejectCustomSeccompAdjustment: true,
      rejectNamespaceAdjustment: true,
      rejectSysctlAdjustment: false,
      requiredPlugins: ["foo"],
      tolerateMissingPluginsAnnotation: "tolerate",
    });
  });

  it("treats null as unset", () => {
    expect(parseDefaultValidatorConfig("enable: ~\nrequiredPlugins:\n")).toStrictEqual(defaultValidatorConfig());
  });

  it.each([
    [{ enable: "true" }, 'default validator config: enable must be a boolean, got "true"'],
    [{ required_plugins: "foo" }, 'default validator config: required_plugins must be a list of strings, got "foo"'],
    [{ requiredPlugins: ["a", 1] }, 'default validator config: requiredPlugins must be a list of strings, got ["a",1]'],
    [
      { tolerateMissingPluginsAnnotation: 5 },
      "default validator config: tolerateMissingPluginsAnnotation must be a string, got 5",
    ],
    [
      { rejectSysctlAdjustment: true, reject_sysctl_adjustment: false },
      "default validator config: rejectSysctlAdjustment is given twice, as rejectSysctlAdjustment and reject_sysctl_adjustment",
    ],
    ["[1, 2]", "default validator config: expected a mapping of settings"],
    ["enable: [", "default validator config: "],
  ])("rejects %j", (input, message) => {
    expect(() => parseDefaultValidatorConfig(input)).toThrow(DefaultValidatorConfigError);
    expect(() => parseDefaultValidatorConfig(input)).toThrow(message);
  });

  it("accepts YAML 1.1 words for booleans only in YAML text", () => {
    expect(parseDefaultValidatorConfig("enable: Off").enable).toBe(false);
    expect(() => parseDefaultValidatorConfig({ enable: "on" })).toThrow(DefaultValidatorConfigError);
  });
});

describe("parseDefaultValidatorConfig on hostile nesting", () => {
  it("refuses YAML nested thousands deep with a config error", () => {
    expect(() => parseDefaultValidatorConfig(`requiredPlugins: ${"[".repeat(5000)}`)).toThrow(
      new DefaultValidatorConfigError("default validator config: exceeded max depth of 300"),
    );
  });
});
