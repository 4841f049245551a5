import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { go, type GoType } from "@nri-ts/sigs-yaml";
import { GoJsonError, parseGoJson, unmarshalGoJson } from "./go-json.js";

const HOOK = go.struct("specs.Hook", { path: go.string, args: go.slice(go.string), timeout: go.pointer(go.int) });
const FILE = go.pointer(
  go.struct("hook.Hook", { hook: HOOK, always: go.pointer(go.bool), annotations: go.map(go.string) }),
);

const error = (input: string, type: GoType = FILE) => {
  try {
    unmarshalGoJson(input, type);
  } catch (e) {
    expect(e).toBeInstanceOf(GoJsonError);
    return (e as Error).message;
  }
  return undefined;
};

describe("parseGoJson: syntax errors in the words of Go's scanner", () => {
  it.each([
    ["", "unexpected end of JSON input"],
    ["{", "unexpected end of JSON input"],
    ['{"a" 1}', "invalid character '1' after object key"],
    ['{"a": 1 "b"', `invalid character '"' after object key:value pair`],
    ["{a: 1}", "invalid character 'a' looking for beginning of object key string"],
    ["[1 2]", "invalid character '2' after array element"],
    ["[1,]", "invalid character ']' looking for beginning of value"],
    ['{"a":1,}', "invalid character '}' looking for beginning of object key string"],
    ["{} x", "invalid character 'x' after top-level value"],
    ["01", "invalid character '1' after top-level value"],
    ["-x", "invalid character 'x' in numeric literal"],
    ["1.", "invalid character ' ' after decimal point in numeric literal"],
    ["1.e5", "invalid character 'e' after decimal point in numeric literal"],
    ["1e+", "invalid character ' ' in exponent of numeric literal"],
    ["-", "invalid character ' ' in numeric literal"],
    ["tru", "invalid character ' ' in literal true (expecting 'e')"],
    ['"ab', "unexpected end of JSON input"],
    ['"\\', "invalid character ' ' in string escape code"],
    ["[", "unexpected end of JSON input"],
    ["trUe", "invalid character 'U' in literal true (expecting 'u')"],
    ["nul1", "invalid character '1' in literal null (expecting 'l')"],
    ['"a\tb"', "invalid character '\\t' in string literal"],
    ['"\\x"', "invalid character 'x' in string escape code"],
    ['"\\u12g4"', "invalid character 'g' in \\u hexadecimal character escape"],
    ["'a'", "invalid character '\\'' looking for beginning of value"],
    ["\u00e9", "invalid character 'Ã' looking for beginning of value"],
    ["\ufeff{}", "invalid character 'ï' looking for beginning of value"],
    ["// x\n{}", "invalid character '/' looking for beginning of value"],
  ])("%j", (input, message) => {
    expect(() => parseGoJson(input)).toThrow(new GoJsonError(message));
  });

  it("reads strings as Go unquotes them", () => {
    expect(parseGoJson('"a\\u00e9\\ud83d\\ude00\\ud800x\\udc00\\/"')).toEqual({
      kind: "string",
      value: "a\u00e9\u{1f600}\ufffdx\ufffd/",
    });
    expect(parseGoJson(new Uint8Array([0x22, 0x61, 0xff, 0x22]))).toEqual({ kind: "string", value: "a\ufffd" });
  });

  it("keeps numbers as written and keys in order, duplicates too", () => {
    expect(parseGoJson(' {"n": -0.5e+10, "n": 1}\n')).toEqual({
      kind: "object",
      entries: [
        ["n", { kind: "number", text: "-0.5e+10" }],
        ["n", { kind: "number", text: "1" }],
      ],
    });
  });
});

