import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { goQuote, goQuoteRune, goTrimSpace, ParseBoolError, parseGoBool } from "./go-text.js";

describe("goQuote (Go's %q)", () => {
  it.each([
    ["10-foo", '"10-foo"'],
    ["", '""'],
    ['say "hi"\\', '"say \\"hi\\"\\\\"'],
    ["a\nb\tc\r\x07\b\f\v", '"a\\nb\\tc\\r\\a\\b\\f\\v"'],
    ["\x00\x1f\x7f", '"\\x00\\x1f\\x7f"'],
    ["héllo wörld ✓", '"héllo wörld ✓"'],
    ["\u00a0\u200b\u2028", '"\\u00a0\\u200b\\u2028"'],
    ["😀", '"😀"'],
    ["\u{e0001}", '"\\U000e0001"'],
    ["\ud800", '"\ufffd"'],
  ])("quotes %j as %s", (input, quoted) => {
    expect(goQuote(input)).toBe(quoted);
  });

  it("agrees with JSON for printable ASCII", () => {
    fc.assert(
      fc.property(
        fc.string({ unit: fc.integer({ min: 0x20, max: 0x7e }).map((c) => String.fromCharCode(c)) }),
        (text) => {
          expect(goQuote(text)).toBe(JSON.stringify(text));
        },
      ),
    );
  });
});

describe("parseGoBool (Go's strconv.ParseBool)", () => {
  it.each(["1", "t", "T", "TRUE", "true", "True"])("reads %s as true", (text) => {
    expect(parseGoBool(text)).toBe(true);
  });

  it.each(["0", "f", "F", "FALSE", "false", "False"])("reads %s as false", (text) => {
    expect(parseGoBool(text)).toBe(false);
  });

  it.each(["", "yes", "tRUE", " true", "2"])("rejects %j with Go's text", (text) => {
    expect(() => parseGoBool(text)).toThrow(new ParseBoolError(text));
    expect(() => parseGoBool(text)).toThrow(`strconv.ParseBool: parsing ${JSON.stringify(text)}: invalid syntax`);
  });
});

describe("goQuoteRune (Go's %q of a rune)", () => {
  it.each([
    ["a", "'a'"],
    ["'", "'\\''"],
    ['"', `'"'`],
    ["\\", "'\\\\'"],
    ["\t", "'\\t'"],
    ["\x00", "'\\x00'"],
    ["\u200b", "'\\u200b'"],
    ["✓", "'✓'"],
  ])("quotes %j as %s", (input, quoted) => {
    expect(goQuoteRune(input)).toBe(quoted);
  });
});

describe("goTrimSpace (Go's strings.TrimSpace)", () => {
  it.each([
    [" \t\n pod \r\v\f", "pod"],
    ["\u0085pod\u00a0", "pod"],
    ["\u3000pod\u2028", "pod"],
    ["\ufeffpod", "\ufeffpod"],
    ["p o d", "p o d"],
    ["", ""],
  ])("trims %j to %j", (input, trimmed) => {
    expect(goTrimSpace(input)).toBe(trimmed);
  });
});
