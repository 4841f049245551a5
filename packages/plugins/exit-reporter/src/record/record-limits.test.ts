import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { limitText, RECORD_LIMITS, truncateWords } from "./record-limits.js";

describe("limitText", () => {
  it("cuts a text to its limit once, as the runtime side cuts plugins' texts, and a cut text not again", () => {
    expect(limitText("short", 100)).toBe("short");
    const cut = limitText("m".repeat(1_000_000), 100);
    expect(cut).toBe(`${"m".repeat(100)}… [999900 more bytes]`);
    expect(limitText(cut, 100)).toBe(cut);
  });
});

describe("truncateWords", () => {
  it("keeps the words that fit, cuts the first that does not, and counts the ones left out", () => {
    expect(truncateWords(["sh", "-c", "run"], 100)).toEqual(["sh", "-c", "run"]);
    expect(truncateWords(["sh", "-c", "y".repeat(500), "a", "b"], 200)).toEqual([
      "sh",
      "-c",
      `${"y".repeat(121)}… [379 more bytes]`,
      "… [2 more words]",
    ]);
    // too little room left to cut the word: it goes with the others
    expect(truncateWords(["sh", "-c", "y".repeat(500), "a", "b"], 120)).toEqual(["sh", "-c", "… [3 more words]"]);
    // a million empty words: each counts as its space
    const empty = truncateWords(Array(1_000_000).fill(""), RECORD_LIMITS.command);
    expect(empty).toHaveLength(4065);
    expect(empty.at(-1)).toBe("… [995936 more words]");
  });

  it("gives words that fit, so that cutting them again changes nothing", () => {
    fc.assert(
      fc.property(
        fc.array(fc.string({ unit: "grapheme", maxLength: 200 }), { maxLength: 40 }),
        fc.integer({ min: 120, max: 2000 }),
        (words, max) => {
          const cut = truncateWords(words, max);
          expect(cut.reduce((sum, word) => sum + Buffer.byteLength(word) + 1, 0)).toBeLessThanOrEqual(max);
          expect(truncateWords(cut, max)).toEqual(cut);
          if (!cut.at(-1)?.startsWith("… [")) expect(cut).toEqual(words);
        },
      ),
    );
  });
});
