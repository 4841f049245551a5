import { describe, expect, it } from "vitest";
import {
  DEVEL_NRI_VERSION,
  inferRuntimeNriVersion,
  isUnknownNriVersion,
  NRI_VERSION,
  runtimeAppliesFailurePolicy,
  UNKNOWN_NRI_VERSION,
  VersionInferenceError,
} from "./version.js";

describe("inferRuntimeNriVersion", () => {
  // Expected results as api.InferVersionFromRuntime of github.com/containerd/nri v0.12.5 returns them.
  it.each([
    ["containerd", "v2.2.0", "v0.10.0"],
    ["containerd", "v2.2.1", "v0.11.0"],
    ["containerd", "v2.3.0", "v0.11.0"],
    ["containerd", "v1.7.13", "v0.4.0"],
    ["containerd", "v1.7.99", "v0.8.0"],
    ["containerd", "v2", "v0.8.0"],
    ["containerd", "v2.1", "v0.8.0"],
    ["containerd", "v2.2.0-225-ge9dc15b7a.m", "v0.10.0"],
    ["containerd", "v2.2.0-01-gabc", "v0.10.0"],
    ["containerd", "v2.2.1-rc.1", "v0.10.0"],
    // Not a git describe suffix to Go: the hash overflows 64 bits, is not hex, or the count has a sign.
    ["containerd", "v2.2.0-1-gabcdef0123456789abcdef", "v0.8.0"],
    ["containerd", "v2.2.0-1-gxyz", "v0.8.0"],
    ["containerd", "v2.2.0-1-g-5", "v0.8.0"],
    // Since v0.12.5 a git describe suffix: hash and count are unsigned 64-bit numbers.
    ["containerd", "v2.2.0-1-gffffffffffffffff", "v0.10.0"],
    ["containerd", "v2.2.0-18446744073709551615-gabc", "v0.10.0"],
    ["containerd", "v2.2.0-18446744073709551616-gabc", "v0.8.0"],
    ["cri-o", "v1.33.4", "v0.9.1-0.20250219030224-e597e7849f24"],
    ["cri-o", "v1.34.2+dev", "v0.10.0"],
    ["cri-o", "v1.27.0", "v0.3.0"],
    ["cri-o", "v1.26.4", "v0.3.1-0.20230504231226-94185418e253"],
    ["cri-o", "v1.36.0", "v0.11.0"],
  ])("%s %s → %s", (runtime, version, nri) => {
    expect(inferRuntimeNriVersion(runtime, version)).toBe(nri);
  });

  it.each([
    ["docker", "v1.0.0", `can't infer version for unknown runtime "docker"`],
    ["Containerd", "v2.2.0", `can't infer version for unknown runtime "Containerd"`],
    ["toString", "v2.2.0", `can't infer version for unknown runtime "toString"`],
    ["containerd", "2.2.0", `failed to find latest version for "2.2.0"`],
    ["containerd", "v1.6.9", `failed to find latest version for "v1.6.9"`],
    ["containerd", "", `failed to find latest version for ""`],
    ["cri-o", "1.34.0", `failed to find latest version for "1.34.0"`],
    ["containerd", "2.2.0\u0001é", `failed to find latest version for "2.2.0\\x01é"`],
  ])("%s %j fails like Go", (runtime, version, text) => {
    expect(() => inferRuntimeNriVersion(runtime, version)).toThrow(new VersionInferenceError(text));
  });

  it("throws a typed error", () => {
    expect(() => inferRuntimeNriVersion("podman", "v5.0.0")).toThrow(VersionInferenceError);
  });
});

describe("NRI versions", () => {
  it("speaks v0.12.5", () => {
    expect(NRI_VERSION).toBe("v0.12.5");
  });

  it("knows which reported versions say nothing", () => {
    expect(["", DEVEL_NRI_VERSION, UNKNOWN_NRI_VERSION, "v0.10.0"].map(isUnknownNriVersion)).toEqual([
      true,
      true,
      true,
      false,
    ]);
    expect(UNKNOWN_NRI_VERSION).toBe("0.0.0-unknown");
    expect(DEVEL_NRI_VERSION).toBe("(devel)");
  });
});

describe("runtimeAppliesFailurePolicy", () => {
  it.each([
    ["v0.12.5", true],
    ["v0.12.4", true],
    ["v0.13.0", true],
    ["v0.12.3", false],
    ["v0.12.4-rc.1", false],
    ["v0.10.0", false],
    ["unknown", false],
    ["", false],
  ])("%s → %s", (version, applies) => {
    expect(runtimeAppliesFailurePolicy(version)).toBe(applies);
  });
});
