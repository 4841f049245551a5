/**
 * Builds the exit record of a container end from what the runtime sent,
 * the causes and meanings declared for it, and the cgroup's OOM evidence.
 * It always produces a record: what is missing is flagged, not fatal.
 */
import type { Container, PodSandbox } from "@nri-ts/api";
import { causeApplies, type DeclaredCause } from "./causes.js";
import { stripWrapper, type WrapperPrefix } from "./command.js";
import { type ExitFacts, exitFacts } from "./exit-facts.js";
import { type Declared, explainExit } from "./explanation.js";
import { type ExitRecord, type OomCheck, OomVerdict, Source } from "../gen/nri_ts/exit_reporter/v1/exit_reporter.js";
import { boundRecord, limitText, RECORD_LIMITS, truncateWords } from "./record-limits.js";
import { type ExitRule, matchRule } from "../rules/rules.js";

/** The NRI events an exit is reported from. */
export type ExitEvent = "StopContainer" | "RemoveContainer";

/** The image annotation containerd's CRI puts on every container, for runtimes that do not fill `image`. */
const CRI_IMAGE_ANNOTATION = "io.kubernetes.cri.image-name";

export interface RecordInput {
  event: ExitEvent;
  pod: PodSandbox;
  container: Container;
  sequence: bigint;
  reportedAt: bigint;
  /** What the cgroup said; `NOT_CHECKED` when it was not asked. */
  oom: OomCheck;
  /** Causes that may explain the exit, the preferred first. */
  causes: readonly DeclaredCause[];
  /** Exit-code meanings declared by the pod, then the configuration's. */
  podMeanings: ReadonlyMap<number, string>;
  configMeanings: ReadonlyMap<number, string>;
  wrappers: readonly WrapperPrefix[];
  /** The configuration's rules (the first that matches is used); none by default. */
  rules?: readonly ExitRule[];
  /** What went wrong while gathering all this (bad annotations, ...). */
  problems: readonly string[];
}

export const NOT_CHECKED: OomCheck = { verdict: OomVerdict.OOM_VERDICT_NOT_CHECKED, evidence: "", path: "" };

function flagsOf(input: RecordInput, facts: ExitFacts): string[] {
  const flags: string[] = [];
  if (facts.exitCode === undefined) flags.push("no-exit-status");
  if (!facts.timesReported) flags.push("no-times");
  if (facts.neverStarted) flags.push("never-started");
  if (facts.startError) flags.push("start-error");
  if (facts.finishedEarlyByNs !== undefined) flags.push("finished-before-started");
  if (input.event === "RemoveContainer") flags.push("reported-at-removal");
  if (!input.pod.name) flags.push("no-pod");
  return flags;
}

function inferredReason(facts: ExitFacts, oomKilled: boolean): string {
  if (oomKilled) return "OOMKilled";
  if (facts.exitCode === undefined) return "";
  if (facts.startError) return "StartError";
  return facts.exitCode === 0 ? "Completed" : "Error";
}

/** The message the reporter can give itself, from the evidence or the code's meaning. */
function inferredMessage(facts: ExitFacts, oomKilled: boolean, oom: OomCheck): string {
  if (oomKilled && oom.verdict === OomVerdict.OOM_VERDICT_CONFIRMED) return `out of memory (${oom.evidence})`;
  if (facts.startError) return "the container's process could not be started";
  return facts.meaning?.description ?? "";
}

/**
 * The words declared for the code, the first there is: the pod's, the
 * matching rule's, the configuration's `exitCodes`.
 */
function declaredMeaning(
  input: RecordInput,
  code: number | undefined,
  rule: ExitRule | undefined,
): Declared | undefined {
  if (code === undefined) return undefined;
  const pod = input.podMeanings.get(code);
  if (pod !== undefined) return { text: limitText(pod, RECORD_LIMITS.message), source: Source.SOURCE_POD };
  if (rule?.meaning !== undefined)
    return { text: limitText(rule.meaning, RECORD_LIMITS.message), source: Source.SOURCE_CONFIG, by: rule.name };
  const config = input.configMeanings.get(code);
  if (config !== undefined) return { text: limitText(config, RECORD_LIMITS.message), source: Source.SOURCE_CONFIG };
  return undefined;
}

