import { Container, ContainerState, type DeepPartial, PodSandbox } from "@nri-ts/api";
import { describe, expect, it } from "vitest";
import { decodeConfig, ExitReporterConfigError } from "../config.js";
import { Source } from "../gen/nri_ts/exit_reporter/v1/exit_reporter.js";
import type { DeclaredCause } from "../record/causes.js";
import { buildExitRecord, NOT_CHECKED, type RecordInput } from "../record/record.js";
import { imageRepository, matchRule } from "./rules.js";

const S = 1_000_000_000n;
const pod = PodSandbox.fromPartial({ name: "loader-7", namespace: "batch", uid: "uid-1" });

function ended(fields: DeepPartial<Container>): Container {
  return Container.fromPartial({
    id: "ctr1",
    name: "load",
    state: ContainerState.CONTAINER_STOPPED,
    image: { name: "registry.example.com/batch/loader:1.2" },
    args: ["/usr/bin/tini", "--", "load-input", "--bucket", "in"],
    createdAt: S,
    startedAt: 2n * S,
    finishedAt: 5n * S,
    ...fields,
  });
}

const CONFIG = `
commandWrappers: ["tini --"]
exitCodes: {3: the configuration's table says so}
rules:
  - name: empty-input
    image: "registry.example.com/batch/*"
    command: "^load-input( |$)"
    namespace: "batch*"
    exitCodes: [3]
    meaning: the input bucket is empty
    reason: InputMissing
  - image: registry.example.com/batch/loader
    exitCodes: [4, 5]
    meaning: the output bucket refused the upload
  - command: "--dry-run"
    reason: DryRun
`;

function record(container: Container, input: Partial<RecordInput> = {}) {
  const config = decodeConfig(CONFIG);
  return buildExitRecord({
    event: "StopContainer",
    pod,
    container,
    sequence: 1n,
    reportedAt: 6n * S,
    oom: NOT_CHECKED,
    causes: [],
    podMeanings: new Map(),
    configMeanings: config.exitCodes,
    wrappers: config.commandWrappers,
    rules: config.rules,
    problems: [],
    ...input,
  });
}

describe("rules by image and command", () => {
  it("the issue's example: an image of registry.example.com/batch/*, code 3: the input bucket is empty", () => {
    expect(record(ended({ exitCode: 3 }))).toMatchObject({
      reason: "InputMissing",
      reasonSource: Source.SOURCE_CONFIG,
      message: "the input bucket is empty",
      messageSource: Source.SOURCE_CONFIG,
      declaredBy: "empty-input",
      explanation:
        "exited with code 3: the input bucket is empty (as the reporter's rule empty-input says); ran for 3s",
    });
  });

  it("matches the command without its wrapper, the namespace, the image with or without its tag, and the codes", () => {
    // the command without tini: a regular expression anchored at its start still matches
    expect(record(ended({ exitCode: 3 })).declaredBy).toBe("empty-input");
    // another command, another namespace, another code: the rule is not for them
    expect(record(ended({ exitCode: 3, args: ["tini", "--", "other"] })).declaredBy).toBe("");
    expect(record(ended({ exitCode: 3 }), { pod: { ...pod, namespace: "web" } }).declaredBy).toBe("");
    expect(record(ended({ exitCode: 6 })).declaredBy).toBe("");
    // the second rule names the repository without a tag: it matches every tag
    expect(record(ended({ exitCode: 5 }))).toMatchObject({
      declaredBy: "rules[1]",
      reason: "Error",
      explanation:
        "exited with code 5: the output bucket refused the upload (as the reporter's rule rules[1] says); ran for 3s",
    });
    // a rule without codes is for any end but a clean one
    expect(record(ended({ exitCode: 1, args: ["load-input", "--dry-run"] }))).toMatchObject({
      reason: "DryRun",
      declaredBy: "rules[2]",
    });
    expect(record(ended({ exitCode: 0, args: ["load-input", "--dry-run"] })).reason).toBe("Completed");
  });

  it("reads image names as registries write them", () => {
    expect(imageRepository("registry.example.com:5000/batch/loader:1.2")).toBe(
      "registry.example.com:5000/batch/loader",
    );
    expect(imageRepository("registry.example.com:5000/batch/loader")).toBe("registry.example.com:5000/batch/loader");
    expect(imageRepository("loader@sha256:0123")).toBe("loader");
    expect(matchRule(decodeConfig(CONFIG).rules, { image: "", command: [], namespace: "", exitCode: 9 })).toBe(
      undefined,
    );
  });
});

