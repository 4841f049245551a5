/**
 * `simulate(scenario, options)`: the simulator as a library. It creates an
 * @nri-ts/adaptation as a runtime would (with its own sync and update
 * callbacks), starts the plugins, drives the scenario's steps through the
 * adaptation, applies what the plugins ask for to the simulated containers,
 * checks the `expect:` entries, and returns the report.
 */
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { setTimeout as sleep } from "node:timers/promises";
import { Adaptation, type DefaultValidatorConfig, DiscoveryError, type Logger } from "@nri-ts/adaptation";
import type { Plugin, Stub } from "@nri-ts/stub";
import { applyUpdates } from "./apply-updates.js";
import { type ClockKind, SimClock } from "./clock.js";
import { containerView } from "../report/container-view.js";
import { checkEventPlugins } from "./event-plugins.js";
import { checkExpectation } from "./expect.js";
import { parseScenario, scenarioFromObject } from "../scenario/parse-scenario.js";
import { asPlain } from "../report/plain-of.js";
import {
  type ConnectedPlugin,
  defaultPluginIndex,
  pluginIdentity,
  pluginOutputLogger,
  preparePluginDirs,
  startModulePlugin,
  startObjectPlugin,
} from "../plugins/plugin-sources.js";
import type { Identity, PluginSpec } from "../plugins/plugin-spec.js";
import {
  checkPluginFiles,
  LastLines,
  LaunchFailureLog,
  notAProgramHint,
  PluginSetupError,
  type PluginSetupFailure,
  registeredThen,
} from "../plugins/plugin-setup.js";
import { Recorder } from "./recorder.js";
import type { ExpectationReport, FaultReport, PluginInfo, SimReport, StepReport } from "../report/report.js";
import { SimRuntime } from "./runtime-state.js";
import type { Scenario, Step } from "../scenario/scenario.js";
import { StepRunner } from "./step-runner.js";
import { errorText } from "../error-text.js";
import type { SimTracing } from "../trace/sim-tracing.js";

/** The report's head: known once the plugins are connected. */
export type SetupReport = Pick<SimReport, "scenario" | "file" | "runtime" | "plugins" | "setup">;

/** Hears about a simulation as it goes (the CLI prints from these). */
export interface SimObserver {
  /** External plugins may connect to this socket. */
  listening?(socketPath: string): void;
  /** The plugins are connected and synchronized. */
  setupDone?(report: SetupReport): void;
  stepStarted?(number: number, step: Step, total: number): void;
  stepDone?(step: StepReport, expectations: ExpectationReport[]): void;
}

export interface SimulateOptions {
  /**
   * Plugins to run: objects (in this process), modules (child processes) or
   * executables (launched by the runtime; a WebAssembly module is loaded by
   * it instead, as a WASM plugin).
   */
  plugins?: PluginSpec[];
  /** A directory of `NN-name` executables (and WASM plugins) the runtime launches, as /opt/nri/plugins. */
  pluginDir?: string;
  /** Their configuration files (`NN-name.conf` or `name.conf`), as /etc/nri/conf.d. */
  configDir?: string;
  /** The socket external plugins connect to; default a private temporary one. */
  socketPath?: string;
  /** Wait for this many external plugins (started by you) before the first step. */
  waitPlugins?: number;
  /** How long to wait for plugins to connect; default 60 s with `waitPlugins`, 15 s otherwise. */
  waitTimeoutMs?: number;
  /** The runtime's builtin default validator (runs when `enable` is set). */
  defaultValidator?: DefaultValidatorConfig;
  /** `virtual` makes timestamps the same on every run; default `wall`. */
  clock?: ClockKind;
  observer?: SimObserver;
  /** Where the adaptation logs; default nowhere. */
  logger?: Logger;
  /**
   * Trace each step (each step is one trace: the runtime's requests, its
   * calls to plugins, the plugins' own spans) and put its trace in the
   * step's report. Plugin objects and modules trace; executables and
   * external plugins trace only if they register an SDK of their own.
   */
  trace?: boolean;
  /**
   * Export the traces to this OTLP/HTTP endpoint (`http://localhost:4318`,
   * or its `/v1/traces` URL); the report's `otlp` says how it went.
   * Tracing registers an OpenTelemetry SDK in this process for the run: it
   * fails while another is registered.
   */
  otlp?: string;
}