/** The container's PATH, if its environment sets one. */
function pathOf(env: readonly string[]): string | undefined {
  const entry = env.findLast((variable) => variable.startsWith("PATH="));
  return entry === undefined ? undefined : limitText(entry.slice(5), RECORD_LIMITS.name);
}

/**
 * The record of the end; its texts are cut to {@link RECORD_LIMITS} (the
 * runtime's and the pod's before the explanation quotes them).
 */
export function buildExitRecord(input: RecordInput): ExitRecord {
  const { pod, oom } = input;
  const container = {
    ...input.container,
    args: truncateWords(input.container.args, RECORD_LIMITS.command),
    statusReason: limitText(input.container.statusReason, RECORD_LIMITS.name),
    statusMessage: limitText(input.container.statusMessage, RECORD_LIMITS.message),
  };
  const facts = exitFacts(container);
  const code = facts.exitCode;
  const runtimeReason = container.statusReason;
  const runtimeMessage = container.statusMessage;
  const oomKilled =
    runtimeReason === "OOMKilled" ||
    (runtimeReason === "" && oom.verdict === OomVerdict.OOM_VERDICT_CONFIRMED && (code === 137 || code === undefined));
  const cause = input.causes.find((candidate) => causeApplies(candidate, code));
  const { command, wrapper } = stripWrapper(container.args, input.wrappers);
  const image = container.image?.name || container.annotations[CRI_IMAGE_ANNOTATION] || "";
  // A rule, like a declared meaning, is not for an end explained otherwise.
  const rule =
    cause || facts.startError || oomKilled
      ? undefined
      : matchRule(input.rules ?? [], { image, command, namespace: pod.namespace, exitCode: code });
  const declared = declaredMeaning(input, code, rule);

  const inferred = inferredReason(facts, oomKilled);
  let reason: [string, Source];
  if (cause) reason = [cause.reason, cause.source];
  else if (rule?.reason) reason = [rule.reason, Source.SOURCE_CONFIG];
  else if (runtimeReason) reason = [runtimeReason, Source.SOURCE_RUNTIME];
  else reason = [inferred, inferred ? Source.SOURCE_INFERRED : Source.SOURCE_UNSPECIFIED];

  let message: [string, Source];
  if (cause?.message) message = [cause.message, cause.source];
  else if (runtimeMessage) message = [runtimeMessage, Source.SOURCE_RUNTIME];
  else if (declared) message = [declared.text, declared.source];
  else {
    const text = inferredMessage(facts, oomKilled, oom);
    message = [text, text ? Source.SOURCE_INFERRED : Source.SOURCE_UNSPECIFIED];
  }
  const ruleUsed = rule && (reason[0] === rule.reason || (declared?.by === rule.name && message[0] === declared.text));

  // A failure of the wrapper itself is only understood with the wrapper in view: the runtime's message
  // names it, or it is what failed to start (the runtime starts the wrapper, which starts the command).
  const wrapperProgram = wrapper[0]?.slice(wrapper[0].lastIndexOf("/") + 1);
  const quoted =
    wrapperProgram && (runtimeMessage.includes(wrapperProgram) || facts.startError) ? container.args : command;

  return boundRecord({
    sequence: input.sequence,
    reportedAt: input.reportedAt,
    event: input.event,
    pod: { namespace: pod.namespace, name: pod.name, uid: pod.uid },
    container: { name: container.name, id: container.id, image },
    exitCode: code,
    signal: facts.meaning?.signalName ?? (facts.meaning?.signal !== undefined ? `signal ${facts.meaning.signal}` : ""),
    reason: reason[0],
    reasonSource: reason[1],
    message: message[0],
    messageSource: message[1],
    declaredBy: cause?.declaredBy ?? (message[1] === Source.SOURCE_POD ? "pod" : ruleUsed ? rule.name : ""),
    runtimeReason,
    runtimeMessage,
    createdAt: container.createdAt,
    startedAt: container.startedAt,
    finishedAt: container.finishedAt,
    runTimeNs: facts.runTimeNs,
    command,
    wrapper,
    explanation: explainExit({
      facts,
      cause,
      declared,
      runtimeReason,
      runtimeMessage,
      inferredReason: inferred,
      oom,
      command: quoted,
      path: pathOf(container.env),
    }),
    oom,
    flags: flagsOf(input, facts),
    notes: [...input.problems],
  });
}
