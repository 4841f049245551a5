/**
 * Causes: why a container ended, declared by whoever made it end, before
 * the exit: another plugin (through the gRPC service, or an annotation it
 * puts on the container) or the pod (an annotation). The reporter keeps the
 * ones attached over gRPC in a bounded book until the exit, their time to
 * live, or the container's removal: at most `maxContainers` containers,
 * {@link CAUSE_LIMITS} causes each and bytes in all, the oldest forgotten
 * first to make room.
 */
import { BoundedMap } from "./bounded-map.js";
import type { Source } from "../gen/nri_ts/exit_reporter/v1/exit_reporter.js";

export interface DeclaredCause {
  /** The plugin (e.g. `10-evictor`), or `pod`. */
  declaredBy: string;
  source: Source.SOURCE_PLUGIN | Source.SOURCE_POD;
  /** Short CamelCase, e.g. `Evicted`. */
  reason: string;
  message: string;
  /** The exit codes the cause applies to; empty means any exit but a clean one. */
  exitCodes: readonly number[];
}

const REASON = /^[A-Za-z][A-Za-z0-9]{0,63}$/;

/** Whether `word` can be a reason: a short CamelCase word (letters and digits, at most 64), as a cause's or a rule's. */
export function isReasonWord(word: string): boolean {
  return REASON.test(word);
}
const DECLARER = /^[A-Za-z0-9_.+-]{1,63}$/;
const MAX_MESSAGE = 1024;

/** What the cause book keeps at most (beyond `maxContainers`), and how many exit codes one cause may name. */
export const CAUSE_LIMITS = {
  /** Causes (declarers) for one container. */
  perContainer: 16,
  /** The causes' texts (UTF-8) and codes (8 bytes each), over every container. */
  bytes: 16 * 1024 * 1024,
  /** Exit codes one cause names. */
  exitCodes: 256,
} as const;

/** What is wrong with a cause, or undefined. */
export function causeProblem(cause: Omit<DeclaredCause, "source">): string | undefined {
  if (!DECLARER.test(cause.declaredBy)) {
    return `declared_by: expected a plugin name (letters, digits, "_.+-", at most 63), got ${JSON.stringify(cause.declaredBy)}`;
  }
  if (!isReasonWord(cause.reason)) {
    return `reason: expected a short CamelCase word such as "Evicted" (letters and digits, at most 64), got ${JSON.stringify(cause.reason)}`;
  }
  if (cause.message.length > MAX_MESSAGE)
    return `message: at most ${MAX_MESSAGE} characters, got ${cause.message.length}`;
  if (cause.exitCodes.length > CAUSE_LIMITS.exitCodes)
    return `exit_codes: at most ${CAUSE_LIMITS.exitCodes}, got ${cause.exitCodes.length}`;
  const bad = cause.exitCodes.find((code) => !Number.isInteger(code));
  if (bad !== undefined) return `exit_codes: expected whole numbers, got ${bad}`;
  return undefined;
}

/**
 * Whether the cause explains an exit with this code (undefined: the runtime
 * did not say). A cause without codes explains any exit but a clean one.
 */
export function causeApplies(cause: DeclaredCause, exitCode: number | undefined): boolean {
  if (cause.exitCodes.length === 0) return exitCode !== 0;
  return exitCode !== undefined && cause.exitCodes.includes(exitCode);
}

interface Entry {
  cause: DeclaredCause;
  expiresAt: number;
  bytes: number;
}

/** What a cause takes in the book: its texts and its codes. */
function causeBytes(cause: DeclaredCause): number {
  return (
    Buffer.byteLength(cause.declaredBy) +
    Buffer.byteLength(cause.reason) +
    Buffer.byteLength(cause.message) +
    8 * cause.exitCodes.length
  );
}

function sumBytes(entries: readonly Entry[]): number {
  return entries.reduce((total, entry) => total + entry.bytes, 0);
}

