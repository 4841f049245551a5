import { describe, expect, it } from "vitest";
import { FlagError, type FlagSpec, flagUsage, parseGoFlags, socketFlags } from "./go-flags.js";

/** The flags of Go's ulimit-adjuster plugin: string flags and a boolean one. */
const ULIMIT_ADJUSTER_FLAGS = [
  { name: "name", kind: "string", usage: "plugin name to register to NRI" },
  { name: "idx", kind: "string", usage: "plugin index to register to NRI" },
  { name: "socket", kind: "string", usage: "path to the plugin socket" },
  { name: "verbose", kind: "bool", usage: "enable (more) verbose logging" },
] as const satisfies readonly FlagSpec[];

const parse = (...argv: string[]) => parseGoFlags(ULIMIT_ADJUSTER_FLAGS, argv, "nri-ulimit-adjuster");

function failure(...argv: string[]): FlagError {
  try {
    parse(...argv);
  } catch (error) {
    return error as FlagError;
  }
  throw new Error("no error");
}

describe("parseGoFlags", () => {
  it("takes either socket flag, the upstream name and its alias, into the upstream name", () => {
    const specs = [{ name: "idx", kind: "string", usage: "plugin index to register to NRI" }, ...socketFlags("socket-path", "path of the NRI socket file")] as const;
    expect(parseGoFlags(specs, ["-socket", "/a.sock"], "p")).toEqual({ idx: "", "socket-path": "/a.sock" });
    expect(parseGoFlags(specs, ["--socket-path=/b.sock", "-idx", "10"], "p")).toEqual({ idx: "10", "socket-path": "/b.sock" });
    expect(parseGoFlags(specs, ["-socket-path", "/b.sock", "-socket", "/a.sock"], "p")["socket-path"]).toBe("/a.sock");
    expect(flagUsage(specs, "p")).toBe(
      "Usage of p:\n  -idx string\n    \tplugin index to register to NRI\n  -socket string\n    \tthe same as -socket-path\n  -socket-path string\n    \tpath of the NRI socket file",
    );
  });

  it("reads the Go plugin's flags in each form Go accepts", () => {
    expect(parse()).toEqual({ name: "", idx: "", socket: "", verbose: false });
    expect(parse("-idx", "10", "--name=ulimits", "-socket", "/run/nri.sock", "-verbose")).toEqual({
      name: "ulimits",
      idx: "10",
      socket: "/run/nri.sock",
      verbose: true,
    });
    expect(parse("-verbose=false", "-idx=05").verbose).toBe(false);
  });

  it("stops at the first argument that is not a flag, as Go does", () => {
    expect(parse("-verbose", "false", "-idx", "10")).toEqual({ name: "", idx: "", socket: "", verbose: true });
    expect(parse("--", "-idx", "10").idx).toBe("");
  });

  it("refuses what Go refuses, with exit status 2 and Go's messages", () => {
    const cases: [string[], string][] = [
      [["-socket-path", "/x"], "flag provided but not defined: -socket-path"],
      [["-idx"], "flag needs an argument: -idx"],
      [["-verbose=maybe"], 'invalid boolean value "maybe" for -verbose: parse error'],
      [["---idx"], "bad flag syntax: ---idx"],
    ];
    for (const [argv, message] of cases) {
      const error = failure(...argv);
      expect(error.exitCode).toBe(2);
      expect(error.message.split("\n")[0]).toBe(message);
    }
  });

  it("prints the usage as Go's flag package does for -h, with status 0", () => {
    const help = failure("-h");
    expect(help.exitCode).toBe(0);
    expect(help.message).toBe(flagUsage(ULIMIT_ADJUSTER_FLAGS, "nri-ulimit-adjuster"));
    expect(help.message).toBe(
      [
        "Usage of nri-ulimit-adjuster:",
        "  -idx string",
        "    \tplugin index to register to NRI",
        "  -name string",
        "    \tplugin name to register to NRI",
        "  -socket string",
        "    \tpath to the plugin socket",
        "  -verbose",
        "    \tenable (more) verbose logging",
      ].join("\n"),
    );
  });
});
