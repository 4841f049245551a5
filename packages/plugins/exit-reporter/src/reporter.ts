/**
 * The exit reporter: turns container ends into exit records and hands each
 * to every output. A record is built whatever is missing, and an output
 * that fails or lags never holds up the runtime's request or the others.
 */
import type { Writable } from "node:stream";
import type { Container, PodSandbox } from "@nri-ts/api";
import { dateToNs } from "@nri-ts/api";
import { type Logger, silentLogger } from "@nri-ts/stub";
import { ServerError, Status } from "nice-grpc-common";
import { readDeclarations } from "./record/annotations.js";
import { type CauseRequest, CauseRequestError, readCauseRequest } from "./record/cause-request.js";
import { CauseBook } from "./record/causes.js";
import { type CgroupLayout, cgroupDirectory, findMemoryCgroup } from "./oom/cgroups.js";
import type { ExitReporterConfig } from "./config.js";
import { BurstLog, CAUSES_FORGOTTEN, recordsLost } from "./burst-log.js";
import { exitFacts, wantsOomCheck } from "./record/exit-facts.js";
import { ExitTracker } from "./record/exit-tracker.js";
import {
  type AttachCauseRequest,
  type AttachCauseResponse,
  type ExitRecord,
  type OomCheck,
  OomVerdict,
  Source,
} from "./gen/nri_ts/exit_reporter/v1/exit_reporter.js";
import { KernelOomLog } from "./oom/kernel-oom-log.js";
import { checkOwnCgroup } from "./oom/oom.js";
import { ParentOomCounters } from "./oom/parent-counter.js";
import { PrometheusOutput } from "./outputs/metrics.js";
import type { ExitOutput } from "./outputs/output.js";
import { startOutputs } from "./start-outputs.js";
import { buildExitRecord, type ExitEvent, NOT_CHECKED } from "./record/record.js";
import { boundRecord } from "./record/record-limits.js";

export interface ExitReporterOptions {
  logger?: Logger;
  /** The clock records are stamped with, in nanoseconds since the epoch. */
  now?: () => bigint;
  /** Where `jsonLines.path: "-"` writes; default stdout. */
  stdout?: Writable;
  /** Outputs of the caller's own, given every record besides the configured ones; closed by `close`. */
  outputs?: readonly ExitOutput[];
}

function who(pod: PodSandbox, container: Container): string {
  return `${pod.namespace || "?"}/${pod.name || "?"}/${container.name || container.id}`;
}

/** The record of an end that could not be built in full: who, the code if known, and why it is short. */
function incompleteRecord(
  base: Partial<ExitRecord>,
  pod: PodSandbox,
  container: Container,
  error: unknown,
): ExitRecord {
  const facts = { finishedAt: container?.finishedAt ?? 0n, exitCode: container?.exitCode ?? 0 };
  const exitCode = facts.finishedAt !== 0n || facts.exitCode !== 0 ? facts.exitCode : undefined;
  return boundRecord({
    sequence: 0n,
    reportedAt: 0n,
    event: "",
    ...base,
    pod: { namespace: pod?.namespace ?? "", name: pod?.name ?? "", uid: pod?.uid ?? "" },
    container: { name: container?.name ?? "", id: container?.id ?? "", image: "" },
    exitCode,
    signal: "",
    reason: container?.statusReason ?? "",
    reasonSource: container?.statusReason ? Source.SOURCE_RUNTIME : Source.SOURCE_UNSPECIFIED,
    message: container?.statusMessage ?? "",
    messageSource: container?.statusMessage ? Source.SOURCE_RUNTIME : Source.SOURCE_UNSPECIFIED,
    declaredBy: "",
    runtimeReason: container?.statusReason ?? "",
    runtimeMessage: container?.statusMessage ?? "",
    createdAt: container?.createdAt ?? 0n,
    startedAt: container?.startedAt ?? 0n,
    finishedAt: facts.finishedAt,
    command: [...(container?.args ?? [])],
    wrapper: [],
    explanation: `ended${exitCode === undefined ? "" : ` with code ${exitCode}`} (the rest of the record could not be built)`,
    oom: NOT_CHECKED,
    flags: ["incomplete"],
    notes: [`the record is incomplete: ${(error as Error)?.message ?? String(error)}`],
  });
}

export class ExitReporter {
  readonly logger: Logger;
  private readonly now: () => bigint;
  private readonly tracker = new ExitTracker();
  private readonly parentCounters = new ParentOomCounters();
  private readonly losses: BurstLog;
  private config: ExitReporterConfig | undefined;
  private causes: CauseBook | undefined;
  private cgroups: CgroupLayout | undefined;
  private kernelLog: KernelOomLog | undefined;
  private outputs: ExitOutput[] = [];
  private metrics: PrometheusOutput | undefined;
  private sequence = 0n;

