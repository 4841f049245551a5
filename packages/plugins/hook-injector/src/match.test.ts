import fc from "fast-check";
import { describe, expect, it } from "vitest";
import type { HookDefinition, HookWhen } from "./hook-file.js";
import { HookMatchError, type MatchInput, matchingHooks, whenMatches } from "./match.js";

const when = (conditions: Partial<HookWhen>): HookWhen => ({
  always: null,
  annotations: null,
  commands: null,
  hasBindMounts: null,
  or: false,
  ...conditions,
});
const input = (fields: Partial<MatchInput> = {}): MatchInput => ({
  annotations: {},
  args: ["/bin/sh"],
  hasBindMounts: false,
  ...fields,
});

describe("whenMatches, 1.0.0 (every condition) and 0.1.0 (any condition)", () => {
  it("matches nothing without conditions", () => {
    expect(whenMatches(when({}), input())).toBe(false);
    expect(whenMatches(when({ or: true }), input())).toBe(false);
  });

  it("follows always", () => {
    expect(whenMatches(when({ always: true }), input())).toBe(true);
    expect(whenMatches(when({ always: false, hasBindMounts: true }), input({ hasBindMounts: true }))).toBe(false);
  });

  it.each([
    [true, true, false, true],
    [true, false, false, false],
    [false, true, false, false],
    [true, true, true, true],
    [false, true, true, false],
  ])("bind mounts wanted %s, present %s, or %s: %s", (wanted, present, or, match) => {
    expect(whenMatches(when({ hasBindMounts: wanted, or }), input({ hasBindMounts: present }))).toBe(match);
  });

  it.each([
    [{ a: "b", c: "d", e: "f" }, false, true],
    [{ a: "b" }, false, false],
    [{ a: "b" }, true, true],
    [{ a: "bc" }, true, false],
    [{ ac: "b" }, true, false],
  ])("annotations %j, or %s: %s", (annotations, or, match) => {
    expect(
      whenMatches(
        when({
          annotations: new Map([
            ["^a$", "^b$"],
            ["^c$", "^d$"],
          ]),
          or,
        }),
        input({ annotations }),
      ),
    ).toBe(match);
  });

  it("needs one annotation matching both patterns, unanchored", () => {
    const w = when({ annotations: new Map([["io\\.example/", "enabled|yes"]]) });
    expect(whenMatches(w, input({ annotations: { "x.io.example/y": "not-enabled" } }))).toBe(true);
    expect(whenMatches(w, input({ annotations: { "io.example/a": "no", other: "yes" } }))).toBe(false);
  });

  it("matches commands against the first argument, with RE2 syntax", () => {
    const w = when({ commands: ["^/bin/sh$", "(?i)BUSYBOX"] });
    expect(whenMatches(w, input({ args: ["/bin/sh", "-c"] }))).toBe(true);
    expect(whenMatches(w, input({ args: ["/usr/bin/busybox"] }))).toBe(true);
    expect(whenMatches(w, input({ args: ["/bin/shell"] }))).toBe(false);
  });

  it.each([
    ["/bin/sh", true, false, true],
    ["/bin/sh", true, true, true],
    ["/bin/shell", true, false, false],
    ["/bin/shell", true, true, true],
    ["/bin/sh", false, false, false],
    ["/bin/sh", false, true, true],
    ["/bin/shell", false, false, false],
    ["/bin/shell", false, true, false],
  ])("bind mounts and commands: %s, mounts %s, or %s: %s", (command, hasBindMounts, or, match) => {
    expect(
      whenMatches(
        when({ hasBindMounts: true, commands: ["^/bin/sh$"], or }),
        input({ args: [command], hasBindMounts }),
      ),
    ).toBe(match);
  });

  it("cannot decide commands for a container without arguments", () => {
    expect(() => whenMatches(when({ commands: ["sh"] }), input({ args: [] }))).toThrow(
      new HookMatchError("process.args must have at least one entry"),
    );
    // unless an earlier condition decided already
    expect(whenMatches(when({ always: false, commands: ["sh"] }), input({ args: [] }))).toBe(false);
    expect(whenMatches(when({ always: true, commands: ["sh"], or: true }), input({ args: [] }))).toBe(true);
    expect(whenMatches(when({ commands: [] }), input({ args: [] }))).toBe(false);
  });
});