export interface CauseBookOptions {
  /** How long a cause is kept, in milliseconds, unless its declarer says otherwise. */
  ttlMs: number;
  /** How many containers can have causes at once; beyond, the oldest are forgotten. */
  maxContainers: number;
  /** Causes for one container; default CAUSE_LIMITS.perContainer. */
  maxPerContainer?: number;
  /** Bytes of all causes; default CAUSE_LIMITS.bytes. */
  maxBytes?: number;
  /** The clock, in milliseconds. */
  now?: () => number;
}

/** What attaching a cause did. */
export interface Attached {
  /** A cause from the same declarer was replaced. */
  replaced: boolean;
  /**
   * Causes forgotten to make room, oldest first: how many, and the
   * containers left with none (absent when nothing was).
   */
  forgotten?: { causes: number; containers: string[] };
}

/** Causes attached ahead of exits, by container id. */
export class CauseBook {
  private readonly byContainer: BoundedMap<string, Entry[]>;
  private readonly now: () => number;
  private readonly maxPerContainer: number;
  private readonly maxBytes: number;
  private bytesKept = 0;

  constructor(private readonly options: CauseBookOptions) {
    this.byContainer = new BoundedMap(options.maxContainers);
    this.now = options.now ?? Date.now;
    this.maxPerContainer = options.maxPerContainer ?? CAUSE_LIMITS.perContainer;
    this.maxBytes = options.maxBytes ?? CAUSE_LIMITS.bytes;
  }

  /**
   * Keeps a cause for the container, replacing one from the same declarer;
   * the oldest causes (this container's beyond its limit, then the oldest
   * containers') are forgotten to stay within the limits.
   */
  attach(containerId: string, cause: DeclaredCause, ttlMs = this.options.ttlMs): Attached {
    const live = this.live(containerId);
    const others = live.filter((entry) => entry.cause.declaredBy !== cause.declaredBy);
    const replaced = others.length < live.length;
    const entry = { cause, expiresAt: this.now() + ttlMs, bytes: causeBytes(cause) };
    const entries = [entry, ...others];
    let causes = Math.max(0, entries.length - this.maxPerContainer);
    entries.length -= causes;
    this.remove(containerId);
    const containers: string[] = [];
    const dropped = this.byContainer.put(containerId, entries);
    this.bytesKept += sumBytes(entries);
    if (dropped) {
      this.bytesKept -= sumBytes(dropped[1]);
      causes += dropped[1].length;
      containers.push(dropped[0]);
    }
    while (this.bytesKept > this.maxBytes) {
      const [oldest, kept] = this.byContainer.entries().next().value as [string, Entry[]];
      if (oldest === containerId) {
        // only this container is left: its own oldest causes go, the new one stays
        if (kept.length === 1) break;
        this.bytesKept -= kept.pop()!.bytes;
        causes += 1;
        continue;
      }
      this.remove(oldest);
      causes += kept.length;
      containers.push(oldest);
    }
    return { replaced, ...(causes > 0 && { forgotten: { causes, containers } }) };
  }

  /** The container's causes, newest first, and forgets them. */
  take(containerId: string): DeclaredCause[] {
    const causes = this.live(containerId).map((entry) => entry.cause);
    this.remove(containerId);
    return causes;
  }

  forget(containerId: string): void {
    this.remove(containerId);
  }

  get size(): number {
    return this.byContainer.size;
  }

  /** The limits, in words (for a log line saying causes were forgotten). */
  get limits(): string {
    const containers = this.options.maxContainers;
    return `${this.maxPerContainer} causes a container, ${containers} container${containers === 1 ? "" : "s"}, ${this.maxBytes} bytes in all`;
  }

  /** The bytes the kept causes take (see CAUSE_LIMITS.bytes). */
  get bytes(): number {
    return this.bytesKept;
  }

  private remove(containerId: string): void {
    const entries = this.byContainer.get(containerId);
    if (!entries) return;
    this.bytesKept -= sumBytes(entries);
    this.byContainer.delete(containerId);
  }

  private live(containerId: string): Entry[] {
    const now = this.now();
    return (this.byContainer.get(containerId) ?? []).filter((entry) => entry.expiresAt > now);
  }
}