  constructor(private readonly options: ExitReporterOptions = {}) {
    this.logger = options.logger ?? silentLogger;
    this.now = options.now ?? (() => dateToNs(Date.now()));
    this.losses = new BurstLog(this.logger);
  }

  /** The outputs running now (for a caller that wants the gRPC address or the metrics port). */
  get activeOutputs(): readonly ExitOutput[] {
    return this.outputs;
  }

  /**
   * Takes a configuration: starts its outputs (stopping earlier ones
   * first). The configuration already in use changes nothing.
   * @throws Error when an output cannot start (a file it cannot open, an address in use); none runs then
   */
  async configure(config: ExitReporterConfig): Promise<void> {
    if (config === this.config) return;
    await this.closeConfigured();
    this.config = undefined;
    this.cgroups = config.oom.check ? await findMemoryCgroup(config.oom.cgroupRoot || undefined) : undefined;
    if (config.oom.check && !this.cgroups)
      this.logger.warn("no cgroup memory controller found: OOM kills cannot be confirmed from cgroups");
    if (config.oom.check && config.oom.kernelLog) {
      const path = config.oom.kernelLog;
      this.kernelLog = await KernelOomLog.open(path).catch((error: Error) => {
        this.logger.warn(
          `cannot read the kernel log (${path}): ${error.message}; OOM kills are confirmed only while the container's cgroup is there`,
        );
        return undefined;
      });
    }
    this.causes = new CauseBook({ ttlMs: config.causes.ttlSeconds * 1000, maxContainers: config.causes.maxContainers });
    this.outputs = await startOutputs(config, {
      onDrop: (output, records, why) => this.dropped(output, records, why),
      onSubscriberDropped: (peer, why) => this.logger.warn({ peer }, `dropped gRPC watcher ${peer}: ${why}`),
      attachCause: (request) => this.attachCause(request),
      stdout: this.options.stdout,
      logger: this.logger,
      onKubernetesRequest: (operation, outcome) => this.metrics?.countKubernetesRequest(operation, outcome),
    });
    this.metrics = this.outputs.find((output): output is PrometheusOutput => output instanceof PrometheusOutput);
    this.config = config;
    this.logger.info(
      {
        outputs: this.outputs.map((output) => output.name),
        cgroups: this.cgroups ? `v${this.cgroups.version} ${this.cgroups.mountPoint}` : "none",
      },
      `reporting exits to ${this.outputs.map((output) => (output.where ? `${output.name} at ${output.where}` : output.name)).join(", ") || "no output"}`,
    );
  }

  /** Causes the book forgot to stay within its limits: counted and logged, as lost records are. */
  private forgotCauses(causes: number, containers: string[], limits: string): void {
    this.metrics?.countForgottenCauses(causes);
    const whose =
      containers.length > 0
        ? `all those of container${containers.length === 1 ? "" : "s"} ${containers.join(", ")}; `
        : "";
    this.losses.lost(CAUSES_FORGOTTEN, causes, `${whose}the reporter keeps at most ${limits}`);
  }

  private dropped(output: string, records: number, why: string): void {
    this.losses.lost(recordsLost(output), records, why);
    this.metrics?.countDropped(output, records);
  }

  /**
   * The reporter saw the container live (created, or running at
   * Synchronize). Given the container (and its pod), the OOM check takes
   * the count of its parent cgroup, for when its own is gone at its end;
   * the promise resolves once it is taken (it never rejects).
   */
  watch(
    containerId: string,
    container?: Container,
    pod?: PodSandbox,
    since: "created" | "running" = "created",
  ): Promise<void> {
    this.tracker.watch(containerId);
    if (!container || !this.config?.oom.check) return Promise.resolve();
    return this.parentCounters.watch(this.cgroups, pod, container, since);
  }

  /**
   * Reports the container's end, unless this event is not a new one.
   * @returns the record reported, if any
   */
  async containerEnded(
    event: ExitEvent,
    pod: PodSandbox,
    container: Container,
    signal?: AbortSignal,
  ): Promise<ExitRecord | undefined> {
    const decision = this.tracker.decide(event, container);
    if (!decision.report) {
      this.logger.debug(
        { event, container: container.id },
        `${event} of ${who(pod, container)} is no new exit: ${decision.why}`,
      );
      return undefined;
    }
    const sequence = ++this.sequence;
    this.tracker.markReported(container.id, sequence);
    const base = { sequence, reportedAt: this.now(), event };
    let record: ExitRecord;
    try {
      record = await this.build(base, pod, container, signal);
    } catch (error) {
      record = incompleteRecord(base, pod, container, error);
    }
    for (const note of record.notes)
      this.logger.warn({ container: container.id }, `exit of ${who(pod, container)}: ${note}`);
    this.publish(record);
    this.logger.info(
      { container: container.id, exitCode: record.exitCode, reason: record.reason, sequence: Number(sequence) },
      `${who(pod, container)} ${record.explanation}`,
    );
    return record;
  }

