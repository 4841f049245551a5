/*
 * The two deciders of a merge scenario, giving the same kind of Outcome:
 * the upstream Go adaptation with builtin plugins (cmd/merge-oracle, one
 * long-lived process fed JSON lines) and the @nri-ts/adaptation merge engine.
 *
 * Both sides' messages are compared as what a runtime would receive: each is
 * encoded, decoded again and rendered as protobuf JSON.
 */
import { type ChildProcessWithoutNullStreams, spawn } from "node:child_process";
import { once } from "node:events";
import { createInterface } from "node:readline";
import {
  ContainerUpdate,
  CreateContainerRequest,
  CreateContainerResponse,
  type DeepPartial,
  type MessageFns,
  StopContainerRequest,
  StopContainerResponse,
  UpdateContainerRequest,
  UpdateContainerResponse,
  ValidateContainerAdjustmentRequest,
} from "@nri-ts/api";
import {
  CreateContainerResult,
  defaultValidator,
  firstValidationError,
  parseDefaultValidatorConfig,
  StopContainerResult,
  UpdateContainerResult,
  validationVerdict,
} from "@nri-ts/adaptation";
import type { CreateScenario, MergeScenario, ScenarioPlugin, StopScenario, UpdateScenario } from "./merge-scenarios.js";

/** How one request went; messages as protobuf JSON. */
export interface Outcome {
  /** The error text the request failed with. */
  error?: string;
  /** The merged reply (absent on error). */
  response?: unknown;
  /** Positions of the UpdateContainer reply's nil (Go) or null (ours) entries, sent as empty messages. */
  nullUpdates?: number[];
  /** The runtime's request after the call, as the plugins left it. */
  request: unknown;
  /** The request as each plugin that was called got it, in call order. */
  seen: Array<{ plugin: string; request: unknown }>;
  /** The validation request (CreateContainer, when validation ran). */
  validation?: unknown;
}

/** The Go side's validator that records the validation request; it accepts everything. */
const CAPTURE = { name: "capture", index: "99" };

const fullName = (plugin: { index: string; name: string }) => `${plugin.index}-${plugin.name}`;

function toBase64<T>(fns: MessageFns<T>, partial: DeepPartial<NoInfer<T>>): string {
  return Buffer.from(fns.encode(fns.fromPartial(partial as never)).finish()).toString("base64");
}

/** A message as it arrives over the wire. */
function received<T>(fns: MessageFns<T>, partial: DeepPartial<NoInfer<T>>): T {
  return fns.decode(fns.encode(fns.fromPartial(partial as never)).finish());
}

/** A message as protobuf JSON, after a trip over the wire. */
function asJson<T>(fns: MessageFns<T>, message: T): unknown {
  return fns.toJSON(fns.decode(fns.encode(message).finish()));
}

function messageOf(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}

interface Messages<Request, Response> {
  request: MessageFns<Request>;
  response: MessageFns<Response>;
}

const MESSAGES = {
  create: { request: CreateContainerRequest, response: CreateContainerResponse },
  update: { request: UpdateContainerRequest, response: UpdateContainerResponse },
  stop: { request: StopContainerRequest, response: StopContainerResponse },
} satisfies Record<MergeScenario["kind"], Messages<unknown, unknown>>;

function messagesOf(scenario: MergeScenario): Messages<unknown, unknown> {
  return MESSAGES[scenario.kind] as Messages<unknown, unknown>;
}

/** The scenario as a line for cmd/merge-oracle. */
function oracleLine(scenario: MergeScenario, repeat: number): string {
  const { request, response } = messagesOf(scenario);
  const plugins = (scenario.plugins as Array<ScenarioPlugin<unknown>>).map((plugin) => ({
    index: plugin.index,
    name: plugin.name,
    response: plugin.response === null ? null : toBase64(response, plugin.response),
    reject: plugin.reject,
  }));
  return JSON.stringify({
    kind: scenario.kind,
    request: toBase64(request, scenario.request),
    plugins,
    defaultValidator: scenario.kind === "create" ? scenario.defaultValidator : undefined,
    capture: scenario.kind === "create",
    repeat,
  });
}