const DEFAULT_WAIT_MS = 15_000;
/** How long to wait for a plugin's output about requests it has answered. */
const OUTPUT_SETTLE_MS = 1000;
const DEFAULT_EXTERNAL_WAIT_MS = 60_000;
const POLL_MS = 5;

/** Resolves after the event loop has polled for I/O at least once more (its next check phase but one). */
async function afterNextPoll(): Promise<void> {
  for (let turn = 0; turn < 2; turn++) await new Promise<void>((done) => setImmediate(done));
}

function toScenario(input: Scenario | string | object): Scenario {
  if (typeof input === "string") return parseScenario(input);
  const candidate = input as Partial<Scenario>;
  const parsed =
    typeof candidate.runtime === "object" &&
    Array.isArray(candidate.steps) &&
    candidate.steps.every(
      (s) => typeof (s as Partial<Step>).kind === "string" && typeof (s as Partial<Step>).text === "string",
    );
  return parsed ? (input as Scenario) : scenarioFromObject(input);
}

/** A plugin that only sends what `plugin-update` steps tell it to; it handles one event so that the stub accepts it. */
const SCRIPTED_PLUGIN: Plugin = { removePodSandbox() {} };

function scriptedIdentity(fullName: string): Identity {
  const dash = fullName.indexOf("-");
  return pluginIdentity(
    { plugin: SCRIPTED_PLUGIN, index: fullName.slice(0, dash), name: fullName.slice(dash + 1) },
    "99",
  );
}

/** Failed expectations, unexpected step errors, unexpected plugin losses, setup errors: one line each. */
function failuresOf(report: Omit<SimReport, "ok" | "failures">, scenario: Scenario): string[] {
  const failures = report.setup.errors.map((error) => `setup: ${error}`);
  for (const step of report.steps) {
    const expected = scenario.expect.filter((e) => e.step === step.number - 1);
    if (!step.ok && !expected.some((e) => e.error !== undefined || e.ok === false)) {
      failures.push(`step ${step.number} (${step.step}) failed: ${step.error}`);
    }
    for (const fault of step.faults?.filter((f) => !f.happened) ?? []) {
      const what = `${fault.fault}${fault.on ? ` on ${fault.on}` : ""}`;
      failures.push(
        `step ${step.number} (${step.step}): plugin ${fault.plugin} was to fail (${what}) but got no such request`,
      );
    }
    const allowed = new Set(expected.flatMap((e) => e.closed ?? []));
    for (const plugin of step.closed.filter((p) => !allowed.has(p))) {
      failures.push(`step ${step.number} (${step.step}): plugin ${plugin} was dropped by the runtime`);
    }
  }
  for (const result of report.expectations.filter((e) => !e.ok)) {
    failures.push(
      `expectation${result.line !== undefined ? ` at line ${result.line}` : ""} after step ${result.step} (${result.stepText}) failed`,
    );
  }
  return failures;
}

/**
 * Failure policies and faults are the simulator's to give only to the
 * plugins it runs through @nri-ts/stub (objects and modules); an executable
 * or external plugin declares its own policy and fails on its own.
 * @throws PluginSetupError naming a plugin that is not one of them
 */
