import { describe, expect, it } from "vitest";
import { FlagError, parseFlags, usage } from "./flags.js";

describe("parseFlags", () => {
  it("reads Go-style flags", () => {
    expect(parseFlags(["-idx", "10", "--events=CreateContainer,StopContainer", "-set-env", "SEEN"])).toMatchObject({
      idx: "10",
      events: "CreateContainer,StopContainer",
      setEnv: "SEEN",
      socketPath: "",
    });
  });

  it("prints the usage for -h and refuses unknown flags with status 2", () => {
    expect(() => parseFlags(["-h"])).toThrow(new FlagError(usage("nri-logger"), 0));
    const unknown = (() => {
      try {
        parseFlags(["-verbose"]);
      } catch (error) {
        return error as FlagError;
      }
    })();
    expect(unknown?.exitCode).toBe(2);
    expect(unknown?.message.split("\n")[0]).toBe("flag provided but not defined: -verbose");
    expect(() => parseFlags(["-idx"])).toThrow("flag needs an argument: -idx");
  });

  it("lists the flags as Go's flag package does", () => {
    expect(usage("nri-logger").split("\n").slice(0, 3)).toEqual([
      "Usage of nri-logger:",
      "  -add-annotation string",
      "    \tadd this annotation to containers",
    ]);
  });
});
