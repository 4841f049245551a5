import { describe, expect, it } from "vitest";
import { StubError } from "./errors.js";
import { type IdentitySources, programName, resolveIdentity } from "./identity.js";

const sources = (over: Partial<IdentitySources>): IdentitySources => ({
  env: {},
  programPath: "/usr/local/bin/plugin",
  checkName: true,
  ...over,
});

describe("resolveIdentity", () => {
  it("takes index and name from the environment a launching runtime sets", () => {
    const env = { NRI_PLUGIN_IDX: "05", NRI_PLUGIN_NAME: "logger" };
    expect(resolveIdentity(sources({ env }))).toEqual({ index: "05", name: "logger" });
  });

  it("with only an index, names the plugin after the program", () => {
    expect(resolveIdentity(sources({ index: "20", programPath: "/opt/bin/my-plugin.js" }))).toEqual({
      index: "20",
      name: "my-plugin",
    });
  });

  it("with only an index, prefers the plugin's default name to the program's, whatever file runs it", () => {
    for (const programPath of ["/opt/app/dist/main.js", "/usr/local/bin/nri-ulimit-adjuster", "/srv/run.sh"]) {
      expect(resolveIdentity(sources({ index: "10", programPath, defaultName: "ulimit-adjuster" }))).toEqual({
        index: "10",
        name: "ulimit-adjuster",
      });
    }
    // the environment and an explicit name still come first; an NN-name program still gives both
    const env = { NRI_PLUGIN_IDX: "05", NRI_PLUGIN_NAME: "limits" };
    expect(resolveIdentity(sources({ env, defaultName: "ulimit-adjuster" }))).toEqual({ index: "05", name: "limits" });
    expect(resolveIdentity(sources({ index: "10", name: "mine", defaultName: "ulimit-adjuster" }))).toEqual({
      index: "10",
      name: "mine",
    });
    expect(
      resolveIdentity(sources({ programPath: "/opt/nri/plugins/20-limits", defaultName: "ulimit-adjuster" })),
    ).toEqual({
      index: "20",
      name: "limits",
    });
  });

  it("without an index, splits an NN-name program name, replacing a given name as Go does", () => {
    expect(resolveIdentity(sources({ programPath: "/opt/nri/plugins/10-logger" }))).toEqual({
      index: "10",
      name: "logger",
    });
    expect(resolveIdentity(sources({ programPath: "/srv/35-my.plugin.mts", name: "ignored" }))).toEqual({
      index: "35",
      name: "my.plugin",
    });
  });

  it("lets the options name replace the environment's, and says so", () => {
    const overrides: string[][] = [];
    const identity = resolveIdentity(
      sources({
        env: { NRI_PLUGIN_IDX: "05", NRI_PLUGIN_NAME: "env-name" },
        name: "option-name",
        onNameOverride: (name, previous) => overrides.push([name, previous]),
      }),
    );
    expect(identity).toEqual({ index: "05", name: "option-name" });
    expect(overrides).toEqual([["option-name", "env-name"]]);
  });

  it("refuses an options index when the environment sets one, with Go's text", () => {
    expect(() => resolveIdentity(sources({ env: { NRI_PLUGIN_IDX: "05" }, index: "10" }))).toThrow(
      new StubError("ERR_STUB_IDENTITY", 'plugin ID already set ("05")'),
    );
  });

  it("refuses a program that is not NN-name when nothing else gives an identity", () => {
    expect(() => resolveIdentity(sources({ programPath: "/bin/logger" }))).toThrow(
      expect.objectContaining({
        code: "ERR_STUB_IDENTITY",
        message: expect.stringContaining('invalid plugin name "logger", idx-pluginname expected'),
      }),
    );
  });

  it("with a name but no index, says that the index is missing, not that the program's file name is wrong", () => {
    expect(() => resolveIdentity(sources({ programPath: "/app/dist/main.js", name: "tini" }))).toThrow(
      new StubError(
        "ERR_STUB_IDENTITY",
        `cannot tell the plugin's identity: the name "tini" has no index to go with it (a plugin registers as NN-name): ` +
          "give one with -idx (as in -idx 10 -name tini), NRI_PLUGIN_IDX or runPlugin's index option, or name the program 10-tini",
      ),
    );
  });

  it("refuses a bad index before connecting", () => {
    expect(() => resolveIdentity(sources({ index: "1", name: "x" }))).toThrow(
      expect.objectContaining({
        code: "ERR_STUB_IDENTITY",
        message: expect.stringContaining('invalid plugin index "1", must be 2 digits'),
      }),
    );
    expect(() => resolveIdentity(sources({ index: "1a", name: "x" }))).toThrow(
      expect.objectContaining({ message: expect.stringContaining('invalid plugin index "1a" (not [0-9][0-9])') }),
    );
  });

  it("refuses a name the runtime would refuse, unless the runtime launched the plugin", () => {
    const bad = sources({ index: "10", name: "my plugin" });
    expect(() => resolveIdentity(bad)).toThrow(
      expect.objectContaining({
        code: "ERR_STUB_IDENTITY",
        message: expect.stringContaining(`invalid plugin name "my plugin": contains invalid character ' '`),
      }),
    );
    expect(resolveIdentity({ ...bad, checkName: false })).toEqual({ index: "10", name: "my plugin" });
  });
});

describe("programName", () => {
  it("drops the directory and a JavaScript or TypeScript extension only", () => {
    expect(programName("/a/b/10-x.js")).toBe("10-x");
    expect(programName("10-x.cts")).toBe("10-x");
    expect(programName("/a/10-x.conf")).toBe("10-x.conf");
    expect(programName("/a/10-x")).toBe("10-x");
  });
});
