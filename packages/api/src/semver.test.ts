import { describe, expect, it } from "vitest";
import { compareSemVer, parseSemVer } from "./semver.js";

describe("parseSemVer (Go's golang.org/x/mod/semver rules)", () => {
  it("reads full and short forms", () => {
    expect(parseSemVer("v1.2.3-rc.1+build.5")).toEqual({
      major: 1n,
      minor: 2n,
      patch: 3n,
      prerelease: "-rc.1",
      build: "+build.5",
    });
    expect(parseSemVer("v2")).toMatchObject({ major: 2n, minor: 0n, patch: 0n, prerelease: "" });
    expect(parseSemVer("v2.1")).toMatchObject({ minor: 1n, patch: 0n });
  });

  it.each(["1.2.3", "v1.2-rc", "v01.2.3", "v1.2.3-01", "v1.2.3-", "v1.2.3-a..b", "v1.2.3+", "v1.2.3.4", ""])(
    "rejects %j",
    (version) => {
      expect(parseSemVer(version)).toBeUndefined();
    },
  );

  it("accepts numeric build identifiers with leading zeros and prerelease identifiers with hyphens", () => {
    expect(parseSemVer("v1.0.0+001")).toBeDefined();
    expect(parseSemVer("v1.0.0-225-ge9dc15b7a.m")).toMatchObject({ prerelease: "-225-ge9dc15b7a.m" });
  });
});

describe("compareSemVer", () => {
  it("orders prereleases as semver says", () => {
    const ordered = [
      "v1.0.0-alpha",
      "v1.0.0-alpha.1",
      "v1.0.0-alpha.beta",
      "v1.0.0-beta",
      "v1.0.0-beta.2",
      "v1.0.0-beta.11",
      "v1.0.0-rc.1",
      "v1.0.0",
      "v1.0.1",
      "v1.1",
      "v2",
      "v10.0.0",
    ];
    for (let i = 0; i + 1 < ordered.length; i++) {
      expect(compareSemVer(ordered[i]!, ordered[i + 1]!)).toBe(-1);
      expect(compareSemVer(ordered[i + 1]!, ordered[i]!)).toBe(1);
    }
  });

  it("ignores build metadata and puts invalid versions first", () => {
    expect(compareSemVer("v1.0.0+a", "v1.0.0+b")).toBe(0);
    expect(compareSemVer("v2", "v2.0.0")).toBe(0);
    expect(compareSemVer("junk", "v0.0.1")).toBe(-1);
    expect(compareSemVer("v0.0.1", "junk")).toBe(1);
    expect(compareSemVer("junk", "1.0.0")).toBe(0);
  });
});
