/**
 * Causes: why a container ended, declared by whoever made it end, before
 * the exit: another plugin (through the gRPC service, or an annotation it
 * puts on the container) or the pod (an annotation). The reporter keeps the
 * ones attached over gRPC in a bounded book until the exit, their time to
 * live, or the container's removal.
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
const DECLARER = /^[A-Za-z0-9_.+-]{1,63}$/;
const MAX_MESSAGE = 1024;

/** What is wrong with a cause, or undefined. */
export function causeProblem(cause: Omit<DeclaredCause, "source">): string | undefined {
  if (!DECLARER.test(cause.declaredBy)) {
    return `declared_by: expected a plugin name (letters, digits, "_.+-", at most 63), got ${JSON.stringify(cause.declaredBy)}`;
  }
  if (!REASON.test(cause.reason)) {
    return `reason: expected a short CamelCase word such as "Evicted" (letters and digits, at most 64), got ${JSON.stringify(cause.reason)}`;
  }
  if (cause.message.length > MAX_MESSAGE)
    return `message: at most ${MAX_MESSAGE} characters, got ${cause.message.length}`;
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
}

export interface CauseBookOptions {
  /** How long a cause is kept, in milliseconds, unless its declarer says otherwise. */
  ttlMs: number;
  /** How many containers can have causes at once; beyond, the oldest are forgotten. */
  maxContainers: number;
  /** The clock, in milliseconds. */
  now?: () => number;
}

/** Causes attached ahead of exits, by container id. */
export class CauseBook {
  private readonly byContainer: BoundedMap<string, Entry[]>;
  private readonly now: () => number;

  constructor(private readonly options: CauseBookOptions) {
    this.byContainer = new BoundedMap(options.maxContainers);
    this.now = options.now ?? Date.now;
  }

  /**
   * Keeps a cause for the container, replacing one from the same declarer.
   * @returns whether one was replaced, and the container whose causes were
   * forgotten to make room, if any
   */
  attach(
    containerId: string,
    cause: DeclaredCause,
    ttlMs = this.options.ttlMs,
  ): { replaced: boolean; evicted?: string } {
    const live = this.live(containerId);
    const others = live.filter((entry) => entry.cause.declaredBy !== cause.declaredBy);
    const replaced = others.length < live.length;
    const dropped = this.byContainer.put(containerId, [{ cause, expiresAt: this.now() + ttlMs }, ...others]);
    return { replaced, ...(dropped && { evicted: dropped[0] }) };
  }

  /** The container's causes, newest first, and forgets them. */
  take(containerId: string): DeclaredCause[] {
    const causes = this.live(containerId).map((entry) => entry.cause);
    this.byContainer.delete(containerId);
    return causes;
  }

  forget(containerId: string): void {
    this.byContainer.delete(containerId);
  }

  get size(): number {
    return this.byContainer.size;
  }

  private live(containerId: string): Entry[] {
    const now = this.now();
    return (this.byContainer.get(containerId) ?? []).filter((entry) => entry.expiresAt > now);
  }
}
