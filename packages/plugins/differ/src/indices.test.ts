import { describe, expect, it } from "vitest";
import { IndicesError, parseIndices, registeredIndex } from "./indices.js";

describe("parseIndices", () => {
  it("reads the list in its order, as strconv.Atoi reads each entry, 0 for what it refuses", () => {
    expect(parseIndices("0,99")).toEqual([0, 99]);
    expect(parseIndices("45,+50,080,x, 7,,-3,99999999999999999999")).toEqual([45, 50, 80, 0, 0, 0, -3, 0]);
  });

  it("needs a comma, with Go's text", () => {
    expect(() => parseIndices("10")).toThrow(new IndicesError("There must be at least two index given."));
  });
});

describe("registeredIndex", () => {
  it("formats as %02d", () => {
    expect([0, 5, 45, 100, -3].map(registeredIndex)).toEqual(["00", "05", "45", "100", "-3"]);
  });
});
