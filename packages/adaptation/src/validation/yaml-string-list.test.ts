import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { parseYamlStringList, YamlListError } from "./yaml-string-list.js";

/** Expected values checked against go-yaml v3 (yaml.Unmarshal into []string). */
describe("parseYamlStringList", () => {
  it.each<[string, string[]]>([
    ["[ plugin ]", ["plugin"]],
    ['[ "xyzzy" ]', ["xyzzy"]],
    ["[ 'q', \"d\" ]", ["q", "d"]],
    ['- a\n- ~\n- "null"\n- 1\n- 0x1F\n- 1.5e3', ["a", "null", "1", "0x1F", "1.5e3"]],
    ["[a, ~, b, null, '']", ["a", "b", ""]],
    ["- &x a\n- *x", ["a", "a"]],
    ["[ a ]\n---\n[ b ]", ["a"]],
    ["[!!int 5]", ["5"]],
    ["", []],
    ["null", []],
    ["~", []],
    ["# just a comment", []],
    ["-", []],
  ])("reads %j as %j", (text, list) => {
    expect(parseYamlStringList(text)).toStrictEqual(list);
  });

  it.each([
    ["foo", "yaml: unmarshal errors:\n  line 1: cannot unmarshal !!str `foo` into []string"],
    ["'foo'", "yaml: unmarshal errors:\n  line 1: cannot unmarshal !!str `foo` into []string"],
    ["1", "yaml: unmarshal errors:\n  line 1: cannot unmarshal !!int `1` into []string"],
    ["12_000", "yaml: unmarshal errors:\n  line 1: cannot unmarshal !!int `12_000` into []string"],
    ["true", "yaml: unmarshal errors:\n  line 1: cannot unmarshal !!bool `true` into []string"],
    ["1.5", "yaml: unmarshal errors:\n  line 1: cannot unmarshal !!float `1.5` into []string"],
    [".inf", "yaml: unmarshal errors:\n  line 1: cannot unmarshal !!float `.inf` into []string"],
    ["2001-12-14", "yaml: unmarshal errors:\n  line 1: cannot unmarshal !!timestamp `2001-12-14` into []string"],
    ["!!str 12", "yaml: unmarshal errors:\n  line 1: cannot unmarshal !!str `12` into []string"],
    ["verylongplugin", "yaml: unmarshal errors:\n  line 1: cannot unmarshal !!str `verylon...` into []string"],
    ["{a: 1}", "yaml: unmarshal errors:\n  line 1: cannot unmarshal !!map into []string"],
    ["a: b", "yaml: unmarshal errors:\n  line 1: cannot unmarshal !!map into []string"],
    ["[a, [b]]", "yaml: unmarshal errors:\n  line 1: cannot unmarshal !!seq into string"],
    [
      "- a\n- {b: c}\n- [d]",
      "yaml: unmarshal errors:\n  line 2: cannot unmarshal !!map into string\n  line 3: cannot unmarshal !!seq into string",
    ],
    ["*y", "yaml: unknown anchor 'y' referenced"],
    ["[a, b", "yaml: line 1: did not find expected ',' or ']'"],
    ['["x"', "yaml: line 1: did not find expected ',' or ']'"],
  ])("rejects %j with go-yaml's text", (text, message) => {
    expect(() => parseYamlStringList(text)).toThrow(YamlListError);
    expect(() => parseYamlStringList(text)).toThrow(message);
  });

  it("reads back any list of strings written as a JSON array", () => {
    fc.assert(
      fc.property(fc.array(fc.string()), (names) => {
        expect(parseYamlStringList(JSON.stringify(names))).toStrictEqual(names);
      }),
    );
  });

  it("fails only with YamlListError, whatever the text", () => {
    fc.assert(
      fc.property(fc.oneof(fc.string(), fc.stringMatching(/^[[\]{}\-:,'"!&*~ a-z0-9\n]{0,30}$/)), (text) => {
        try {
          const list = parseYamlStringList(text);
          expect(list.every((name) => typeof name === "string")).toBe(true);
        } catch (error) {
          expect(error).toBeInstanceOf(YamlListError);
        }
      }),
      { numRuns: 2000 },
    );
  });
});

describe("parseYamlStringList on hostile nesting", () => {
  it("refuses a list nested thousands deep with an error, instead of crashing the process", () => {
    const deep = `${"[".repeat(5000)}${"]".repeat(5000)}`;
    expect(() => parseYamlStringList(deep)).toThrow(new YamlListError("yaml: exceeded max depth of 300"));
  });
});
