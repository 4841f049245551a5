import { describe, expect, it } from "vitest";
import {
  checkPluginIndex,
  checkPluginName,
  formatPluginName,
  InvalidPluginIndexError,
  InvalidPluginNameError,
  parsePluginName,
} from "./plugin.js";

/** The error text, or "" when the call succeeds. */
function errorText(call: () => unknown): string {
  try {
    call();
    return "";
  } catch (error) {
    return (error as Error).message;
  }
}

// Every expected text below is what github.com/containerd/nri v0.12.2 returns for the same input.
describe("checkPluginIndex", () => {
  it.each([
    ["00", ""],
    ["99", ""],
    ["1", 'invalid plugin index "1", must be 2 digits'],
    ["123", 'invalid plugin index "123", must be 2 digits'],
    ["", 'invalid plugin index "", must be 2 digits'],
    ["x", 'invalid plugin index "x", must be 2 digits'],
    ["a1", 'invalid plugin index "a1" (not [0-9][0-9])'],
    ["1a", 'invalid plugin index "1a" (not [0-9][0-9])'],
    // Two Arabic-Indic digits: two characters, but four bytes, which is what Go counts.
    ["٠١", 'invalid plugin index "٠١", must be 2 digits'],
  ])("%j → %j", (index, text) => {
    expect(errorText(() => checkPluginIndex(index))).toBe(text);
  });

  it("throws a typed error carrying the index", () => {
    expect(() => checkPluginIndex("7")).toThrow(InvalidPluginIndexError);
    expect(errorOf(() => checkPluginIndex("7"))).toMatchObject({ name: "InvalidPluginIndexError", index: "7" });
  });
});

describe("checkPluginName", () => {
  it.each([
    ["foo", ""],
    ["a-b_c.d+e", ""],
    ["10-foo", ""],
    ["", "invalid plugin name: name is empty"],
    ["foo bar", `invalid plugin name "foo bar": contains invalid character ' '`],
    ["x/y", `invalid plugin name "x/y": contains invalid character '/'`],
    ["ünï", `invalid plugin name "ünï": contains invalid character 'ü'`],
    ["foo,bar", `invalid plugin name "foo,bar": contains invalid character ','`],
  ])("%j → %j", (name, text) => {
    expect(errorText(() => checkPluginName(name))).toBe(text);
  });

  it("throws a typed error carrying the name", () => {
    expect(errorOf(() => checkPluginName("a b"))).toMatchObject({
      name: "InvalidPluginNameError",
      pluginName: "a b",
    });
  });
});

function errorOf(call: () => unknown): unknown {
  try {
    call();
  } catch (error) {
    return error;
  }
  throw new Error("no error thrown");
}

describe("parsePluginName", () => {
  it.each([
    ["10-foo", { index: "10", name: "foo" }],
    ["10-foo-bar", { index: "10", name: "foo-bar" }],
    ["10-", { index: "10", name: "" }],
    ["05-abcd-0123+EFGH_4567.ijkl", { index: "05", name: "abcd-0123+EFGH_4567.ijkl" }],
  ])("splits %j", (fullName, parts) => {
    expect(parsePluginName(fullName)).toEqual(parts);
  });

  it.each([
    ["10", InvalidPluginNameError, 'invalid plugin name "10", idx-pluginname expected'],
    ["", InvalidPluginNameError, 'invalid plugin name "", idx-pluginname expected'],
    ["1-foo", InvalidPluginIndexError, 'invalid plugin index "1", must be 2 digits'],
    ["-foo", InvalidPluginIndexError, 'invalid plugin index "", must be 2 digits'],
    ["ab-foo", InvalidPluginIndexError, 'invalid plugin index "ab" (not [0-9][0-9])'],
  ])("rejects %j", (fullName, type, text) => {
    const error = errorOf(() => parsePluginName(fullName));
    expect(error).toBeInstanceOf(type);
    expect((error as Error).message).toBe(text);
  });
});

describe("formatPluginName", () => {
  it("joins index and name and checks the index", () => {
    expect(formatPluginName("10", "logger")).toBe("10-logger");
    expect(() => formatPluginName("100", "logger")).toThrow(InvalidPluginIndexError);
  });

  it("parses back to what it was given", () => {
    for (const name of ["", "a-b", "-", "x.y+z"]) {
      expect(parsePluginName(formatPluginName("42", name))).toEqual({ index: "42", name });
    }
  });
});
