import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { markForRemoval, parseRemovalMarker } from "./markers.js";

describe("removal markers", () => {
  it.each([
    ["-key", { key: "key", marked: true }],
    ["key", { key: "key", marked: false }],
    ["--key", { key: "-key", marked: true }],
    ["-", { key: "", marked: true }],
    ["", { key: "", marked: false }],
  ])("reads %j", (text, expected) => {
    expect(parseRemovalMarker(text)).toStrictEqual(expected);
  });

  it("marks by prefixing one '-', which parsing strips again", () => {
    fc.assert(
      fc.property(fc.string(), (key) => {
        expect(markForRemoval(key)).toBe(`-${key}`);
        expect(parseRemovalMarker(markForRemoval(key))).toStrictEqual({ key, marked: true });
      }),
    );
  });
});
