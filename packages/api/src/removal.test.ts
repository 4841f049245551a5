import { describe, expect, it } from "vitest";
import { clearRemovalMarker, isMarkedForRemoval, markForRemoval } from "./removal.js";

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
});
