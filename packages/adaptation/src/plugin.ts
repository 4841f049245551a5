import type { ChildProcess } from "node:child_process";
import { performance } from "node:perf_hooks";
import type { Duplex } from "node:stream";
import {
  ALL_EVENTS,
  type Container,
  type ContainerAdjustment,
  type ContainerUpdate,
  checkPluginIndex,
  checkPluginName,
  Event,
  eventName,
  type FailurePolicy,
  hasEvent,
  type PodSandbox,
  type RegisterPluginRequest,
  type UpdateContainersRequest,
  type ValidateContainerAdjustmentRequest,
} from "@nri-ts/api";
import { Status } from "nice-grpc-common";
import { type BuiltinHandlers, BuiltinTransport } from "./transport/builtin-plugin.js";
import { killPlugin } from "./launch/launch.js";
import { dropsPlugin } from "./failure-policy.js";
import { Deprecation, type DeprecationRecorder, type Logger, type Metrics } from "./observability.js";
import { PluginError, type PluginFailure } from "./plugin-error.js";
import {
  CallFailure,
  type PluginMethod,
  type PluginRequest,
  type PluginResponse,
  type PluginTransport,
} from "./transport/plugin-transport.js";
import { RemotePluginConnection } from "./transport/remote-plugin.js";
import { synchronizeInPages } from "./transport/sync-paging.js";
import { ValidatorFailedError, validationVerdict } from "./validation/validation.js";
import type { WasmTransport } from "./transport/wasm/wasm-transport.js";
import { type CallTrace, RequestTrace, traceUpdateContainers } from "./tracing.js";
import type { Metadata } from "nice-grpc-common";

/**
 * How a plugin came to be: launched from the plugin directory, connected to
 * the socket, in-process, or a WebAssembly module from the plugin directory
 * (run in a thread of this process).
 */
export type PluginKind = "launched" | "external" | "builtin" | "wasm";

/** What a plugin needs from the adaptation hosting it. */
export interface PluginHost {
  readonly logger: Logger;
  readonly metrics: Metrics;
  readonly deprecations: DeprecationRecorder | undefined;
  readonly runtimeName: string;
  readonly runtimeVersion: string;
  readonly nriVersion: string;
  /** Milliseconds, read at each use. */
  readonly registrationTimeoutMs: number;
  /** Milliseconds, read at each use. */
  readonly requestTimeoutMs: number;
  /** Passes a plugin's unsolicited updates to the runtime; resolves to those that failed. */
  updateContainers(request: UpdateContainersRequest, plugin: string): Promise<ContainerUpdate[]>;
  /** A plugin failed a request, and its policy decided. */
  pluginFailed(failure: PluginFailure): void;
}

/** Starting a plugin (registration and Configure) failed. */
export class PluginStartError extends Error {
  override readonly name = "PluginStartError";
}

/** How waiting for a plugin's RegisterPlugin call ended. */
type Registration = { outcome: "registered" | "closed" | "timeout" } | { outcome: "refused"; reason: string };

/** Events that older plugins only get through StateChange, and whether the container goes along. */
const STATE_CHANGE_EVENTS: ReadonlyMap<Event, "pod" | "container"> = new Map([
  [Event.RUN_POD_SANDBOX, "pod"],
  [Event.STOP_POD_SANDBOX, "pod"],
  [Event.REMOVE_POD_SANDBOX, "pod"],
  [Event.POST_UPDATE_POD_SANDBOX, "pod"],
  [Event.POST_CREATE_CONTAINER, "container"],
  [Event.START_CONTAINER, "container"],
  [Event.POST_START_CONTAINER, "container"],
  [Event.POST_UPDATE_CONTAINER, "container"],
  [Event.REMOVE_CONTAINER, "container"],
]);

/** The methods relayed as lifecycle events, by the event they carry. */
export type RelayMethod = Exclude<
  PluginMethod,
  "configure" | "synchronize" | "shutdown" | "stateChange" | "validateContainerAdjustment"
>;

/** What a relayed request carries, enough to turn it into a StateChange. */
interface EventRequest {
  pod?: PodSandbox | undefined;
  container?: Container | undefined;
}