interface GoOutcome {
  error?: string;
  response?: string;
  nullUpdates?: number[];
  request: string;
  seen: Array<{ plugin: string; request: string }>;
  validation?: string;
}

type GoAnswer = { outcomes: GoOutcome[]; runs: number[] } | { fatal: string };

/** One way the Go adaptation decided a scenario, and in how many runs. */
export interface GoDecision {
  outcome: Outcome;
  runs: number;
}

function fromGo(scenario: MergeScenario, go: GoOutcome): Outcome {
  const { request, response } = messagesOf(scenario);
  const decode = <T>(fns: MessageFns<T>, base64: string) => fns.toJSON(fns.decode(Buffer.from(base64, "base64")));
  return {
    ...(go.error !== undefined && { error: go.error }),
    ...(go.response !== undefined && { response: decode(response, go.response) }),
    ...(go.nullUpdates !== undefined && { nullUpdates: go.nullUpdates }),
    request: decode(request, go.request),
    seen: go.seen.map((seen) => ({ plugin: seen.plugin, request: decode(request, seen.request) })),
    ...(go.validation !== undefined && { validation: decode(ValidateContainerAdjustmentRequest, go.validation) }),
  };
}

/** cmd/merge-oracle, running: each scenario is answered with the Go adaptation's outcomes. */
export class GoMergeOracle {
  readonly #child: ChildProcessWithoutNullStreams;
  readonly #waiting: Array<{ resolve(answer: GoAnswer): void; reject(error: Error): void }> = [];

