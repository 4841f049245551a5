import { Container, PodSandbox } from "@nri-ts/api";
import { describe, expect, it } from "vitest";
import { readDeclarations } from "./annotations.js";
import { Source } from "../gen/nri_ts/exit_reporter/v1/exit_reporter.js";

function read(podAnnotations: Record<string, string>, containerAnnotations: Record<string, string> = {}) {
  return readDeclarations(
    PodSandbox.fromPartial({ name: "web", annotations: podAnnotations }),
    Container.fromPartial({ name: "worker", annotations: containerAnnotations }),
  );
}

describe("exit-code meanings declared by the pod", () => {
  it("merges the pod's table with the container's, the container's winning", () => {
    const { meanings, problems } = read({
      "exit-codes.exit-reporter.nri-ts.dev/pod": "{3: the configuration is missing, 4: the database is down}",
      "exit-codes.exit-reporter.nri-ts.dev/container.worker": "3: the queue is unreachable\n",
      "exit-codes.exit-reporter.nri-ts.dev/container.other": "{5: not for this one}",
    });
    expect(problems).toEqual([]);
    expect(meanings).toEqual(
      new Map([
        [3, "the queue is unreachable"],
        [4, "the database is down"],
      ]),
    );
  });

  it("reports a bad table as a problem and keeps the good ones", () => {
    const { meanings, problems } = read({
      "exit-codes.exit-reporter.nri-ts.dev/pod": "{3: fine}",
      "exit-codes.exit-reporter.nri-ts.dev/container.worker": "{x: 1}",
    });
    expect(meanings).toEqual(new Map([[3, "fine"]]));
    expect(problems).toEqual([
      "annotation exit-codes.exit-reporter.nri-ts.dev/container.worker: x: expected a whole number as exit code",
    ]);
  });

  it("keeps a table's good entries and names each bad one", () => {
    const { meanings, problems } = read({
      "exit-codes.exit-reporter.nri-ts.dev/pod": "{1: the job failed, x: 1, 3: '', 4: the database is down, 2.5: half}",
    });
    expect(meanings).toEqual(
      new Map([
        [1, "the job failed"],
        [4, "the database is down"],
      ]),
    );
    expect(problems).toEqual([
      "annotation exit-codes.exit-reporter.nri-ts.dev/pod: 3: expected a text saying what the code means",
      "annotation exit-codes.exit-reporter.nri-ts.dev/pod: x: expected a whole number as exit code",
      "annotation exit-codes.exit-reporter.nri-ts.dev/pod: 2.5: expected a whole number as exit code",
    ]);
  });
});

describe("causes", () => {
  it("reads plugins' causes from the container, then the pod's for the container, then for the pod", () => {
    const { causes, problems } = read(
      {
        "cause.exit-reporter.nri-ts.dev/pod": "{reason: Preempted, message: the batch window closed}",
        "cause.exit-reporter.nri-ts.dev/container.worker": "{reason: JobDone, exitCodes: [0, 3]}",
      },
      {
        "cause.exit-reporter.nri-ts.dev/plugin.10-hooks":
          "{reason: HookFailed, message: the gpu-setup hook failed, exitCodes: [128]}",
      },
    );
    expect(problems).toEqual([]);
    expect(causes).toEqual([
      {
        declaredBy: "10-hooks",
        source: Source.SOURCE_PLUGIN,
        reason: "HookFailed",
        message: "the gpu-setup hook failed",
        exitCodes: [128],
      },
      { declaredBy: "pod", source: Source.SOURCE_POD, reason: "JobDone", message: "", exitCodes: [0, 3] },
      {
        declaredBy: "pod",
        source: Source.SOURCE_POD,
        reason: "Preempted",
        message: "the batch window closed",
        exitCodes: [],
      },
    ]);
  });

  it.each([
    [
      "{message: no reason}",
      'reason: expected a short CamelCase word such as "Evicted" (letters and digits, at most 64), got ""',
    ],
    [
      "{reason: not camel case}",
      'reason: expected a short CamelCase word such as "Evicted" (letters and digits, at most 64), got "not camel case"',
    ],
    ["{reason: Ok, exitCodes: 3}", "exitCodes: expected a list of exit codes"],
    ["{reason: Ok, exitCodes: [1.5]}", "exitCodes: expected whole numbers, got 1.5"],
    ["{reason: Ok, why: x}", "unknown field why (known: reason, message, exitCodes)"],
    ["just words", "expected a mapping with reason, message and exitCodes"],
    [
      "{reason: [",
      "not YAML: Flow sequence in block collection must be sufficiently indented and end with a ] at line 1, column 11:",
    ],
  ])("refuses %j, naming the annotation", (text, problem) => {
    const { causes, problems } = read({ "cause.exit-reporter.nri-ts.dev/pod": text });
    expect(causes).toEqual([]);
    expect(problems).toEqual([`annotation cause.exit-reporter.nri-ts.dev/pod: ${problem}`]);
  });

  it("refuses a plugin name the runtime would not accept", () => {
    const { problems } = read({}, { "cause.exit-reporter.nri-ts.dev/plugin.bad name": "{reason: Ok}" });
    expect(problems).toEqual([
      'annotation cause.exit-reporter.nri-ts.dev/plugin.bad name: declared_by: expected a plugin name (letters, digits, "_.+-", at most 63), got "bad name"',
    ]);
  });

  it("refuses YAML nested too deep without parsing it", () => {
    const { problems } = read({ "cause.exit-reporter.nri-ts.dev/pod": "[".repeat(1000) });
    expect(problems).toEqual(["annotation cause.exit-reporter.nri-ts.dev/pod: nested deeper than 300 levels"]);
  });
});
