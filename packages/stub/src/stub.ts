import type { Duplex } from "node:stream";
import {
  type ConfigureRequest,
  type ContainerUpdate,
  DEFAULT_REGISTRATION_TIMEOUT_MS,
  DEFAULT_REQUEST_TIMEOUT_MS,
  DEFAULT_SOCKET_PATH,
  type EventMask,
  type FailurePolicy,
  formatEventMask,
  inferRuntimeNriVersion,
  isUnknownNriVersion,
  NRI_VERSION,
  runtimeAppliesFailurePolicy,
} from "@nri-ts/api";
import { loadOpenTelemetry } from "@nri-ts/ttrpc/tracing";
import { backoffDelay, type ReconnectOptions, sleep } from "./backoff.js";
import { type ConnectionSource, type Dialer, dialUnix, inheritedFd, openConnection } from "./connect.js";
import { StubError, type StubErrorCode, messageOf } from "./errors.js";
import { type FailurePolicyInput, resolveFailurePolicy } from "./failure-policy.js";
import { type Identity, programName, resolveIdentity } from "./identity.js";
import { describeUnknownKey, unknownPluginKeys } from "./plugin-keys.js";
import { bindLogger, createLogger, type Logger } from "./logger.js";
import type { ConfigureInput, EvictionInput, Plugin, RuntimeInfo, StubHandle, UpdateInput } from "./plugin.js";
import type { CheckedPlugin, definePlugin } from "./plugin-check.js";
import { toEvictions, toUpdates } from "./results.js";
import type { ServiceHost } from "./service.js";
import { Session } from "./session.js";
import { handledEvents } from "./subscription.js";
import { traceRuntimeCall } from "./tracing.js";

/** Options of a {@link Stub}. */
export interface StubOptions {
  /** The plugin's base name; replaces `NRI_PLUGIN_NAME`. */
  name?: string;
  /**
   * The plugin's own name, used when neither the environment nor `name`
   * gives one, instead of the program's file name (which for a Node.js
   * plugin is `main`, `index` or a bin link's name). A plugin program passes
   * its name here so that it registers as `<idx>-<name>` whatever file runs it.
   */
  defaultName?: string;
  /** The plugin's two-digit index; an error when `NRI_PLUGIN_IDX` is set (as in Go). */
  index?: string;
  /** The runtime's socket; default `/var/run/nri/nri.sock`. */
  socketPath?: string;
  /** An open connection to use instead of connecting (first start only, as in Go). */
  connection?: Duplex;
  /** How to connect to `socketPath`; default a unix socket connection. */
  dial?: Dialer;
  /** Where to log; default JSON lines on stderr at level info. */
  logger?: Logger;
  /** The RegisterPlugin deadline until the runtime tells its own; default 5000. */
  registrationTimeoutMs?: number;
  /** How long to wait for Configure once registered; default the registration timeout. */
  configureTimeoutMs?: number;
  /** Called when the connection to the runtime is lost (not after `stop()`). */
  onClose?: (reason: StubError) => void;
  /**
   * Let `run()` reconnect with exponential backoff when the runtime goes
   * away or is not there yet, instead of failing. Not for plugins the runtime
   * launched: their connection cannot be opened again.
   */
  reconnect?: boolean | ReconnectOptions;
  /** The environment to read identity and `NRI_PLUGIN_SOCKET` from; default `process.env`. */
  env?: Readonly<Record<string, string | undefined>>;
  /** The program path whose base name may be `NN-name`; default `process.argv[1]`. */
  programPath?: string;
  /**
   * What the runtime does when this plugin fails a request: times out, loses
   * its connection or breaks the protocol (NRI v0.12.4 and later; older
   * runtimes ignore it). Sent with the subscription in every Configure
   * reply. Default: none, which runtimes treat as both fields false. An error
   * a handler throws is not covered: it always fails the request.
   */
  failurePolicy?: FailurePolicyInput;
  /**
   * Once synchronized, while waiting for the runtime's first event, compile
   * the decoders and encoders of the requests the handlers take, on an
   * exemplar of each (nothing is sent, no handler is called): the first
   * requests then run as fast as later ones. Once per process, a few
   * milliseconds of CPU. Default true.
   */
  warmUp?: boolean;
}