describe("unmarshalGoJson: values as encoding/json decodes them", () => {
  it("matches keys exactly or in any case, with Go's folding, and ignores others", () => {
    expect(unmarshalGoJson('{"HOOK": {"Path": "/a", "\u017fpam": 1}, "alwayS": true, "other": [1]}', FILE)).toEqual({
      hook: { path: "/a", args: null, timeout: null },
      always: true,
      annotations: null,
    });
    // dotted and dotless i fold to nothing but themselves
    expect(unmarshalGoJson('{"hook": {"t\u0130meout": 3, "T\u0131MEOUT": 4, "\u212aey": 1}}', FILE)).toMatchObject({
      hook: { timeout: null },
    });
  });

  it("lets later keys win, fills structs in and merges maps", () => {
    const value = unmarshalGoJson(
      '{"hook": {"path": "/a"}, "hook": {"args": ["x"]}, "annotations": {"a": "1"}, "annotations": {"b": null}}',
      FILE,
    );
    expect(value).toEqual({
      hook: { path: "/a", args: ["x"], timeout: null },
      always: null,
      annotations: new Map([
        ["a", "1"],
        ["b", ""],
      ]),
    });
  });

  it("treats null as Go does: no change for values, nil for pointers, slices and maps", () => {
    expect(unmarshalGoJson("null", FILE)).toBeNull();
    expect(
      unmarshalGoJson(
        '{"hook": {"path": "/a", "args": ["x"], "timeout": 1}, "hook": {"path": null, "args": null, "timeout": null}}',
        FILE,
      ),
    ).toMatchObject({
      hook: { path: "/a", args: null, timeout: null },
    });
  });

  it("keeps keys such as __proto__ as map entries", () => {
    const value = unmarshalGoJson('{"annotations": {"__proto__": "x"}}', FILE) as { annotations: Map<string, string> };
    expect([...value.annotations]).toEqual([["__proto__", "x"]]);
  });

  it.each([
    ["[]", "json: cannot unmarshal array into Go value of type hook.Hook"],
    ['"x"', "json: cannot unmarshal string into Go value of type hook.Hook"],
    ['{"hook": {"path": 1}}', "json: cannot unmarshal number into Go struct field Hook.hook.path of type string"],
    [
      '{"hook": {"timeout": 1.5}}',
      "json: cannot unmarshal number 1.5 into Go struct field Hook.hook.timeout of type int",
    ],
    [
      '{"hook": {"timeout": 9223372036854775808}}',
      "json: cannot unmarshal number 9223372036854775808 into Go struct field Hook.hook.timeout of type int",
    ],
    ['{"hook": {"args": "x"}}', "json: cannot unmarshal string into Go struct field Hook.hook.args of type []string"],
    ['{"hook": {"args": [true]}}', "json: cannot unmarshal bool into Go struct field Hook.hook.args of type string"],
    ['{"always": "yes"}', "json: cannot unmarshal string into Go struct field Hook.always of type bool"],
    [
      '{"annotations": {"a": {}}}',
      "json: cannot unmarshal object into Go struct field Hook.annotations of type string",
    ],
    ['{"always": 1, "hook": []}', "json: cannot unmarshal number into Go struct field Hook.always of type bool"],
  ])("refuses %s", (input, message) => {
    expect(error(input)).toBe(message);
  });

  it("accepts integers Go's int holds", () => {
    expect(unmarshalGoJson('{"timeout": -9223372036854775808}', HOOK)).toMatchObject({
      timeout: -9223372036854775808n,
    });
    expect(unmarshalGoJson('{"timeout": -0}', HOOK)).toMatchObject({ timeout: 0n });
    expect(error("[256]", go.slice(go.uint8))).toBe("json: cannot unmarshal number 256 into Go value of type uint8");
    expect(unmarshalGoJson("[255]", go.slice(go.uint8))).toEqual([255]);
  });

  it("never fails otherwise than with a GoJsonError, whatever the input", () => {
    const json = fc.jsonValue().map((value) => JSON.stringify(value));
    fc.assert(
      fc.property(
        fc.oneof(
          fc.string(),
          json,
          fc.uint8Array().map((bytes) => Buffer.from(bytes).toString("latin1")),
        ),
        (input) => {
          try {
            unmarshalGoJson(input, FILE);
          } catch (e) {
            expect(e).toBeInstanceOf(GoJsonError);
          }
        },
      ),
    );
    fc.assert(fc.property(json, (input) => void parseGoJson(input)));
  });
});
