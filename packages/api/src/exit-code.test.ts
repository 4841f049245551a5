import { describe, expect, it } from "vitest";
import { explainExitCode, signalName } from "./exit-code.js";

describe("explainExitCode", () => {
  it.each([
    [0, { description: "success" }],
    [126, { description: "command found but not executable" }],
    [127, { description: "command not found" }],
    [130, { description: "killed by signal 2 (SIGINT)", signal: 2, signalName: "SIGINT" }],
    [
      137,
      {
        description: "killed by signal 9 (SIGKILL), often by the out-of-memory killer",
        signal: 9,
        signalName: "SIGKILL",
      },
    ],
    [139, { description: "killed by signal 11 (SIGSEGV)", signal: 11, signalName: "SIGSEGV" }],
    [143, { description: "killed by signal 15 (SIGTERM)", signal: 15, signalName: "SIGTERM" }],
    [159, { description: "killed by signal 31 (SIGSYS)", signal: 31, signalName: "SIGSYS" }],
    [162, { description: "killed by signal 34", signal: 34 }],
    [192, { description: "killed by signal 64", signal: 64 }],
  ])("%i means %o", (code, meaning) => {
    expect(explainExitCode(code)).toEqual(meaning);
  });

  it.each([1, 2, 125, 128, 193, 255, -1, 1.5])("has nothing to say about %d", (code) => {
    expect(explainExitCode(code)).toBeUndefined();
  });

  it("names Linux signals", () => {
    expect(signalName(1)).toBe("SIGHUP");
    expect(signalName(17)).toBe("SIGCHLD");
    expect(signalName(0)).toBeUndefined();
    expect(signalName(32)).toBeUndefined();
  });
});
