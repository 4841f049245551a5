import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { clearRemovalMarker, isMarkedForRemoval, markForRemoval, parseRemovalMarker } from "./removal.js";

describe("removal markers", () => {
  it("prefix one dash and strip only the first", () => {
    expect(markForRemoval("foo")).toBe("-foo");
    expect(markForRemoval("-foo")).toBe("--foo");
    expect(clearRemovalMarker("--foo")).toBe("-foo");
    expect(clearRemovalMarker("foo")).toBe("foo");
  });

  it("never mark the empty string", () => {
    expect(isMarkedForRemoval("")).toBe(false);
    expect(clearRemovalMarker("")).toBe("");
    expect(isMarkedForRemoval("-")).toBe(true);
    expect(clearRemovalMarker("-")).toBe("");
  });

  it.each([
    ["-key", { key: "key", marked: true }],
    ["key", { key: "key", marked: false }],
    ["--key", { key: "-key", marked: true }],
    ["-", { key: "", marked: true }],
    ["", { key: "", marked: false }],
  ])("parse %j", (text, expected) => {
    expect(parseRemovalMarker(text)).toStrictEqual(expected);
  });

  it("parse what marking made back into the key", () => {
    fc.assert(
      fc.property(fc.string(), (key) => {
        expect(parseRemovalMarker(markForRemoval(key))).toStrictEqual({ key, marked: true });
      }),
    );
  });
});
