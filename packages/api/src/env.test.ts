import { describe, expect, it } from "vitest";
import { envToKeyValues, keyValuesToEnv, keyValueToEnv, parseEnvEntry } from "./env.js";
import { ContainerAdjustment } from "./gen/nri/pkg/api/v1alpha1/api.js";

/*
 * Expected values from the Go reference: github.com/containerd/nri v0.12.5's
 * api.FromOCIEnv on this input, and KeyValue.ToOCI on each of its results
 * (a scratch Go module printing them as JSON; omitempty left out "" fields).
 */
const GO_INPUT = ["PATH=/usr/bin", "OPTS=a=b=c", "EMPTY", "", "=x", "K=", "-GONE=1", "SP ACE= v "];
const GO_PAIRS = [
  { key: "PATH", value: "/usr/bin" },
  { key: "OPTS", value: "a=b=c" },
  { key: "EMPTY", value: "" },
  { key: "", value: "" },
  { key: "", value: "x" },
  { key: "K", value: "" },
  { key: "-GONE", value: "1" },
  { key: "SP ACE", value: " v " },
];
const GO_ENTRIES = ["PATH=/usr/bin", "OPTS=a=b=c", "EMPTY=", "=", "=x", "K=", "-GONE=1", "SP ACE= v "];

describe("env entries and key-value pairs", () => {
  it("split as Go's FromOCIEnv does: at the first '=', an entry without one a name with an empty value", () => {
    expect(envToKeyValues(GO_INPUT)).toEqual(GO_PAIRS);
    expect(envToKeyValues([])).toEqual([]);
  });

  it("join as Go's KeyValue.ToOCI does, so an entry without '=' comes back with one", () => {
    expect(keyValuesToEnv(GO_PAIRS)).toEqual(GO_ENTRIES);
    expect(keyValueToEnv({ key: "EMPTY", value: "" })).toBe("EMPTY=");
  });

  it("feed an adjustment: a container's variable, changed, as the runtime gets it", () => {
    const container = { env: ["PATH=/usr/bin", "JAVA_OPTS=-Xmx1g -Dkey=value", "DEBUG"] };
    const opts = envToKeyValues(container.env).find((variable) => variable.key === "JAVA_OPTS");
    expect(opts?.value).toBe("-Xmx1g -Dkey=value");
    const adjustment = ContainerAdjustment.fromPartial({ env: [{ key: "JAVA_OPTS", value: `${opts?.value} -Xss4m` }] });
    expect(keyValuesToEnv(adjustment.env)).toEqual(["JAVA_OPTS=-Xmx1g -Dkey=value -Xss4m"]);
  });

  it("keep every character of a name and a value", () => {
    expect(parseEnvEntry("A B=\u00e9=\n")).toEqual({ key: "A B", value: "\u00e9=\n" });
  });
});