function checkOwnPlugins(scenario: Scenario, specs: readonly PluginSpec[], identities: readonly Identity[]): void {
  const own = new Map<string, PluginSpec>(
    specs.map((spec, i) => [`${identities[i].index}-${identities[i].name}`, spec]),
  );
  const named = [
    ...Object.entries(scenario.plugins)
      .filter(([, settings]) => settings.failurePolicy)
      .map(([plugin]) => ({ plugin, what: "a failure policy" })),
    ...scenario.steps.flatMap((step) =>
      (step.faults ?? []).map(({ plugin }) => ({ plugin, what: `a fault in step "${step.text}"` })),
    ),
  ];
  for (const { plugin, what } of named) {
    const spec = own.get(plugin);
    if (spec && ("plugin" in spec || "module" in spec)) continue;
    throw new PluginSetupError(
      spec
        ? `the scenario gives ${plugin} ${what}, but ${plugin} is an executable: nri-sim sets policies and faults only for the plugin modules and objects it runs (an executable declares its own policy)`
        : `the scenario gives ${plugin} ${what}, but no plugin module or object is named ${plugin}; plugins: ${[...own.keys()].join(", ") || "none"}`,
    );
  }
}

/** One run: the adaptation, the simulated runtime and the plugins, from setup to teardown. */
class Simulation {
  private readonly clock: SimClock;
  private readonly runtime: SimRuntime;
  private readonly recorder: Recorder;
  private readonly runner: StepRunner;
  private readonly nri: Adaptation;
  private readonly identities: Identity[];
  private readonly scripted: Identity[];
  private readonly hidden: Set<string>;
  private readonly connected: ConnectedPlugin[] = [];
  private readonly scriptedStubs = new Map<string, Stub>();
  private readonly setupErrors: string[] = [];
  /** Plugins that did not run; any one makes setUp() throw. */
  private readonly failures: PluginSetupFailure[] = [];
  private readonly launchLog: LaunchFailureLog;
  /** What launched plugins wrote to stderr last, by plugin. */
  private readonly stderr = new Map<string, LastLines>();
  private readonly pluginPath: string;
  private readonly socketPath: string;
  private stopped: Promise<void> | undefined;

  constructor(
    private readonly scenario: Scenario,
    private readonly options: SimulateOptions,
    work: string,
    dirs: { pluginPath: string; configPath: string },
    identities: Identity[],
    scripted: Identity[],
    private readonly tracing: SimTracing | undefined,
  ) {
    this.identities = identities;
    this.scripted = scripted;
    this.hidden = new Set(scripted.map(({ index, name }) => `${index}-${name}`));
    this.socketPath = options.socketPath ?? join(work, "nri.sock");
    this.clock = new SimClock(options.clock);
    this.runtime = new SimRuntime(scenario, () => this.clock.now());
    this.recorder = new Recorder(this.hidden);
    this.launchLog = new LaunchFailureLog(pluginOutputLogger(this.output, options.logger));
    this.pluginPath = dirs.pluginPath;
    const { runtime: spec } = scenario;
    this.nri = new Adaptation(
      spec.name,
      spec.version,
      async (synchronize) => {
        const { pods, containers } = this.runtime.snapshot();
        const updates = await synchronize(pods, containers);
        this.recorder.current.updates.push(...applyUpdates(this.runtime, updates, "Synchronize").reports);
      },
      async (updates, origin) => {
        const { reports, failed } = applyUpdates(this.runtime, updates, `unsolicited from ${origin.plugin}`);
        this.recorder.current.updates.push(...reports);
        for (const e of origin.evictions) this.runner.requestEviction(e.containerId, e.reason, origin.plugin);
        return failed;
      },
      {
        socketPath: this.socketPath,
        pluginPath: dirs.pluginPath,
        pluginConfigPath: dirs.configPath,
        ...(spec.registrationTimeoutMs !== undefined && { registrationTimeoutMs: spec.registrationTimeoutMs }),
        ...(spec.requestTimeoutMs !== undefined && { requestTimeoutMs: spec.requestTimeoutMs }),
        ...(options.defaultValidator && { defaultValidator: options.defaultValidator }),
        logger: this.launchLog,
        launchedStderr: (plugin, line) => {
          let last = this.stderr.get(plugin);
          if (last === undefined) this.stderr.set(plugin, (last = new LastLines()));
          last.push(line);
          this.output(plugin, line);
        },
        metrics: this.recorder,
        onMerge: this.recorder.merged,
        onPluginFailure: this.recorder.pluginFailed,
      },
    );
    this.runner = new StepRunner(
      this.nri,
      this.runtime,
      this.recorder,
      (plugin, updates, evictions) => this.sendScripted(plugin, updates, evictions),
      async (ms) => {
        this.clock.advance(ms);
        await sleep(ms);
      },
    );
  }

