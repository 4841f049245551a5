/**
 * How big one exit record may get. Its texts come from the runtime (the
 * command line, the status message), from pods (annotations) and from
 * plugins (causes): a pod whose command line is a megabyte must not make
 * every record that quotes it a megabyte, in the recent ring, in each
 * watcher's queue and in the JSON lines. Longer texts are cut as the
 * runtime side cuts plugins' (`boundedText` of `@nri-ts/common`): the head, and
 * a mark saying how many bytes were left out (`… [995967 more bytes]`).
 */
import { boundedText } from "@nri-ts/common";
import type { ExitRecord } from "../gen/nri_ts/exit_reporter/v1/exit_reporter.js";

/** The bytes (UTF-8) of each kind of text a record keeps; a cut text then says how much was left out. */
export const RECORD_LIMITS = {
  /** A message: the runtime's, a cause's, a declared meaning. */
  message: 4096,
  /** The explanation, which quotes a message and the command. */
  explanation: 8192,
  /** The words of a command line (or of its wrapper) together, their marks included. */
  command: 4096,
  /** A name, an id, a reason, a path. */
  name: 1024,
  /** One note, and how many notes. */
  note: 1024,
  notes: 16,
} as const;

/** Room for the mark of a cut text, `… [N more bytes]`, and for the last word, `… [N more words]`. */
const MARK_ROOM = 40;
const TAIL_ROOM = 32;

/**
 * `text` cut to `limit` bytes and marked, unless it fits in them with room
 * for a mark: a text cut once is not cut again.
 */
export function limitText(text: string, limit: number): string {
  return boundedText(text, limit + MARK_ROOM) === text ? text : boundedText(text, limit);
}

/** A word shorter than this is not worth cutting: it is left out with the rest. */
const MIN_CUT = 64;

/**
 * `words` whole when they fit in `maxBytes` together, each counted with the
 * space after it; else the words that fit (the first that does not, cut),
 * and a last word saying how many were left out. What comes out fits, so
 * cutting it again changes nothing.
 */
export function truncateWords(words: readonly string[], maxBytes: number): string[] {
  let total = 0;
  for (let i = 0; i < words.length && total <= maxBytes; i++) total += Buffer.byteLength(words[i]) + 1;
  if (total <= maxBytes) return [...words];
  const out: string[] = [];
  let left = maxBytes - TAIL_ROOM;
  let shown = 0;
  for (; shown < words.length; shown++) {
    const size = Buffer.byteLength(words[shown]) + 1;
    if (size > left) break;
    out.push(words[shown]);
    left -= size;
  }
  if (left - 1 - MARK_ROOM >= MIN_CUT) out.push(boundedText(words[shown++], left - 1 - MARK_ROOM));
  if (shown < words.length) out.push(`… [${words.length - shown} more words]`);
  return out;
}

/** The record with every text within {@link RECORD_LIMITS}; a record within them comes back as it is. */
export function boundRecord(record: ExitRecord): ExitRecord {
  const name = (text: string) => limitText(text, RECORD_LIMITS.name);
  const message = (text: string) => limitText(text, RECORD_LIMITS.message);
  const notes = record.notes.slice(0, RECORD_LIMITS.notes).map((note) => limitText(note, RECORD_LIMITS.note));
  if (record.notes.length > RECORD_LIMITS.notes)
    notes.push(`… [${record.notes.length - RECORD_LIMITS.notes} more notes]`);
  return {
    ...record,
    event: name(record.event),
    pod: record.pod && {
      namespace: name(record.pod.namespace),
      name: name(record.pod.name),
      uid: name(record.pod.uid),
    },
    container: record.container && {
      name: name(record.container.name),
      id: name(record.container.id),
      image: name(record.container.image),
    },
    signal: name(record.signal),
    reason: name(record.reason),
    message: message(record.message),
    declaredBy: name(record.declaredBy),
    runtimeReason: name(record.runtimeReason),
    runtimeMessage: message(record.runtimeMessage),
    command: truncateWords(record.command, RECORD_LIMITS.command),
    wrapper: truncateWords(record.wrapper, RECORD_LIMITS.command),
    explanation: limitText(record.explanation, RECORD_LIMITS.explanation),
    oom: record.oom && { ...record.oom, evidence: message(record.oom.evidence), path: name(record.oom.path) },
    flags: record.flags.map(name),
    notes,
  };
}