describe("precedence: causes, then the pod, then rules, then exitCodes, then the built-in table", () => {
  const setupFailed: DeclaredCause = {
    declaredBy: "10-setup",
    source: Source.SOURCE_PLUGIN,
    reason: "SetupFailed",
    message: "failed to start a user-defined container",
    exitCodes: [],
  };

  it("a cause from another plugin wins over a rule", () => {
    expect(record(ended({ exitCode: 3 }), { causes: [setupFailed] })).toMatchObject({
      reason: "SetupFailed",
      declaredBy: "10-setup",
      explanation: "stopped by plugin 10-setup: failed to start a user-defined container (exit 3); ran for 3s",
    });
  });

  it("the pod's meaning wins over a rule's meaning; the rule's reason stays", () => {
    expect(record(ended({ exitCode: 3 }), { podMeanings: new Map([[3, "the pod knows better"]]) })).toMatchObject({
      reason: "InputMissing",
      message: "the pod knows better",
      messageSource: Source.SOURCE_POD,
      declaredBy: "pod",
      explanation: "exited with code 3: the pod knows better (as the pod declares); ran for 3s",
    });
  });

  it("a rule wins over the configuration's exitCodes, which win over the built-in table", () => {
    expect(record(ended({ exitCode: 3 })).message).toBe("the input bucket is empty");
    expect(record(ended({ exitCode: 3, args: ["other"] })).explanation).toBe(
      "exited with code 3: the configuration's table says so (as the reporter's configuration says); ran for 3s",
    );
    expect(record(ended({ exitCode: 2, args: ["other"] })).explanation).toMatch(
      /^exited with code 2 \(incorrect usage\)/,
    );
  });

  it("a rule is not for an end explained otherwise: an OOM kill, a failure to start", () => {
    const oomRule = decodeConfig("rules: [{exitCodes: [137, 128], meaning: never used, reason: Never}]").rules;
    expect(record(ended({ exitCode: 137, statusReason: "OOMKilled" }), { rules: oomRule }).reason).toBe("OOMKilled");
    expect(record(ended({ exitCode: 128, startedAt: 0n }), { rules: oomRule }).reason).toBe("StartError");
    expect(record(ended({ exitCode: 137 }), { rules: oomRule }).reason).toBe("Never");
  });
});

describe("rules in the configuration", () => {
  const issues = (text: string) => {
    try {
      decodeConfig(text);
    } catch (error) {
      if (error instanceof ExitReporterConfigError)
        return error.issues.map((i) => `${i.line}:${i.column} ${i.path}: ${i.message}`);
      throw error;
    }
    return [];
  };

  it("refuses a regular expression or a glob that cannot be read, naming the rule by its index and quoting it", () => {
    expect(
      issues(`rules:
  - {command: "(migrate", meaning: m}
  - {image: "registry.example.com/batch/[a-", namespace: "team-[z-a]", reason: R}
`),
    ).toEqual([
      '2:15 rules[0].command: invalid regular expression "(migrate": Unterminated group',
      '3:13 rules[1].image: invalid glob "registry.example.com/batch/[a-": "[" at 28 is not closed by "]"',
      '3:58 rules[1].namespace: invalid glob "team-[z-a]": the set at 6: Invalid regular expression: /[z-a]/u: Range out of order in character class',
    ]);
  });

  it("names every other mistake of a rule", () => {
    expect(
      issues(`rules:
  - {image: x}
  - {meaning: "", reason: "not camel", exitCodes: [0, 3], colour: red}
  - just a text
`),
    ).toEqual([
      "2:5 rules[0]: a rule gives a meaning or a reason (or both)",
      "3:15 rules[1].meaning: expected the words saying what the end means",
      '3:27 rules[1].reason: expected a short CamelCase word such as "InputMissing" (letters and digits, at most 64), got "not camel"',
      "3:52 rules[1].exitCodes[0]: expected an exit code from 1 to 255 (0 is a clean end), got 0",
      "3:59 rules[1].colour: unknown field (known: name, image, command, namespace, exitCodes, meaning, reason)",
      '4:5 rules[2]: expected a mapping, got "just a text"',
    ]);
  });
});