  private output = (plugin: string, text: string): void => {
    this.recorder.current.addOutput(plugin, text);
  };

  private async sendScripted(
    plugin: string,
    updates: Parameters<Stub["updateContainers"]>[0],
    evictions: { container: string; reason: string }[],
  ): Promise<void> {
    const stub = this.scriptedStubs.get(plugin);
    if (!stub) throw new Error(`plugin ${plugin} is not connected`);
    const failed = await stub.updateContainers(
      updates,
      evictions.map((e) => ({ containerId: this.runtime.container(e.container).spec.id, reason: e.reason })),
    );
    if (failed.length > 0) throw new Error(`the runtime reports ${failed.length} failed update(s)`);
  }

  /**
   * Starts the runtime side and the plugins; false when the runtime could
   * not start.
   * @throws PluginSetupError when a plugin did not run
   */
  async setUp(): Promise<boolean> {
    this.launchLog.recording = true;
    try {
      await this.nri.start();
    } catch (error) {
      if (error instanceof DiscoveryError) {
        throw new PluginSetupError([{ path: this.options.pluginDir, reason: errorText(error), output: [] }]);
      }
      this.setupErrors.push(`the runtime could not start: ${errorText(error)}`);
      return false;
    } finally {
      this.launchLog.recording = false;
    }
    await this.checkLaunched();
    this.options.observer?.listening?.(this.socketPath);
    await this.startPlugins();
    await this.waitForPlugins();
    if (this.failures.length > 0) throw new PluginSetupError(this.failures);
    return true;
  }

  /** Every executable (--exec and the plugin directory's) the runtime launched is active; else why not. */
  private async checkLaunched(): Promise<void> {
    const active = new Set(this.nri.plugins.map((p) => p.fullName));
    const given = new Map(
      (this.options.plugins ?? []).flatMap((spec, i): [string, string][] =>
        "executable" in spec ? [[`${this.identities[i].index}-${this.identities[i].name}`, spec.executable]] : [],
      ),
    );
    const failed = new Map(this.launchLog.failures);
    for (const plugin of given.keys()) {
      if (!active.has(plugin) && !failed.has(plugin)) failed.set(plugin, "the runtime did not start it");
    }
    for (const [plugin, message] of failed) {
      const path =
        given.get(plugin) ?? (this.options.pluginDir !== undefined ? join(this.options.pluginDir, plugin) : undefined);
      // the runtime, and the plugin, name the link in the simulator's own plugin directory
      const shown = (text: string) => text.replaceAll(join(this.pluginPath, plugin), path ?? plugin);
      let reason = shown(message);
      const hint =
        path !== undefined && / exited with code 127\b/.test(message) ? await notAProgramHint(path) : undefined;
      if (hint) reason += `; ${hint}`;
      const output = (this.stderr.get(plugin)?.lines ?? []).map(shown);
      this.failures.push({ plugin, ...(path !== undefined && { path }), reason, output });
    }
  }

