import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { HookFileError, parseHookFile } from "./hook-file.js";

const file = "/etc/containers/oci/hooks.d/x.json";
const read = (content: string) => parseHookFile(file, Buffer.from(content));
const failure = (content: string) => {
  try {
    read(content);
  } catch (error) {
    return (error as Error).message;
  }
  throw new Error("read unexpectedly");
};

describe("1.0.0 hook files", () => {
  it("read every field", () => {
    const hook = read(
      JSON.stringify({
        version: "1.0.0",
        hook: { path: "/bin/sh", args: ["sh", "-c", "date"], env: ["A=1"], timeout: 30 },
        when: { always: true, annotations: { "^a$": "b" }, commands: ["sh$"], hasBindMounts: false },
        stages: ["prestart", "poststop"],
      }),
    );
    expect(hook).toEqual({
      version: "1.0.0",
      hook: { path: "/bin/sh", args: ["sh", "-c", "date"], env: ["A=1"], timeout: 30n },
      when: { always: true, annotations: new Map([["^a$", "b"]]), commands: ["sh$"], hasBindMounts: false, or: false },
      stages: ["prestart", "poststop"],
    });
  });

  it("leave absent parts empty", () => {
    expect(read('{"version": "1.0.0", "hook": {"path": "/bin/true"}, "stages": []}')).toEqual({
      version: "1.0.0",
      hook: { path: "/bin/true", args: null, env: null, timeout: null },
      when: { always: null, annotations: null, commands: null, hasBindMounts: null, or: false },
      stages: [],
    });
  });

  it.each([
    ['{"version": "1.0.0"}', "missing required property: hook.path"],
    [
      '{"version": "1.0.0", "hook": {"path": "/does/not/exist"}, "stages": []}',
      "faccessat /does/not/exist: no such file or directory",
    ],
    [
      '{"version": "1.0.0", "hook": {"path": "/etc/passwd/x"}, "stages": []}',
      "faccessat /etc/passwd/x: not a directory",
    ],
    ['{"version": "1.0.0", "hook": {"path": "/bin/true"}}', "missing required property: stages"],
    ['{"version": "1.0.0", "hook": {"path": "/bin/true"}, "stages": ["prestart", "later"]}', 'unknown stage "later"'],
    [
      '{"version": "1.0.0", "hook": {"path": "/bin/true"}, "when": {"annotations": {"(": "x"}}, "stages": []}',
      'invalid annotation key "(": error parsing regexp: missing closing ): `(`',
    ],
    [
      '{"version": "1.0.0", "hook": {"path": "/bin/true"}, "when": {"annotations": {"x": "a**"}}, "stages": []}',
      'invalid annotation value "a**": error parsing regexp: invalid nested repetition operator: `**`',
    ],
    [
      '{"version": "1.0.0", "hook": {"path": "/bin/true"}, "when": {"commands": ["a(?=b)"]}, "stages": []}',
      'invalid command "a(?=b)": error parsing regexp: invalid or unsupported Perl syntax: `(?=`',
    ],
  ])("are refused when not valid: %s", (content, message) => {
    expect(failure(content)).toBe(message);
  });

  it.each([
    [
      '{"version": "1.0.0", "hook": "not-a-string"}',
      "1.0.0: json: cannot unmarshal string into Go struct field Hook.hook of type specs.Hook",
    ],
    [
      '{"version": "1.0.0", "stages": "prestart"}',
      "1.0.0: json: cannot unmarshal string into Go struct field Hook.stages of type []string",
    ],
    [
      '{"version": "1.0.0", "when": {"always": "true"}}',
      "1.0.0: json: cannot unmarshal string into Go struct field When.when.always of type bool",
    ],
    [
      '{"version": "1.0.0", "hook": {"timeout": 1.5}}',
      "1.0.0: json: cannot unmarshal number 1.5 into Go struct field Hook.hook.timeout of type int",
    ],
  ])("are refused when the JSON does not fit: %s", (content, message) => {
    expect(failure(content)).toBe(`parsing hook "${file}": ${message}`);
  });
});

