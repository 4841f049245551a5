import { spawnSync } from "node:child_process";
import { createRequire } from "node:module";
import { dirname, join } from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";
import { describe, expect, it } from "vitest";
import { type FlagError, type FlagSpec, flagUsage, parseGoFlags, parseGoInt, socketFlags } from "./go-flags.js";

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
    const specs = [
      { name: "idx", kind: "string", usage: "plugin index to register to NRI" },
      ...socketFlags("socket-path", "path of the NRI socket file"),
    ] as const;
    expect(parseGoFlags(specs, ["-socket", "/a.sock"], "p")).toEqual({ idx: "", "socket-path": "/a.sock" });
    expect(parseGoFlags(specs, ["--socket-path=/b.sock", "-idx", "10"], "p")).toEqual({
      idx: "10",
      "socket-path": "/b.sock",
    });
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

  it("reads int flags with Go's integer syntax, holds defaults and shows them in the usage as Go does", () => {
    const specs = [
      { name: "indices", kind: "string", usage: "where to register,\nas a list", default: "0,99" },
      { name: "verbose-level", kind: "int", usage: "how much to print" },
    ] as const;
    expect(parseGoFlags(specs, [], "p")).toEqual({ indices: "0,99", "verbose-level": 0 });
    expect(parseGoFlags(specs, ["-indices=", "-verbose-level", "2"], "p")).toEqual({ indices: "", "verbose-level": 2 });
    expect(parseGoFlags(specs, ["-verbose-level=0x1_0"], "p")["verbose-level"]).toBe(16);
    expect(flagUsage(specs, "p")).toBe(
      'Usage of p:\n  -indices string\n    \twhere to register,\n    \tas a list (default "0,99")\n  -verbose-level int\n    \thow much to print',
    );
    expect(() => parseGoFlags(specs, ["-verbose-level", "two"], "p")).toThrow(
      /^invalid value "two" for flag -verbose-level: parse error\n/,
    );
  });

  it("parses ints as strconv.ParseInt(s, 0, 64) does", () => {
    expect(["7", "+7", "-7", "017", "0o17", "0b101", "0XfF", "1_000", "0", "-0"].map(parseGoInt)).toEqual([
      7, 7, -7, 15, 15, 5, 255, 1000, 0, 0,
    ]);
    for (const bad of ["", "08", "1__0", "_1", "1_", "0x", " 1", "1.0", "--1"])
      expect(() => parseGoInt(bad), bad).toThrow("parse error");
    expect(() => parseGoInt("9223372036854775808")).toThrow("value out of range");
    expect(parseGoInt("-9223372036854775808")).toBe(-(2 ** 63));
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

describe("flagsOrExit", { timeout: 120_000 }, () => {
  /** A program whose main is `flagsOrExit(() => parseGoFlags(ULIMIT_ADJUSTER_FLAGS, argv, …))`, run with `argv`. */
  function program(...argv: string[]) {
    const goFlags = pathToFileURL(join(dirname(fileURLToPath(import.meta.url)), "go-flags.ts")).href;
    const main = `import { flagsOrExit, parseGoFlags } from ${JSON.stringify(goFlags)};
      const flags = flagsOrExit(() => parseGoFlags(${JSON.stringify(ULIMIT_ADJUSTER_FLAGS)}, process.argv.slice(1), "nri-ulimit-adjuster"));
      process.stdout.write(JSON.stringify(flags));`;
    const tsx = pathToFileURL(createRequire(import.meta.url).resolve("tsx")).href;
    return spawnSync(
      process.execPath,
      ["--conditions=@nri-ts/source", "--import", tsx, "--input-type=module", "-e", main, "--", ...argv],
      { encoding: "utf8" },
    );
  }

  it("gives the flags of a good command line", () => {
    const run = program("-idx", "10", "-verbose");
    expect([run.status, JSON.parse(run.stdout), run.stderr]).toEqual([
      0,
      { name: "", idx: "10", socket: "", verbose: true },
      "",
    ]);
  });

  it("ends the program as Go's flag.Parse does: the message on stderr, exit 2 for a bad command line, 0 for -h", () => {
    const bad = program("-idx");
    expect([bad.status, bad.stdout]).toEqual([2, ""]);
    expect(bad.stderr).toBe(`${failure("-idx").message}\n`);
    const help = program("-h");
    expect([help.status, help.stdout, help.stderr]).toEqual([
      0,
      "",
      `${flagUsage(ULIMIT_ADJUSTER_FLAGS, "nri-ulimit-adjuster")}\n`,
    ]);
  });
});