  private async startPlugins(): Promise<void> {
    const specs = this.options.plugins ?? [];
    const starts = specs.map(async (spec, i) => {
      const identity = this.identities[i];
      const policy = this.scenario.plugins[`${identity.index}-${identity.name}`]?.failurePolicy;
      if ("plugin" in spec) {
        this.connected.push(
          await startObjectPlugin(spec.plugin, identity, this.socketPath, this.output, "object", policy),
        );
      } else if ("module" in spec) {
        const tracing = this.tracing;
        this.connected.push(
          startModulePlugin(
            spec.module,
            identity,
            this.socketPath,
            this.output,
            spec.config,
            policy,
            tracing && ((line) => tracing.acceptLine(line)),
          ),
        );
      }
    });
    const scripted = this.scripted.map(async (identity) => {
      const started = await startObjectPlugin(SCRIPTED_PLUGIN, identity, this.socketPath, this.output, "scripted");
      this.scriptedStubs.set(started.fullName, started.stub);
      this.connected.push(started);
    });
    const names = [...this.identities, ...this.scripted].map(({ index, name }) => `${index}-${name}`);
    for (const [i, result] of (await Promise.allSettled([...starts, ...scripted])).entries()) {
      if (result.status === "rejected")
        this.failures.push({ plugin: names[i], reason: errorText(result.reason), output: [] });
    }
  }

  /** Waits until the plugins started here, and `waitPlugins` others, are active (or gone, or out of time). */
  private async waitForPlugins(): Promise<void> {
    const wanted = new Set(this.connected.map((p) => p.fullName));
    const extra = this.options.waitPlugins ?? 0;
    const timeout = this.options.waitTimeoutMs ?? (extra > 0 ? DEFAULT_EXTERNAL_WAIT_MS : DEFAULT_WAIT_MS);
    const start = Date.now();
    for (;;) {
      const active = this.nri.plugins;
      const absent = [...wanted].filter((name) => !active.some((p) => p.fullName === name));
      const others = active.filter((p) => p.kind === "external" && !wanted.has(p.fullName)).length;
      const externals = Math.max(0, extra - others);
      if (absent.length === 0 && externals === 0) return;
      const allGone = absent.every((name) => this.connected.find((p) => p.fullName === name)?.ended?.());
      // external plugins that registered but are not running: dropped since, or still starting
      const notRunning = this.launchLog.registered.filter(
        (name) => !wanted.has(name) && !active.some((p) => p.fullName === name),
      );
      const dropped = notRunning.filter((name) => this.launchLog.seen(name).error !== undefined);
      const waited = Date.now() - start;
      if (waited > timeout || (allGone && others + dropped.length >= extra)) {
        for (const name of absent) {
          const plugin = this.connected.find((p) => p.fullName === name);
          const seen = this.launchLog.seen(name);
          this.failures.push(
            (await plugin?.setupFailure?.(timeout, seen)) ?? {
              plugin: name,
              reason: seen.registered ? registeredThen(seen.error) : `it did not register within ${timeout} ms`,
              output: [],
            },
          );
        }
        if (externals > 0) {
          const came = others + notRunning.length;
          const why = notRunning.map((name) => {
            const { error } = this.launchLog.seen(name);
            return `; ${name}: ${error === undefined ? "it registered, and was still starting (Configure, Synchronize)" : registeredThen(error)}`;
          });
          this.failures.push({
            reason: `external plugins: ${extra} awaited within ${timeout} ms, ${came} came${came > others ? `, ${others} running` : ""}${why.join("")}`,
            output: [],
          });
        }
        return;
      }
      await sleep(POLL_MS);
    }
  }

  /**
   * Waits for the output plugins wrote while handling the requests so far:
   * module plugins mark the end of each handler call; a launched plugin
   * wrote to its stderr pipe before it answered (the stub's and Go's
   * loggers write synchronously), so its lines are in the pipe, and the
   * event loop's next poll for I/O reads them.
   */
  async settleOutput(): Promise<void> {
    await this.tracing?.settled(OUTPUT_SETTLE_MS);
    await Promise.all(
      this.connected.map((p) => p.settled?.(this.recorder.calls.get(p.fullName) ?? 0, OUTPUT_SETTLE_MS)),
    );
    await afterNextPoll();
  }

