/**
 * An exit record as a JSON object, as the JSON-lines output writes it and
 * `nri-exits --json` prints it: times in RFC 3339 with nanoseconds, the run
 * time in seconds, sources and verdicts as lower-case words, empty fields
 * left out.
 */
import { formatTimestampNs } from "@nri-ts/api";
import { type ExitRecord, OomVerdict, Source } from "../gen/nri_ts/exit_reporter/v1/exit_reporter.js";

const SOURCES: Readonly<Record<number, string>> = {
  [Source.SOURCE_RUNTIME]: "runtime",
  [Source.SOURCE_INFERRED]: "inferred",
  [Source.SOURCE_POD]: "pod",
  [Source.SOURCE_PLUGIN]: "plugin",
  [Source.SOURCE_CONFIG]: "config",
};

const VERDICTS: Readonly<Record<number, string>> = {
  [OomVerdict.OOM_VERDICT_NOT_CHECKED]: "not-checked",
  [OomVerdict.OOM_VERDICT_CONFIRMED]: "confirmed",
  [OomVerdict.OOM_VERDICT_NOT_FOUND]: "not-found",
  [OomVerdict.OOM_VERDICT_UNKNOWN]: "unknown",
};

/** A source as the JSON shows it (`runtime`, `inferred`, `pod`, `plugin`, `config`), "" for none. */
export function sourceWord(source: Source): string {
  return SOURCES[source] ?? "";
}

function dropEmpty(object: Record<string, unknown>): Record<string, unknown> {
  return Object.fromEntries(
    Object.entries(object).filter(
      ([, value]) => value !== undefined && value !== "" && !(Array.isArray(value) && value.length === 0),
    ),
  );
}

export function exitRecordToJson(record: ExitRecord): Record<string, unknown> {
  return dropEmpty({
    time: formatTimestampNs(record.reportedAt),
    sequence: Number(record.sequence),
    event: record.event,
    pod: record.pod && dropEmpty({ ...record.pod }),
    container: record.container && dropEmpty({ ...record.container }),
    exitCode: record.exitCode ?? null,
    signal: record.signal,
    reason: record.reason,
    reasonSource: sourceWord(record.reasonSource),
    message: record.message,
    messageSource: sourceWord(record.messageSource),
    declaredBy: record.declaredBy,
    runtimeReason: record.runtimeReason,
    runtimeMessage: record.runtimeMessage,
    createdAt: formatTimestampNs(record.createdAt),
    startedAt: formatTimestampNs(record.startedAt),
    finishedAt: formatTimestampNs(record.finishedAt),
    runSeconds: record.runTimeNs === undefined ? undefined : Number(record.runTimeNs) / 1e9,
    command: record.command,
    wrapper: record.wrapper,
    explanation: record.explanation,
    oom:
      record.oom && record.oom.verdict !== OomVerdict.OOM_VERDICT_NOT_CHECKED
        ? dropEmpty({
            verdict: VERDICTS[record.oom.verdict] ?? "unknown",
            evidence: record.oom.evidence,
            path: record.oom.path,
          })
        : undefined,
    flags: record.flags,
    notes: record.notes,
  });
}
