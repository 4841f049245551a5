import { signalName } from "@nri-ts/api";
import { describe, expect, it } from "vitest";
import { explainExitCode } from "./exit-code.js";

describe("explainExitCode", () => {
  it.each([
    [0, { description: "success", detail: "the process ended normally" }],
    [1, { description: "general error", detail: "the program reported a failure; its log usually says what it was" }],
    [
      2,
      { description: "incorrect usage", detail: "shells and many programs exit 2 on a bad option, argument or script" },
    ],
    [
      125,
      {
        description: "the container runtime failed",
        detail: "docker and podman exit 125 when they fail themselves, before the command runs",
      },
    ],
    [
      126,
      {
        description: "command found but not executable",
        detail: "the command exists but cannot run: no execute permission, or not a program the kernel can run",
      },
    ],
    [127, { description: "command not found", detail: "the command is not in the image or not on its PATH" }],
    [
      128,
      { description: "start error", detail: "runtimes report 128 for a container whose process could not be started" },
    ],
    [
      130,
      {
        description: "killed by signal 2 (SIGINT)",
        detail: "interrupted, as by Ctrl-C",
        signal: 2,
        signalName: "SIGINT",
      },
    ],
    [
      137,
      {
        description: "killed by signal 9 (SIGKILL), often by the out-of-memory killer",
        detail: "killed outright, often by the out-of-memory killer",
        signal: 9,
        signalName: "SIGKILL",
      },
    ],
    [
      139,
      {
        description: "killed by signal 11 (SIGSEGV)",
        detail: "a segmentation fault (the program accessed memory it may not)",
        signal: 11,
        signalName: "SIGSEGV",
      },
    ],
    [
      143,
      {
        description: "killed by signal 15 (SIGTERM)",
        detail: "asked to terminate, as a runtime does when it stops a container",
        signal: 15,
        signalName: "SIGTERM",
      },
    ],
    [
      138,
      {
        description: "killed by signal 10 (SIGUSR1)",
        detail: "the process got SIGUSR1",
        signal: 10,
        signalName: "SIGUSR1",
      },
    ],
    [
      159,
      {
        description: "killed by signal 31 (SIGSYS)",
        detail: "the program made a system call its seccomp profile forbids",
        signal: 31,
        signalName: "SIGSYS",
      },
    ],
    [
      162,
      {
        description: "killed by signal 34",
        detail: "a real-time signal, sent on purpose by another process",
        signal: 34,
      },
    ],
    [
      192,
      {
        description: "killed by signal 64",
        detail: "a real-time signal, sent on purpose by another process",
        signal: 64,
      },
    ],
  ])("%i means %o", (code, meaning) => {
    expect(explainExitCode(code)).toEqual(meaning);
  });

  it.each([3, 42, 124, 193, 255, -1, 1.5])("has nothing to say about %d", (code) => {
    expect(explainExitCode(code)).toBeUndefined();
  });

  it("hands out copies, so a caller cannot change the table", () => {
    const meaning = explainExitCode(127)!;
    meaning.description = "changed";
    expect(explainExitCode(127)?.description).toBe("command not found");
  });

  it("names Linux signals", () => {
    expect(signalName(1)).toBe("SIGHUP");
    expect(signalName(17)).toBe("SIGCHLD");
    expect(signalName(0)).toBeUndefined();
    expect(signalName(32)).toBeUndefined();
  });
});