  async setupReport(): Promise<SetupReport> {
    await this.settleOutput();
    const sources = new Map(this.connected.map((p) => [p.fullName, p]));
    const executables = new Map<string, string>(
      (this.options.plugins ?? []).flatMap((spec, i): [string, string][] =>
        "executable" in spec ? [[`${this.identities[i].index}-${this.identities[i].name}`, spec.executable]] : [],
      ),
    );
    const plugins: PluginInfo[] = this.nri.plugins
      .filter((p) => !this.hidden.has(p.fullName))
      .map((p): PluginInfo => {
        const policy = p.failurePolicy && {
          failurePolicy: { failRequest: p.failurePolicy.failRequest, keepConnected: p.failurePolicy.keepConnected },
        };
        const known = sources.get(p.fullName);
        if (known)
          return { name: p.fullName, source: known.source, ...(known.path && { path: known.path }), ...policy };
        const path = executables.get(p.fullName);
        if (p.kind === "launched") return { name: p.fullName, source: "executable", ...(path && { path }), ...policy };
        if (p.kind === "wasm") return { name: p.fullName, source: "wasm", ...(path && { path }), ...policy };
        return { name: p.fullName, source: p.kind === "builtin" ? "builtin" : "external", ...policy };
      });
    const record = this.recorder.next();
    return {
      scenario: this.scenario.name,
      ...(this.scenario.file !== undefined && { file: this.scenario.file }),
      runtime: { name: this.scenario.runtime.name, version: this.scenario.runtime.version },
      plugins,
      setup: { events: record.events, updates: record.updates, errors: this.setupErrors, output: record.output },
    };
  }

  private view(key: string) {
    const c = this.runtime.containers.get(key);
    return c && c.phase !== "declared"
      ? containerView(c.container, c.spec.pod, this.clock.now(), c.phase === "removed")
      : undefined;
  }

  /** Arms the step's faults in the plugins that are to commit them. */
  private async armFaults(step: Step): Promise<void> {
    for (const { plugin, fault, on } of step.faults ?? []) {
      await this.connected.find((p) => p.fullName === plugin)?.arm?.({ fault, ...(on !== undefined && { on }) });
    }
  }

  /** Disarms them: which happened. */
  private async disarmFaults(step: Step): Promise<FaultReport[]> {
    const reports: FaultReport[] = [];
    for (const { plugin, fault, on } of step.faults ?? []) {
      const happened = (await this.connected.find((p) => p.fullName === plugin)?.disarm?.()) ?? false;
      reports.push({ plugin, fault, ...(on !== undefined && { on }), happened });
    }
    return reports;
  }

  async runStep(step: Step, index: number): Promise<{ report: StepReport; expectations: ExpectationReport[] }> {
    this.clock.step();
    const before = this.nri.plugins.map((p) => p.fullName);
    await this.armFaults(step);
    const run = async () => {
      const outcome = await this.runner.run(step);
      await this.runner.finishEvictions();
      return outcome;
    };
    const traced = this.tracing && (await this.tracing.step(this.scenario.name, index + 1, step.text, run));
    const outcome = traced ? traced.result : await run();
    const faults = await this.disarmFaults(step);
    await this.settleOutput();
    const trace = traced && this.tracing?.report(traced.traceId, this.hidden);
    const record = this.recorder.next();
    const after = new Set(this.nri.plugins.map((p) => p.fullName));
    const container = "container" in step ? this.view(step.container) : undefined;
    const report: StepReport = {
      number: index + 1,
      step: step.text,
      ...(step.line !== undefined && { line: step.line }),
      ok: outcome.error === undefined,
      ...(outcome.error !== undefined && { error: outcome.error }),
      events: record.events,
      ...(outcome.adjustment !== undefined && { adjustment: outcome.adjustment }),
      changes: outcome.changes,
      updates: record.updates,
      evictions: record.evictions,
      validation: outcome.validation,
      closed: before.filter((name) => !after.has(name) && !this.hidden.has(name)),
      failures: record.failures,
      ...(faults.length > 0 && { faults }),
      ignored: outcome.ignored,
      output: record.output,
      ...(container && { container }),
      ...(trace && { trace }),
    };
    const expectations = this.scenario.expect
      .filter((e) => e.step === index)
      .map((e) => checkExpectation(e, report, (key) => asPlain(this.view(key))));
    return { report, expectations };
  }