  constructor(binary: string) {
    this.#child = spawn(binary, [], { stdio: ["pipe", "pipe", "pipe"] });
    this.#child.stderr.pipe(process.stderr);
    createInterface({ input: this.#child.stdout }).on("line", (line) => {
      this.#waiting.shift()?.resolve(JSON.parse(line) as GoAnswer);
    });
    const failAll = (error: Error) => {
      for (const waiter of this.#waiting.splice(0)) waiter.reject(error);
    };
    this.#child.on("error", failAll);
    this.#child.on("exit", (code, signal) => failAll(new Error(`merge-oracle exited (${signal ?? code})`)));
  }

  /**
   * The distinct outcomes of `repeat` runs of the scenario in one Go
   * adaptation, in the order they first happened.
   */
  async decide(scenario: MergeScenario, repeat = 1): Promise<GoDecision[]> {
    const answer = await new Promise<GoAnswer>((resolve, reject) => {
      this.#waiting.push({ resolve, reject });
      this.#child.stdin.write(`${oracleLine(scenario, repeat)}\n`);
    });
    if ("fatal" in answer) throw new Error(`merge-oracle could not run the scenario: ${answer.fatal}`);
    return answer.outcomes.map((outcome, i) => ({ outcome: fromGo(scenario, outcome), runs: answer.runs[i] ?? 0 }));
  }

  async close(): Promise<void> {
    const exited = once(this.#child, "exit");
    this.#child.stdin.end();
    await exited;
  }
}

/** Our merge engine's outcome, with plugins and validators arranged as the Go adaptation arranges them. */
export function decideWithOurs(scenario: MergeScenario): Promise<Outcome> {
  switch (scenario.kind) {
    case "create":
      return createContainer(scenario);
    case "update":
      return Promise.resolve(updateContainer(scenario));
    case "stop":
      return Promise.resolve(stopContainer(scenario));
  }
}

async function createContainer(scenario: CreateScenario): Promise<Outcome> {
  const result = new CreateContainerResult(received(CreateContainerRequest, scenario.request));
  const seen: Outcome["seen"] = [];
  const outcome = (rest: Partial<Outcome>): Outcome => ({
    request: asJson(CreateContainerRequest, result.request),
    seen,
    ...rest,
  });

  // Go sorts plugins by index: the default validator (00) comes first, the capture validator (99) last.
  const validator = defaultValidator(
    scenario.defaultValidator === undefined ? undefined : parseDefaultValidatorConfig(scenario.defaultValidator),
  );
  const validation = result.startValidation();
  if (validator) validation.addPlugin(validator.name, validator.index);
  for (const plugin of scenario.plugins) {
    validation.addPlugin(plugin.name, plugin.index);
    if (plugin.response === null) {
      result.apply(undefined, fullName(plugin));
      continue;
    }
    seen.push({ plugin: fullName(plugin), request: asJson(CreateContainerRequest, result.request) });
    try {
      result.apply(received(CreateContainerResponse, plugin.response), fullName(plugin));
    } catch (error) {
      return outcome({ error: messageOf(error) });
    }
  }
  validation.addPlugin(CAPTURE.name, CAPTURE.index);

  const response = result.response();
  const request = validation.build(response, result.owners.message);
  const verdicts = [
    ...(validator ? [validationVerdict(validator.validate(request), fullName(validator))] : []),
    ...scenario.plugins.flatMap((plugin) =>
      plugin.reject === undefined ? [] : [validationVerdict({ reject: true, reason: plugin.reject }, fullName(plugin))],
    ),
  ];
  const rejection = await firstValidationError(
    verdicts.map((verdict) => (verdict ? Promise.reject(verdict) : Promise.resolve())),
  );
  return outcome({
    validation: asJson(ValidateContainerAdjustmentRequest, request),
    ...(rejection ? { error: rejection.message } : { response: asJson(CreateContainerResponse, response) }),
  });
}

function updateContainer(scenario: UpdateScenario): Outcome {
  const result = new UpdateContainerResult(received(UpdateContainerRequest, scenario.request));
  const seen: Outcome["seen"] = [];
  const outcome = (rest: Partial<Outcome>): Outcome => ({
    request: asJson(UpdateContainerRequest, result.request),
    seen,
    ...rest,
  });
  for (const plugin of scenario.plugins) {
    if (plugin.response === null) continue;
    seen.push({ plugin: fullName(plugin), request: asJson(UpdateContainerRequest, result.request) });
    try {
      result.apply(received(UpdateContainerResponse, plugin.response), fullName(plugin));
    } catch (error) {
      return outcome({ error: messageOf(error) });
    }
  }
  const { update } = result.response();
  const nullUpdates = update.flatMap((entry, position) => (entry === null ? [position] : []));
  return outcome({
    response: asJson(UpdateContainerResponse, {
      update: update.map((entry) => entry ?? ContainerUpdate.create()),
      evict: [],
    }),
    ...(nullUpdates.length > 0 && { nullUpdates }),
  });
}

function stopContainer(scenario: StopScenario): Outcome {
  const request = received(StopContainerRequest, scenario.request);
  const result = new StopContainerResult();
  const seen: Outcome["seen"] = [];
  const outcome = (rest: Partial<Outcome>): Outcome => ({
    request: asJson(StopContainerRequest, request),
    seen,
    ...rest,
  });
  for (const plugin of scenario.plugins) {
    if (plugin.response === null) continue;
    seen.push({ plugin: fullName(plugin), request: asJson(StopContainerRequest, request) });
    try {
      result.apply(received(StopContainerResponse, plugin.response), fullName(plugin));
    } catch (error) {
      return outcome({ error: messageOf(error) });
    }
  }
  return outcome({ response: asJson(StopContainerResponse, result.response()) });
}

/** Protobuf JSON with object keys sorted: equal strings mean equal messages, whatever the map order. */
export function canonical(value: unknown): string {
  return JSON.stringify(value, (_, field: unknown) =>
    field !== null && typeof field === "object" && !Array.isArray(field)
      ? Object.fromEntries(Object.entries(field).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)))
      : field,
  );
}