/** Connection attempts that may succeed later, so `run()` retries them when reconnecting. */
const RETRIABLE: ReadonlySet<StubErrorCode> = new Set([
  "ERR_STUB_CONNECT",
  "ERR_STUB_REGISTER",
  "ERR_STUB_CONFIGURE_TIMEOUT",
  "ERR_STUB_CONNECTION_LOST",
]);

/**
 * Runs an NRI plugin: connects to the runtime, registers, gets configured,
 * and dispatches requests to the plugin's handlers. Behaves as Go's
 * `pkg/stub` does on the wire.
 */
export class Stub<P extends Plugin = Plugin> implements StubHandle {
  readonly plugin: Plugin;
  /** The index and base name it registers with. */
  readonly identity: Identity;
  /** The events it has handlers for. */
  readonly handledEvents: EventMask;
  /** Logs with the plugin's name bound. */
  readonly logger: Logger;
  /** The NRI version it tells the runtime. */
  readonly pluginNriVersion = NRI_VERSION;
  /** The failure policy it sends in Configure, if any. */
  readonly failurePolicy: FailurePolicy | undefined;

  readonly #options: StubOptions;
  /** What every session's Plugin service serves. */
  readonly #service: ServiceHost;
  readonly #env: Readonly<Record<string, string | undefined>>;
  #connection: Duplex | undefined;
  #inheritedFdUsed = false;
  #session: Session | undefined;
  #starting = false;
  /** Aborted by `stop()`; `start()` makes a fresh one after a stop. */
  #stop = new AbortController();
  #events: EventMask;
  #runtime: RuntimeInfo | undefined;
  #registrationTimeoutMs: number;
  #requestTimeoutMs = DEFAULT_REQUEST_TIMEOUT_MS;
  /** Settles when the current session ends: undefined if by `stop()`, else why. */
  #sessionEnded: Promise<StubError | undefined> | undefined;

  /**
   * Checks the plugin and works out its identity, before connecting. Keys
   * in the handlers' answers that no answer form has are type errors (see
   * {@link definePlugin}).
   * @throws StubError ERR_STUB_NO_HANDLERS, ERR_STUB_IDENTITY, ERR_STUB_INVALID_SOCKET_ENV or ERR_STUB_FAILURE_POLICY
   */
  constructor(plugin: CheckedPlugin<P>, options: StubOptions = {}) {
    this.plugin = plugin;
    this.#options = options;
    this.failurePolicy = resolveFailurePolicy(options.failurePolicy);
    this.#env = options.env ?? process.env;
    this.#connection = options.connection;
    this.#registrationTimeoutMs = options.registrationTimeoutMs ?? DEFAULT_REGISTRATION_TIMEOUT_MS;
    const baseLogger = options.logger ?? createLogger();
    const strays = unknownPluginKeys(plugin);
    this.handledEvents = handledEvents(plugin, strays.map(describeUnknownKey));
    this.#events = this.handledEvents;
    const launched = options.connection === undefined && inheritedFd(this.#env) !== undefined;
    const programPath = options.programPath ?? process.argv[1] ?? process.argv0;
    this.identity = resolveIdentity({
      env: this.#env,
      programPath,
      name: options.name,
      defaultName: options.defaultName,
      index: options.index,
      checkName: !launched,
      onNameOverride: (name, previous) => baseLogger.info({ name, previous }, "plugin name overridden"),
    });
    this.logger = bindLogger(baseLogger, { plugin: this.name });
    for (const stray of strays) {
      this.logger.warn(
        { key: stray.key.slice(0, 64), nearest: stray.nearest },
        `the plugin's key ${describeUnknownKey(stray)} is no handler, and is ignored`,
      );
    }
    this.logger.info(
      { program: programName(programPath), events: formatEventMask(this.handledEvents) },
      `created plugin ${this.name}`,
    );
    this.#service = {
      plugin,
      stub: this,
      logger: this.logger,
      handled: this.handledEvents,
      failurePolicy: this.failurePolicy,
      configuring: (request) => this.#configuring(request),
      warmUp: options.warmUp ?? true,
    };
  }

  /** `<index>-<name>`, as the runtime knows it. */
  get name(): string {
    return `${this.identity.index}-${this.identity.name}`;
  }