  /** Stops the plugins and the runtime; once, however often it is called. */
  tearDown(): Promise<void> {
    this.stopped ??= (async () => {
      await Promise.allSettled(this.connected.map((p) => p.stop()));
      await this.nri.stop();
    })();
    return this.stopped;
  }
}

/**
 * Runs a scenario (parsed, YAML text, or an object of the YAML's shape)
 * with the given plugins and returns the report. What plugins do once they
 * run never makes it throw; it throws ScenarioError for a bad scenario and
 * PluginSetupError when a plugin did not run: its file is missing, not
 * executable or not a program, or it died or did not register at launch
 * (`failures` says which and why, with the plugin's last lines). No step
 * runs then.
 */
export async function simulate(input: Scenario | string | object, options: SimulateOptions = {}): Promise<SimReport> {
  const scenario = toScenario(input);
  const specs = options.plugins ?? [];
  const identities = specs.map((spec, i) => pluginIdentity(spec, defaultPluginIndex(i)));
  const scriptedNames = [...new Set(scenario.steps.flatMap((s) => (s.kind === "plugin-update" ? [s.plugin] : [])))];
  const scripted = scriptedNames.map(scriptedIdentity);
  const fullNames = [...identities, ...scripted].map(({ index, name }) => `${index}-${name}`);
  const duplicate = fullNames.find((name, i) => fullNames.indexOf(name) !== i);
  if (duplicate) throw new PluginSetupError(`two plugins are named ${duplicate}`);
  checkOwnPlugins(scenario, specs, identities);
  const missing = await checkPluginFiles(specs, identities, options.pluginDir);
  if (missing.length > 0) throw new PluginSetupError(missing);

  const work = await mkdtemp(join(tmpdir(), "nri-sim-"));
  let tracing: SimTracing | undefined;
  try {
    const executables = specs.flatMap((spec, i) => ("executable" in spec ? [{ spec, identity: identities[i] }] : []));
    const dirs = await preparePluginDirs(work, executables, options.pluginDir, options.configDir);
    if (options.trace || options.otlp !== undefined) {
      // the SDK loads only for a traced run
      const { SimTracing } = await import("../trace/sim-tracing.js");
      const modules = specs.flatMap((spec, i) =>
        "module" in spec ? [`${identities[i].index}-${identities[i].name}`] : [],
      );
      tracing = await SimTracing.start({ report: options.trace ?? false, otlp: options.otlp }, modules);
    }
    const simulation = new Simulation(scenario, options, work, dirs, identities, scripted, tracing);
    try {
      const started = await simulation.setUp();
      const head = await simulation.setupReport();
      if (started)
        checkEventPlugins(
          scenario,
          head.plugins.map((p) => p.name),
          scriptedNames,
        );
      options.observer?.setupDone?.(head);
      const steps: StepReport[] = [];
      const expectations: ExpectationReport[] = [];
      if (started) {
        for (const [i, step] of scenario.steps.entries()) {
          options.observer?.stepStarted?.(i + 1, step, scenario.steps.length);
          const { report, expectations: checked } = await simulation.runStep(step, i);
          steps.push(report);
          expectations.push(...checked);
          options.observer?.stepDone?.(report, checked);
        }
      }
      await simulation.tearDown();
      const exported = await tracing?.shutdown();
      tracing = undefined;
      const partial = { ...head, steps, expectations };
      const failures = failuresOf(partial, scenario);
      return { ...partial, ok: failures.length === 0, failures, ...(exported && { otlp: exported }) };
    } finally {
      await simulation.tearDown();
    }
  } finally {
    await tracing?.shutdown();
    await rm(work, { recursive: true, force: true });
  }
}
