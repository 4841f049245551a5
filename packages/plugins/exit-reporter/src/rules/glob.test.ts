import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { compileGlob, GlobError } from "./glob.js";

describe("compileGlob", () => {
  it.each<[string, string, boolean]>([
    ["registry.example.com/batch/*", "registry.example.com/batch/loader:1.2", true],
    ["registry.example.com/batch/*", "registry.example.com/batch/team/loader:1.2", false],
    ["registry.example.com/**", "registry.example.com/batch/team/loader:1.2", true],
    ["busybox:1.3?", "busybox:1.36", true],
    ["busybox:1.3?", "busybox:1.3", false],
    ["team-[ab]", "team-a", true],
    ["team-[!ab]", "team-a", false],
    ["team-[!ab]", "team-c", true],
    ["team-[a-c]", "team-b", true],
    ["a.b", "axb", false],
    ["a\\*", "a*", true],
    ["a\\*", "ab", false],
    ["(x)+", "(x)+", true],
  ])("%s against %s: %s", (pattern, text, matches) => {
    expect(compileGlob(pattern).test(text)).toBe(matches);
  });

  it.each([
    ["batch/[a-", '"[" at 7 is not closed by "]"'],
    ["batch/[]", '"[" at 7 is not closed by "]"'],
    ["x\\", '"\\" at the end of the pattern'],
    ["[z-a]", "the set at 1: Invalid regular expression: /[z-a]/u: Range out of order in character class"],
  ])("refuses %s: %s", (pattern, message) => {
    expect(() => compileGlob(pattern)).toThrow(new GlobError(message));
  });

  it("matches any text that has no special characters as itself, and never throws but GlobError", () => {
    fc.assert(
      fc.property(fc.string(), (text) => {
        const plain = text.replace(/[*?[\\]/g, "");
        expect(compileGlob(plain).test(plain)).toBe(true);
        try {
          compileGlob(text);
        } catch (error) {
          expect(error).toBeInstanceOf(GlobError);
        }
      }),
    );
  });
});