/** One hosted plugin: its identity, subscription and connection, and every request the adaptation sends it. */
export class Plugin {
  /** Two digits; for external plugins known once registered. */
  index: string;
  /** The base name; for external plugins known once registered. */
  name: string;
  /** The events subscribed to, known once configured. */
  events = 0;
  /** What to do when it fails a request, from its Configure reply; undefined: none (both fields false). */
  failurePolicy: FailurePolicy | undefined;
  /** Registration order, the last tie-break of the invocation order. */
  readonly sequence: number;
  readonly kind: PluginKind;
  readonly #transport: PluginTransport;
  /** The same transport, for a WASM plugin: its thread's end is awaited on stop. */
  readonly #wasm: WasmTransport | undefined;
  /** The process of a launched plugin. */
  readonly #child: ChildProcess | undefined;
  readonly #host: PluginHost;
  readonly #config: string;
  /** Settled by the first RegisterPlugin call or the connection closing. */
  readonly #registration: Promise<Registration>;
  #settleRegistration: (outcome: Registration) => void = () => {};
  #registered = false;
  /** Set for good once the plugin answered a dedicated event RPC with Unimplemented. */
  #stateChangeOnly = false;
  /** Events sent as StateChange, and those already warned about. */
  readonly #deprecated = new Set<Event>();
  readonly #warned = new Set<Event>();

