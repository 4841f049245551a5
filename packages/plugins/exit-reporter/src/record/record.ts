/**
 * Builds the exit record of a container end from what the runtime sent,
 * the causes and meanings declared for it, and the cgroup's OOM evidence.
 * It always produces a record: what is missing is flagged, not fatal.
 */
import type { Container, PodSandbox } from "@nri-ts/api";
import { causeApplies, type DeclaredCause } from "./causes.js";
import { stripWrapper, type WrapperPrefix } from "./command.js";
import { type ExitFacts, exitFacts } from "./exit-facts.js";
import { explainExit } from "./explanation.js";
import { type ExitRecord, type OomCheck, OomVerdict, Source } from "../gen/nri_ts/exit_reporter/v1/exit_reporter.js";
import { boundRecord, limitText, RECORD_LIMITS, truncateWords } from "./record-limits.js";

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
  const podMeaning = code === undefined ? undefined : input.podMeanings.get(code);
  const configMeaning = code === undefined ? undefined : input.configMeanings.get(code);
  const declared =
    podMeaning !== undefined
      ? { text: limitText(podMeaning, RECORD_LIMITS.message), source: Source.SOURCE_POD }
      : configMeaning !== undefined
        ? { text: limitText(configMeaning, RECORD_LIMITS.message), source: Source.SOURCE_CONFIG }
        : undefined;

  const inferred = inferredReason(facts, oomKilled);
  let reason: [string, Source];
  if (cause) reason = [cause.reason, cause.source];
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

  const { command, wrapper } = stripWrapper(container.args, input.wrappers);
  // A failure of the wrapper itself is only understood with the wrapper in view.
  const wrapperProgram = wrapper[0]?.slice(wrapper[0].lastIndexOf("/") + 1);
  const quoted = wrapperProgram && runtimeMessage.includes(wrapperProgram) ? container.args : command;

  return boundRecord({
    sequence: input.sequence,
    reportedAt: input.reportedAt,
    event: input.event,
    pod: { namespace: pod.namespace, name: pod.name, uid: pod.uid },
    container: {
      name: container.name,
      id: container.id,
      image: container.image?.name || container.annotations[CRI_IMAGE_ANNOTATION] || "",
    },
    exitCode: code,
    signal: facts.meaning?.signalName ?? (facts.meaning?.signal !== undefined ? `signal ${facts.meaning.signal}` : ""),
    reason: reason[0],
    reasonSource: reason[1],
    message: message[0],
    messageSource: message[1],
    declaredBy: cause?.declaredBy ?? (message[1] === Source.SOURCE_POD ? "pod" : ""),
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
    }),
    oom,
    flags: flagsOf(input, facts),
    notes: [...input.problems],
  });
}