describe("the version check", () => {
  it.each([
    ['{"version": "2.0.0"}', 'unrecognized hook version: "2.0.0"'],
    [
      '{"version": 1}',
      "version check: json: cannot unmarshal number into Go struct field version.version of type string",
    ],
    ["[]", "version check: json: cannot unmarshal array into Go value of type hooks.version"],
    ["{", "version check: unexpected end of JSON input"],
    ["", "version check: unexpected end of JSON input"],
  ])("refuses %j", (content, message) => {
    expect(failure(content)).toBe(`parsing hook "${file}": ${message}`);
  });

  it("takes the version key in any case, the last one winning", () => {
    expect(read('{"VERSION": "1.0.0", "hook": {"path": "/bin/true"}, "stages": []}').version).toBe("1.0.0");
    expect(failure('{"version": "1.0.0", "Version": "0.2"}')).toBe(
      `parsing hook "${file}": unrecognized hook version: "0.2"`,
    );
  });
});

describe("0.1.0 hook files (and files without a version)", () => {
  it("become 1.0.0 hooks matching on any condition", () => {
    const content =
      '{"version": "0.1.0", "hook": "/bin/true", "arguments": ["a"], "stages": ["prestart"], "cmds": ["sh"], "annotations": ["^x$", "y"], "hasbindmounts": true}';
    expect(read(content)).toEqual({
      version: "1.0.0",
      hook: { path: "/bin/true", args: ["/bin/true", "a"], env: null, timeout: null },
      when: { always: null, annotations: new Map([[".*", "^x$|y"]]), commands: ["sh"], hasBindMounts: true, or: true },
      stages: ["prestart"],
    });
  });

  it("take the singular spellings, and no arguments means no argv", () => {
    expect(read('{"hook": "/bin/true", "stage": ["poststop"], "cmd": ["a"], "annotation": ["b"]}')).toMatchObject({
      hook: { path: "/bin/true", args: null },
      when: { commands: ["a"], annotations: new Map([[".*", "b"]]) },
      stages: ["poststop"],
    });
    expect(read('{"hook": "/bin/true", "stages": [], "arguments": []}').hook.args).toEqual(["/bin/true"]);
  });

  it.each([
    ["{}", ": missing required property: hook"],
    ["null", ": missing required property: hook"],
    ['{"hook": "/bin/true"}', ": missing required property: stages"],
    ['{"hook": "/bin/true", "stages": [], "stage": []}', ": cannot set both 'stage' and 'stages'"],
    ['{"hook": "/bin/true", "stages": [], "cmds": [], "cmd": []}', ": cannot set both 'cmd' and 'cmds'"],
    [
      '{"hook": "/bin/true", "stages": [], "annotations": [], "annotation": []}',
      ": cannot set both 'annotation' and 'annotations'",
    ],
    [
      '{"version": "0.1.0", "hook": 7}',
      "0.1.0: json: cannot unmarshal number into Go struct field Hook.hook of type string",
    ],
  ])("are refused when not valid: %s", (content, message) => {
    expect(failure(content)).toBe(`parsing hook "${file}": ${message}`);
  });

  it("are validated like 1.0.0 ones", () => {
    expect(failure('{"hook": "", "stages": []}')).toBe("missing required property: hook.path");
    expect(failure('{"hook": "/bin/true", "stages": [], "annotations": ["("]}')).toBe(
      'invalid annotation value "(": error parsing regexp: missing closing ): `(`',
    );
  });
});

it("refuses any content with a HookFileError or a path error, never anything else", () => {
  const hookish = fc
    .record(
      {
        version: fc.constantFrom("1.0.0", "0.1.0", "", "x", 1),
        hook: fc.oneof(
          fc.constant("/bin/true"),
          fc.record(
            {
              path: fc.constantFrom("/bin/true", "", "/nope"),
              args: fc.array(fc.string()),
              timeout: fc.oneof(fc.integer(), fc.double()),
            },
            { requiredKeys: [] },
          ),
        ),
        when: fc.record(
          {
            always: fc.boolean(),
            annotations: fc.dictionary(fc.string(), fc.string()),
            commands: fc.array(fc.string()),
          },
          { requiredKeys: [] },
        ),
        stages: fc.array(fc.constantFrom("prestart", "poststop", "bogus")),
        stage: fc.array(fc.string()),
        cmds: fc.array(fc.string()),
      },
      { requiredKeys: [] },
    )
    .map((value) => JSON.stringify(value));
  fc.assert(
    fc.property(
      fc.oneof(
        hookish,
        fc.string(),
        fc.jsonValue().map((v) => JSON.stringify(v)),
      ),
      (content) => {
        try {
          read(content);
        } catch (error) {
          expect(error instanceof HookFileError || (error as Error).message.startsWith("faccessat ")).toBe(true);
        }
      },
    ),
  );
});