  constructor(options: {
    kind: PluginKind;
    index: string;
    name: string;
    config: string;
    sequence: number;
    host: PluginHost;
    /** How to reach it: its socket, (builtin) its handlers, or its loaded WASM module. */
    via: { socket: Duplex; child?: ChildProcess } | { handlers: BuiltinHandlers } | { wasm: WasmTransport };
  }) {
    this.kind = options.kind;
    this.index = options.index;
    this.name = options.name;
    this.#config = options.config;
    this.sequence = options.sequence;
    this.#host = options.host;
    this.#registration = new Promise((resolve) => {
      this.#settleRegistration = (outcome) => {
        this.#settleRegistration = () => {};
        resolve(outcome);
      };
    });
    const via = options.via;
    if ("handlers" in via) {
      this.#transport = new BuiltinTransport(via.handlers);
    } else if ("wasm" in via) {
      this.#transport = this.#wasm = via.wasm;
    } else {
      this.#child = via.child;
      this.#transport = new RemotePluginConnection(via.socket, this, () => this.#connectionClosed());
    }
  }

  /** `<idx>-<name>`: how ownership records, errors, logs and metrics name the plugin. */
  get fullName(): string {
    return `${this.index}-${this.name}`;
  }

  get closed(): boolean {
    return this.#transport.closed;
  }

  get isValidator(): boolean {
    return hasEvent(this.events, Event.VALIDATE_CONTAINER_ADJUSTMENT);
  }

  subscribes(event: Event): boolean {
    return hasEvent(this.events, event);
  }

  /**
   * Starts the plugin: waits for its registration (not for builtin
   * plugins), then configures it. On failure the plugin is closed, and a
   * launched one killed.
   *
   * @throws PluginStartError
   */
  async start(): Promise<void> {
    if (this.#transport instanceof RemotePluginConnection) {
      this.#transport.start();
      let timer: NodeJS.Timeout | undefined;
      const timedOut = new Promise<Registration>((resolve) => {
        timer = setTimeout(() => resolve({ outcome: "timeout" }), this.#host.registrationTimeoutMs);
      });
      const registration = await Promise.race([this.#registration, timedOut]);
      clearTimeout(timer);
      switch (registration.outcome) {
        case "registered":
          break;
        case "timeout":
          await this.stop();
          throw new PluginStartError("plugin registration timed out");
        case "closed":
          await this.stop();
          throw new PluginStartError("failed to register plugin, connection closed");
        case "refused":
          // Let the refusal reach the plugin first.
          await new Promise((resolve) => setImmediate(resolve));
          await this.stop();
          throw new PluginStartError(`failed to register plugin: ${registration.reason}`);
      }
    }
    try {
      await this.#configure();
    } catch (error) {
      await this.stop();
      throw error;
    }
  }

  /**
   * A RegisterPlugin call from the plugin. An external plugin takes its name
   * and index from it (checked); a launched one keeps those of its file
   * name, whatever it sends.
   *
   * @throws the error to answer the call with
   */
  register(request: RegisterPluginRequest): void {
    if (this.#registered) throw new Error(`plugin ${this.fullName} is already registered`);
    this.#registered = true;
    if (this.kind === "external") {
      const refuse = (answer: string, reason: string): never => {
        this.#settleRegistration({ outcome: "refused", reason });
        throw new Error(answer);
      };
      try {
        checkPluginName(request.pluginName);
      } catch (error) {
        const text = (error as Error).message;
        refuse(`invalid plugin name: ${text}`, `plugin registered with an invalid name: ${text}`);
      }
      try {
        checkPluginIndex(request.pluginIdx);
      } catch (error) {
        const text = (error as Error).message;
        refuse(
          `invalid plugin index: ${text}`,
          `plugin ${JSON.stringify(request.pluginName)} registered with an invalid index: ${text}`,
        );
      }
      this.name = request.pluginName;
      this.index = request.pluginIdx;
    }
    this.#host.logger.info(
      { plugin: this.fullName, kind: this.kind, nriVersion: request.NRIVersion || "unknown" },
      `plugin ${this.fullName} registered`,
    );
    this.#settleRegistration({ outcome: "registered" });
  }

  #connectionClosed(): void {
    this.#host.logger.info({ plugin: this.fullName }, `connection to plugin ${this.fullName} closed`);
    this.#settleRegistration({ outcome: "closed" });
  }

  /**
   * Configures the plugin and records its subscription: 0 means every
   * event (validation included); bits outside the known events are refused.
   */
  async #configure(): Promise<void> {
    const host = this.#host;
    let events: number;
    try {
      const response = await this.#transport.call(
        "configure",
        {
          config: this.#config,
          runtimeName: host.runtimeName,
          runtimeVersion: host.runtimeVersion,
          registrationTimeout: BigInt(Math.trunc(host.registrationTimeoutMs)),
          requestTimeout: BigInt(Math.trunc(host.requestTimeoutMs)),
          NRIVersion: host.nriVersion,
        },
        Date.now() + host.requestTimeoutMs,
      );
      events = response.events;
      this.failurePolicy = response.failurePolicy;
    } catch (error) {
      throw new PluginStartError(`failed to configure plugin: ${(error as Error).message}`, { cause: error });
    }
    if (events === 0) {
      this.events = ALL_EVENTS;
      return;
    }
    const extra = events & ~ALL_EVENTS;
    if (extra !== 0) {
      const hex = extra < 0 ? `-${(-extra).toString(16)}` : extra.toString(16);
      throw new PluginStartError(`invalid plugin events: 0x${hex}`);
    }
    this.events = events;
  }

  /**
   * Synchronizes the plugin with the runtime's state, in pages when one
   * message would be too large. One request timeout covers the whole
   * exchange. On failure the plugin is closed.
   *
   * @returns the updates the plugin asks for
   */
  async synchronize(pods: readonly PodSandbox[], containers: readonly Container[]): Promise<ContainerUpdate[]> {
    this.#host.logger.info({ plugin: this.fullName }, `synchronizing plugin ${this.fullName}`);
    const deadline = Date.now() + this.#host.requestTimeoutMs;
    try {
      return await RequestTrace.run("Synchronize", { pods, containers }, (trace) =>
        synchronizeInPages(
          async (request) => {
            const call = trace?.call(this, "Synchronize");
            try {
              const response = await this.#timed("Synchronize", () =>
                this.#call("synchronize", "Synchronize", request, deadline, undefined, call),
              );
              call?.answered("synchronize", response);
              this.#host.metrics.recordPluginAdjustments(
                this.fullName,
                "Synchronize",
                undefined,
                response.update.length,
                0,
              );
              return response;
            } catch (error) {
              call?.failed(error, error instanceof PluginError ? error.local : undefined);
              throw error;
            } finally {
              call?.end();
            }
          },
          pods,
          containers,
        ),
      );
    } catch (error) {
      this.close();
      throw error;
    }
  }

  /**
   * Sends a lifecycle request, if the plugin subscribes to its event, with
   * the request timeout; `signal` is the runtime's own for the request.
   *
   * @returns the plugin's response; undefined when it does not subscribe, or
   *   when it failed (timed out, lost its connection, broke the protocol) and
   *   its policy lets the request go on without it
   * @throws PluginError when the plugin answered with an error, when it
   *   failed and its policy fails the request, or when `signal` aborted
   *   (then with Go's context error, and nothing else happens to the plugin)
   */
  async relay<K extends RelayMethod>(
    event: Event,
    method: K,
    request: PluginRequest<K>,
    signal?: AbortSignal,
    trace?: RequestTrace,
  ): Promise<PluginResponse<K> | undefined> {
    if (!this.subscribes(event)) return undefined;
    const operation = eventName(event);
    const call = trace?.call(this, operation);
    let response: PluginResponse<K>;
    try {
      response = await this.#timed(operation, () =>
        this.#callEvent(event, method, operation, request, Date.now() + this.#host.requestTimeoutMs, signal, call),
      );
    } catch (error) {
      call?.failed(error, error instanceof PluginError ? error.local : undefined);
      const failure = this.#handleRequestError(error, operation, signal, call);
      call?.end();
      if (failure === undefined) return undefined;
      throw failure;
    }
    call?.answered(method, response);
    call?.end();
    this.#recordAdjustments(method, operation, response);
    this.#warnIfDeprecated(event);
    return response;
  }

  /**
   * Asks a validator plugin about a merged adjustment; `signal` is the
   * runtime's own for the request. Any failure fails the creation, whatever
   * the policy; a timeout, lost connection or protocol error also closes the
   * validator unless its policy keeps it (timeouts only) or `signal` aborted.
   *
   * @throws ValidatorRejectedError when it rejects; ValidatorFailedError when
   *   it cannot be asked
   */
  async validate(
    request: ValidateContainerAdjustmentRequest,
    signal?: AbortSignal,
    trace?: RequestTrace,
  ): Promise<void> {
    if (!this.isValidator) return;
    const operation = eventName(Event.VALIDATE_CONTAINER_ADJUSTMENT);
    const call = trace?.call(this, operation);
    let rejection: Error | undefined;
    try {
      const response = await this.#timed(operation, () =>
        this.#call(
          "validateContainerAdjustment",
          operation,
          request,
          Date.now() + this.#host.requestTimeoutMs,
          signal,
          call,
        ),
      );
      call?.answered("validateContainerAdjustment", response);
      rejection = validationVerdict(response, this.fullName);
    } catch (error) {
      call?.failed(error, error instanceof PluginError ? error.local : undefined);
      if (error instanceof PluginError && error.fatal && !signal?.aborted) {
        const dropped = dropsPlugin(error.local, this.failurePolicy);
        if (dropped) this.#closeAfter(error, operation);
        this.#failed(error, operation, dropped, true, call);
      }
      throw new ValidatorFailedError(this.fullName, error);
    } finally {
      call?.end();
    }
    if (rejection) throw rejection;
  }

  /** Passes unsolicited updates from the plugin to the runtime; `metadata` is the call's (its trace context). */
  updateContainers(request: UpdateContainersRequest, metadata?: Metadata): Promise<ContainerUpdate[]> {
    this.#host.logger.info(
      { plugin: this.fullName, updates: request.update.length },
      `plugin ${this.fullName} requested container updates`,
    );
    return traceUpdateContainers(this, metadata, request.update.length, () =>
      this.#host.updateContainers(request, this.fullName),
    );
  }

  /** Closes the plugin's connection (a builtin plugin is only marked closed). */
  close(): void {
    this.#transport.close();
  }

  /** Closes the plugin and, if it was launched, kills its process (or ends its WASM thread) and waits for it. */
  async stop(): Promise<void> {
    this.close();
    if (this.#child) await killPlugin(this.#child);
    if (this.#wasm) await this.#wasm.ended;
  }

  /**
   * What a failed lifecycle request means, as Go's handleRequestError
   * decides it: the plugin's own error, and anything once the runtime's
   * signal aborted, are returned unchanged; a failure (timeout, lost
   * connection, protocol error) closes the plugin unless its policy keeps it
   * (timeouts only), then either lets the request go on (undefined) or,
   * with `failRequest`, fails it naming the plugin.
   */
  #handleRequestError(
    error: unknown,
    operation: string,
    signal: AbortSignal | undefined,
    call: CallTrace | undefined,
  ): unknown {
    if (!(error instanceof PluginError) || signal?.aborted || !error.fatal) return error;
    const dropped = dropsPlugin(error.local, this.failurePolicy);
    if (dropped) this.#closeAfter(error, operation);
    const requestFailed = this.failurePolicy?.failRequest ?? false;
    this.#failed(error, operation, dropped, requestFailed, call);
    if (requestFailed) return error.failingRequest();
    this.#host.logger.warn(
      { plugin: this.fullName, operation, err: error },
      `plugin ${this.fullName} failed to handle ${operation} request, proceeding without it: ${error.message}`,
    );
    return undefined;
  }

  #failed(
    error: PluginError,
    operation: string,
    dropped: boolean,
    requestFailed: boolean,
    call: CallTrace | undefined,
  ): void {
    call?.decided(this.failurePolicy, dropped, requestFailed);
    this.#host.pluginFailed({
      plugin: this.fullName,
      operation,
      error,
      policy: this.failurePolicy,
      dropped,
      requestFailed,
    });
  }

  /** Closes the plugin after a failure, saying why. */
  #closeAfter(error: PluginError, operation: string): void {
    this.#host.logger.error(
      { plugin: this.fullName, operation, err: error },
      `closing plugin ${this.fullName}, failed to handle ${operation} request: ${error.message}`,
    );
    this.close();
  }

  /** Calls a method; failures become PluginErrors naming this plugin. */
  async #call<K extends PluginMethod>(
    method: K,
    operation: string,
    request: PluginRequest<K>,
    deadline: number,
    signal?: AbortSignal,
    call?: CallTrace,
  ): Promise<PluginResponse<K>> {
    try {
      return await this.#transport.call(method, request, deadline, signal, call);
    } catch (error) {
      const failure =
        error instanceof CallFailure
          ? error
          : new CallFailure(String(error), Status.INTERNAL, String(error), undefined, { cause: error });
      throw new PluginError(this.fullName, operation, failure);
    }
  }

  /**
   * Calls an event's dedicated RPC, or StateChange for a plugin that has
   * answered one of the older events with Unimplemented: from then on all of
   * those events go to it as StateChange.
   */
  async #callEvent<K extends RelayMethod>(
    event: Event,
    method: K,
    operation: string,
    request: PluginRequest<K>,
    deadline: number,
    signal: AbortSignal | undefined,
    call: CallTrace | undefined,
  ): Promise<PluginResponse<K>> {
    // as in Go, only plugins over ttrpc fall back to StateChange
    const carries = this.kind === "builtin" || this.kind === "wasm" ? undefined : STATE_CHANGE_EVENTS.get(event);
    if (carries === undefined || !this.#stateChangeOnly) {
      try {
        return await this.#call(method, operation, request, deadline, signal, call);
      } catch (error) {
        const unimplemented = error instanceof PluginError && !error.fatal && error.code === Status.UNIMPLEMENTED;
        if (carries === undefined || !unimplemented) throw error;
        this.#stateChangeOnly = true;
      }
    }
    this.#deprecated.add(event);
    call?.redirected("StateChange");
    const { pod, container } = request as EventRequest;
    await this.#call(
      "stateChange",
      operation,
      { event, pod, container: carries === "container" ? container : undefined },
      deadline,
      signal,
      call,
    );
    return {} as PluginResponse<K>;
  }

  /** Runs a call, recording its latency and outcome. */
  async #timed<T>(operation: string, call: () => Promise<T>): Promise<T> {
    const metrics = this.#host.metrics;
    const started = performance.now();
    try {
      const result = await call();
      metrics.recordPluginLatency(this.fullName, operation, performance.now() - started);
      metrics.recordPluginInvocation(this.fullName, operation, undefined);
      return result;
    } catch (error) {
      metrics.recordPluginLatency(this.fullName, operation, performance.now() - started);
      metrics.recordPluginInvocation(this.fullName, operation, error as Error);
      throw error;
    }
  }

  #recordAdjustments(method: RelayMethod, operation: string, response: unknown): void {
    const metrics = this.#host.metrics;
    if (method === "createContainer") {
      const { adjust, update, evict } = response as {
        adjust?: ContainerAdjustment;
        update: unknown[];
        evict: unknown[];
      };
      metrics.recordPluginAdjustments(this.fullName, operation, adjust, update.length, evict.length);
    } else if (method === "updateContainer") {
      const { update, evict } = response as { update: unknown[]; evict: unknown[] };
      metrics.recordPluginAdjustments(this.fullName, operation, undefined, update.length, evict.length);
    } else if (method === "stopContainer") {
      const { update } = response as { update: unknown[] };
      metrics.recordPluginAdjustments(this.fullName, operation, undefined, update.length, 0);
    }
  }

  #warnIfDeprecated(event: Event): void {
    if (!this.#deprecated.has(event) || this.#warned.has(event)) return;
    this.#warned.add(event);
    const details = `does not implement a dedicated ${eventName(event)} RPC call`;
    const recorder = this.#host.deprecations;
    if (recorder) {
      recorder.pluginWarning(Deprecation.StateChange, this.fullName, details);
    } else {
      this.#host.logger.warn(
        { plugin: this.fullName },
        `plugin ${this.fullName} uses deprecated StateChange instead of a dedicated ${eventName(event)} RPC call`,
      );
    }
  }
}