  /** The events subscribed to: those `configure` chose, else the handled ones. */
  get events(): EventMask {
    return this.#events;
  }

  /** The runtime's registration timeout (its own once configured, before that the default). */
  get registrationTimeoutMs(): number {
    return this.#registrationTimeoutMs;
  }

  /** The runtime's request timeout (its own once configured, before that the default). */
  get requestTimeoutMs(): number {
    return this.#requestTimeoutMs;
  }

  /** The runtime, once it has configured the plugin. */
  get runtime(): RuntimeInfo | undefined {
    return this.#runtime;
  }

  /** Whether it is connected and configured. */
  get connected(): boolean {
    return this.#session !== undefined && !this.#starting;
  }

  /**
   * Connects once: registers, waits for Configure, and resolves when the
   * plugin is configured (the runtime then synchronizes and sends events).
   * @throws StubError
   */
  async start(): Promise<void> {
    if (this.#session || this.#starting) {
      throw new StubError("ERR_STUB_ALREADY_STARTED", `plugin ${this.name} is already started`);
    }
    this.#starting = true;
    if (this.#stop.signal.aborted) this.#stop = new AbortController();
    const stop = this.#stop.signal;
    try {
      // the handlers' spans start with the first request if an SDK is registered
      await loadOpenTelemetry();
      const trunk = await openConnection(this.#nextSource());
      if (stop.aborted) {
        trunk.destroy();
        throw new StubError("ERR_STUB_STOPPED", `plugin ${this.name} was stopped while starting`);
      }
      const session = new Session({
        trunk,
        service: this.#service,
        registration: { pluginName: this.identity.name, pluginIdx: this.identity.index, NRIVersion: NRI_VERSION },
        registrationTimeoutMs: this.#registrationTimeoutMs,
        configureTimeoutMs: this.#options.configureTimeoutMs ?? this.#registrationTimeoutMs,
      });
      this.#session = session;
      let established = false;
      this.#sessionEnded = session.closed.then((reason) => this.#ended(session, reason, established));
      this.logger.info({ nriVersion: NRI_VERSION }, `registering plugin ${this.name}`);
      try {
        this.#events = await session.handshake();
        established = true;
      } catch (error) {
        if (stop.aborted) {
          throw new StubError("ERR_STUB_STOPPED", `plugin ${this.name} was stopped while starting`, { cause: error });
        }
        throw error;
      }
      this.logger.info({ events: formatEventMask(this.#events) }, `started plugin ${this.name}`);
    } finally {
      this.#starting = false;
    }
  }

  /**
   * Starts and serves until `stop()` (then resolves) or until the runtime
   * goes away: then `onClose` is called and, unless reconnecting, it rejects
   * with a StubError ERR_STUB_CONNECTION_LOST.
   */
  async run(): Promise<void> {
    const reconnect = this.#options.reconnect;
    const backoff = typeof reconnect === "object" ? reconnect : {};
    let attempt = 0;
    for (;;) {
      try {
        await this.start();
        attempt = 0;
        const lost = await this.#sessionEnded;
        if (!lost) return;
        if (!reconnect) throw lost;
      } catch (error) {
        if (this.#stop.signal.aborted) return;
        if (!reconnect || !(error instanceof StubError) || !RETRIABLE.has(error.code)) throw error;
        this.logger.warn({ err: error, attempt }, `plugin ${this.name} could not connect`);
      }
      if (this.#inheritedFdUsed) {
        throw new StubError(
          "ERR_STUB_CONNECTION_LOST",
          `connection to the runtime lost; plugin ${this.name} was launched by the runtime and cannot reconnect`,
        );
      }
      const delay = backoffDelay(attempt++, backoff);
      this.logger.info({ delayMs: delay }, "reconnecting");
      const stop = this.#stop.signal;
      await sleep(delay, stop);
      if (stop.aborted) return;
    }
  }

  /** Closes the connection to the runtime (nothing is sent; the runtime notices the close). */
  async stop(): Promise<void> {
    this.logger.info(`stopping plugin ${this.name}`);
    this.#stop.abort();
    const session = this.#session;
    if (session) {
      session.close();
      await this.#sessionEnded;
    }
  }

  /**
   * Asks the runtime to update containers (and to evict some; runtimes up
   * to NRI v0.12 ignore evictions). Resolves with the updates that failed.
   * There is no deadline, as in Go; pass a signal to give up.
   * @throws StubError ERR_STUB_NOT_CONNECTED, ERR_STUB_INVALID_MESSAGE (naming the update and field), or the ClientError of the call
   */
  async updateContainers(
    updates: readonly UpdateInput[],
    evictions?: readonly EvictionInput[],
    options: { signal?: AbortSignal } = {},
  ): Promise<ContainerUpdate[]> {
    const session = this.#session;
    if (!session) throw new StubError("ERR_STUB_NOT_CONNECTED", `plugin ${this.name} is not connected`);
    const request = {
      update: toUpdates(updates, "updateContainers"),
      evict: toEvictions(evictions, "updateContainers"),
    };
    const reply = await traceRuntimeCall("updateContainers", this.identity, (metadata) =>
      session.runtime.updateContainers(request, { signal: options.signal, metadata }),
    );
    return reply.failed;
  }

  #nextSource(): ConnectionSource {
    const connection = this.#connection;
    if (connection) {
      this.#connection = undefined;
      return { kind: "given", connection };
    }
    const fd = inheritedFd(this.#env);
    if (fd !== undefined && !this.#inheritedFdUsed) {
      this.#inheritedFdUsed = true;
      return { kind: "inherited", fd };
    }
    if (fd !== undefined) {
      throw new StubError("ERR_STUB_CONNECTION_LOST", `the connection in the environment (fd ${fd}) was used already`);
    }
    return {
      kind: "socket",
      socketPath: this.#options.socketPath ?? DEFAULT_SOCKET_PATH,
      dial: this.#options.dial ?? dialUnix,
    };
  }

  #configuring(request: ConfigureRequest): ConfigureInput {
    let nriVersion = request.NRIVersion;
    if (isUnknownNriVersion(nriVersion)) {
      try {
        nriVersion = inferRuntimeNriVersion(request.runtimeName, request.runtimeVersion);
        this.logger.info({ nriVersion }, "inferred the runtime's NRI version");
      } catch (error) {
        this.logger.warn({ err: error }, `failed to infer the runtime's NRI version: ${messageOf(error)}`);
        nriVersion = "unknown";
      }
    }
    // a runtime that sends no timeout (0) keeps the defaults
    if (request.registrationTimeout > 0n) this.#registrationTimeoutMs = Number(request.registrationTimeout);
    if (request.requestTimeout > 0n) this.#requestTimeoutMs = Number(request.requestTimeout);
    this.#runtime = { name: request.runtimeName, version: request.runtimeVersion, nriVersion };
    this.logger.info(
      { runtime: request.runtimeName, runtimeVersion: request.runtimeVersion, nriVersion },
      `configuring plugin ${this.name}`,
    );
    if (this.failurePolicy && nriVersion !== "unknown" && !runtimeAppliesFailurePolicy(nriVersion)) {
      this.logger.warn(
        { nriVersion, failurePolicy: this.failurePolicy },
        `the runtime's NRI ${nriVersion} predates failure policies (v0.12.4): it ignores this plugin's`,
      );
    }
    return {
      config: request.config,
      runtimeName: request.runtimeName,
      runtimeVersion: request.runtimeVersion,
      runtimeNriVersion: nriVersion,
      registrationTimeoutMs: this.#registrationTimeoutMs,
      requestTimeoutMs: this.#requestTimeoutMs,
    };
  }

  /**
   * The session ended; returns why, or undefined when `stop()` ended it. A
   * session that never finished its handshake fails `start()` instead of
   * calling onClose.
   */
  #ended(session: Session, reason: Error, established: boolean): StubError | undefined {
    if (this.#session === session) this.#session = undefined;
    if (this.#stop.signal.aborted) return undefined;
    const lost = new StubError("ERR_STUB_CONNECTION_LOST", `connection to the runtime lost: ${reason.message}`, {
      cause: reason,
    });
    if (!established) return lost;
    this.logger.info({ reason: reason.message }, `connection to the runtime closed (plugin ${this.name})`);
    try {
      this.#options.onClose?.(lost);
    } catch (error) {
      this.logger.error({ err: error }, `onClose failed: ${messageOf(error)}`);
    }
    return lost;
  }
}