const hook = (path: string, conditions: Partial<HookWhen>, stages: string[]): HookDefinition => ({
  version: "1.0.0",
  hook: { path, args: [path], env: null, timeout: null },
  when: when(conditions),
  stages,
});

describe("matchingHooks", () => {
  it("gives nothing when no file matches, and empty lists for a match without stages", () => {
    expect(matchingHooks(new Map([["a.json", hook("/a", { always: false }, ["prestart"])]]), input())).toBeUndefined();
    expect(matchingHooks(new Map(), input())).toBeUndefined();
    expect(matchingHooks(new Map([["a.json", hook("/a", { always: true }, [])]]), input())).toEqual({
      prestart: [],
      createRuntime: [],
      createContainer: [],
      startContainer: [],
      poststart: [],
      poststop: [],
    });
  });

  it("orders files by lower-cased name and adds each hook to its stages in order, prestart as createRuntime", () => {
    const hooks = new Map([
      ["b.json", hook("/b", { always: true }, ["poststop", "prestart"])],
      ["A.json", hook("/a", { always: true }, ["createRuntime", "poststop", "poststop"])],
      ["c.json", hook("/c", { always: true }, ["createContainer", "startContainer", "poststart"])],
    ]);
    const paths = (list: { path: string }[]) => list.map((h) => h.path);
    const out = matchingHooks(hooks, input());
    expect(out && Object.fromEntries(Object.entries(out).map(([stage, list]) => [stage, paths(list)]))).toEqual({
      prestart: [],
      createRuntime: ["/a", "/b"],
      createContainer: ["/c"],
      startContainer: ["/c"],
      poststart: ["/c"],
      poststop: ["/a", "/a", "/b"],
    });
  });

  it("carries path, argv, environment and timeout", () => {
    const h = {
      ...hook("/x", { always: true }, ["poststop"]),
      hook: { path: "/x", args: ["x", "1"], env: ["A=b"], timeout: 7n },
    };
    expect(matchingHooks(new Map([["x.json", h]]), input())?.poststop).toEqual([
      { path: "/x", args: ["x", "1"], env: ["A=b"], timeout: { value: 7n } },
    ]);
  });

  it("fails on the first file whose conditions cannot be decided, naming it", () => {
    const hooks = new Map([
      ["2.json", hook("/b", { commands: ["x"] }, ["poststop"])],
      ["1.json", hook("/a", { always: true, commands: ["y"] }, ["poststop"])],
    ]);
    expect(() => matchingHooks(hooks, input({ args: [] }))).toThrow(
      'matching hook "1.json": process.args must have at least one entry',
    );
  });

  it("tells an observer each file's verdict", () => {
    const seen: [string, boolean][] = [];
    matchingHooks(
      new Map([
        ["a.json", hook("/a", { always: true }, [])],
        ["b.json", hook("/b", {}, [])],
      ]),
      input(),
      (name, _, matched) => seen.push([name, matched]),
    );
    expect(seen).toEqual([
      ["a.json", true],
      ["b.json", false],
    ]);
  });

  it("never fails otherwise than with a HookMatchError, for any annotations and arguments", () => {
    const hooks = new Map([
      [
        "a.json",
        hook(
          "/a",
          {
            annotations: new Map([
              [".*", "^(yes|true)$"],
              ["(?i)^EXAMPLE\\.com/", "."],
            ]),
          },
          ["poststop"],
        ),
      ],
      ["b.json", hook("/b", { commands: ["sh$", "[[:digit:]]+"], hasBindMounts: true }, ["prestart"])],
      ["c.json", hook("/c", { annotations: new Map([["\\pL", "\\x{1F600}"]]), or: true }, ["poststart"])],
    ]);
    fc.assert(
      fc.property(
        fc.dictionary(fc.string({ unit: "grapheme" }), fc.string({ unit: "binary" })),
        fc.array(fc.string({ unit: "binary" })),
        fc.boolean(),
        (annotations, args, hasBindMounts) => {
          try {
            matchingHooks(hooks, { annotations, args, hasBindMounts });
          } catch (error) {
            expect(error).toBeInstanceOf(HookMatchError);
          }
        },
      ),
    );
  });
});
