import { expect, it } from "vitest";
import { describeExitCode, exitSignal, signalName } from "./exit-status.js";

it.each([
  [0, "success"],
  [127, "command not found"],
  [128, "start error"],
  [137, "killed by signal 9 (SIGKILL), often by the out-of-memory killer"],
  [143, "killed by signal 15 (SIGTERM)"],
  [170, "killed by signal 42"],
  [3, undefined],
  [193, undefined],
  [-1, undefined],
])("describes exit code %i as %s", (code, description) => {
  expect(describeExitCode(code)).toBe(description);
});

it("names signals 1 to 31 and tells the signal of codes 129 to 192", () => {
  expect([signalName(1), signalName(9), signalName(31), signalName(32)]).toEqual([
    "SIGHUP",
    "SIGKILL",
    "SIGSYS",
    undefined,
  ]);
  expect([exitSignal(129), exitSignal(192), exitSignal(128), exitSignal(193), exitSignal(130.5)]).toEqual([
    1,
    64,
    undefined,
    undefined,
    undefined,
  ]);
});