  private async build(
    base: { sequence: bigint; reportedAt: bigint; event: ExitEvent },
    pod: PodSandbox,
    container: Container,
    signal?: AbortSignal,
  ): Promise<ExitRecord> {
    const config = this.config;
    const facts = exitFacts(container);
    const oom =
      config?.oom.check && wantsOomCheck(container, facts)
        ? await this.oomCheck(container, facts.exitCode, signal)
        : NOT_CHECKED;
    const declarations = readDeclarations(pod, container);
    return buildExitRecord({
      ...base,
      pod,
      container,
      oom,
      causes: [...(this.causes?.take(container.id) ?? []), ...declarations.causes],
      podMeanings: declarations.meanings,
      configMeanings: config?.exitCodes ?? new Map(),
      wrappers: config?.commandWrappers ?? [],
      rules: config?.rules ?? [],
      problems: declarations.problems,
    });
  }

  /**
   * The cgroup's counter; when the cgroup is gone already, its parent's
   * (v2); when neither can tell, the kernel log.
   */
  private async oomCheck(container: Container, exitCode: number | undefined, signal?: AbortSignal): Promise<OomCheck> {
    const cgroupsPath = container.linux?.cgroupsPath ?? "";
    const own = await checkOwnCgroup(this.cgroups, cgroupsPath, signal);
    const fromCgroup = own.gone
      ? await this.parentCounters.check(this.cgroups, container, exitCode, own, signal)
      : own.check;
    if (fromCgroup.verdict !== OomVerdict.OOM_VERDICT_UNKNOWN || !this.kernelLog) return fromCgroup;
    const kill = await this.kernelLog.find(cgroupDirectory(cgroupsPath), container.pid, container);
    if (kill)
      return {
        verdict: OomVerdict.OOM_VERDICT_CONFIRMED,
        evidence: `the kernel log: ${kill.text}`,
        path: this.config?.oom.kernelLog ?? "",
      };
    return { ...fromCgroup, evidence: `${fromCgroup.evidence}, and the kernel log has no OOM kill for it` };
  }

  private publish(record: ExitRecord): void {
    for (const output of [...this.outputs, ...(this.options.outputs ?? [])]) {
      try {
        output.publish(record);
      } catch (error) {
        this.dropped(output.name, 1, (error as Error).message);
      }
    }
  }

  /** The container is gone: its causes and its tracking are forgotten. */
  removed(containerId: string): void {
    this.tracker.removed(containerId);
    this.causes?.forget(containerId);
    this.parentCounters.forget(containerId);
  }

  /**
   * Keeps a cause for a container's coming end (gRPC AttachCause).
   * @throws ServerError INVALID_ARGUMENT for a bad cause, FAILED_PRECONDITION when the end was reported already
   */
  attachCause(request: AttachCauseRequest): AttachCauseResponse {
    let read: CauseRequest;
    try {
      read = readCauseRequest(request);
    } catch (error) {
      if (error instanceof CauseRequestError) throw new ServerError(Status.INVALID_ARGUMENT, error.message);
      throw error;
    }
    const { containerId, cause, ttlSeconds } = read;
    const reported = this.tracker.reportedAs(containerId);
    if (reported !== undefined) {
      throw new ServerError(
        Status.FAILED_PRECONDITION,
        `container ${containerId} has ended already and was reported (record ${reported})`,
      );
    }
    const causes = this.causes;
    if (!causes) throw new ServerError(Status.UNAVAILABLE, "the exit reporter is not configured yet");
    const ttlMs = (ttlSeconds || (this.config?.causes.ttlSeconds ?? 600)) * 1000;
    const { replaced, forgotten } = causes.attach(containerId, cause, Math.min(ttlMs, 86_400_000));
    if (forgotten) this.forgotCauses(forgotten.causes, forgotten.containers, causes.limits);
    this.logger.info(
      { container: containerId, declaredBy: cause.declaredBy, reason: cause.reason },
      `${cause.declaredBy} declared why container ${containerId} will end: ${cause.reason}${cause.message ? `: ${cause.message}` : ""}`,
    );
    return { replaced };
  }

  private async closeConfigured(): Promise<void> {
    const outputs = this.outputs;
    this.outputs = [];
    this.metrics = undefined;
    await this.kernelLog?.close();
    this.kernelLog = undefined;
    await Promise.all(
      outputs.map((output) =>
        output.close().catch((error: Error) => this.logger.warn(`closing the ${output.name} output: ${error.message}`)),
      ),
    );
  }

  /** Stops every output (flushing what it can). */
  async close(): Promise<void> {
    this.config = undefined;
    await this.closeConfigured();
    await Promise.all((this.options.outputs ?? []).map((output) => output.close()));
    this.losses.close();
  }
}
