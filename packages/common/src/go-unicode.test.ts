import { describe, expect, it } from "vitest";
import { isGoDigit, isGoLetter, isGoPrint } from "./go-unicode.js";
import { GO_UNICODE_VERSION } from "./go-unicode-tables.js";

describe("Go's Unicode classes", () => {
  it("are Go's Unicode 15.0.0 tables, not the engine's", () => {
    expect(GO_UNICODE_VERSION).toBe("15.0.0");
    // Egyptian hieroglyphs of Unicode 16: letters to Node.js 22 and later, unassigned to Go.
    expect([isGoLetter("\u{141ea}"), isGoPrint("\u{141ea}")]).toEqual([false, false]);
    expect(/\p{L}/u.test("\u{141ea}")).toBe(true);
  });

  it.each([
    ["a", true, false, true],
    ["é", true, false, true],
    ["中", true, false, true],
    ["7", false, true, true],
    ["٣", false, true, true],
    [" ", false, false, true],
    ["\u00a0", false, false, false],
    ["\t", false, false, false],
    ["\u0085", false, false, false],
    ["😀", false, false, true],
    ["\u{10ffff}", false, false, false],
    ["\ufeff", false, false, false],
    ["-", false, false, true],
  ])("%j: letter %s, digit %s, printable %s", (rune, letter, digit, print) => {
    expect([isGoLetter(rune), isGoDigit(rune), isGoPrint(rune)]).toEqual([letter, digit, print]);
  });
});
