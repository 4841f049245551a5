import type { Socket } from "node:net";
import {
  type Container,
  type ContainerEviction,
  type ContainerUpdate,
  type CreateContainerRequest,
  type CreateContainerResponse,
  DEFAULT_PLUGIN_CONFIG_PATH,
  DEFAULT_PLUGIN_PATH,
  DEFAULT_REGISTRATION_TIMEOUT_MS,
  DEFAULT_REQUEST_TIMEOUT_MS,
  DEFAULT_SOCKET_PATH,
  Event,
  eventName,
  type FailurePolicy,
  NRI_VERSION,
  type OwningPlugins,
  type PodSandbox,
  type PostCreateContainerRequest,
  type PostStartContainerRequest,
  type PostUpdateContainerRequest,
  type PostUpdatePodSandboxRequest,
  type RemoveContainerRequest,
  type RemovePodSandboxRequest,
  type RunPodSandboxRequest,
  type StartContainerRequest,
  type StopContainerRequest,
  type StopContainerResponse,
  type StopPodSandboxRequest,
  type TracedRequest,
  type UpdateContainerRequest,
  type UpdatePodSandboxRequest,
  type UpdatePodSandboxResponse,
} from "@nri-ts/api";
import type { BuiltinHandlers, BuiltinPlugin } from "./transport/builtin-plugin.js";
import { CreateContainerResult } from "./create-container-result.js";
import { defaultValidator } from "./validation/default-validator.js";
import type { DefaultValidatorConfig } from "./validation/default-validator-config.js";
import { type DiscoveredPlugin, discoverPlugins } from "./launch/discovery.js";
import type { PluginFailure } from "./plugin-error.js";
import { closedWithin, exitText, launchPlugin, type LaunchedProcess } from "./launch/launch.js";
import { PluginListener } from "./transport/listener.js";
import { Mutex, type Release, ReadWriteLock } from "./locks.js";
import { type DeprecationRecorder, type Logger, type Metrics, noMetrics, silentLogger } from "./observability.js";
import { Plugin, type PluginHost, type PluginKind, type RelayMethod } from "./plugin.js";
import { comparePlugins } from "./plugin-order.js";
import type { PluginRequest } from "./transport/plugin-transport.js";
import {
  StopContainerResult,
  type MergedUpdateContainerResponse,
  UpdateContainerResult,
} from "./update-container-result.js";
import { firstValidationError } from "./validation/validation.js";
import { isWasm } from "./transport/wasm/wasm-module.js";
import { errorText } from "./error-text.js";
import { RequestTrace } from "./tracing.js";
import { loadOpenTelemetry } from "@nri-ts/ttrpc/tracing";

/** How long a failed launched plugin's stderr may take to arrive before the failure is logged. */
const STDERR_GRACE_MS = 1000;

/** Hands the adaptation's synchronization to the runtime's state: pods and containers in, the plugins' updates out. */
export type SyncCallback = (pods: PodSandbox[], containers: Container[]) => Promise<ContainerUpdate[]>;

/**
 * The runtime's side of a synchronization: call `synchronize` with every pod
 * and container (status included) as they are now, apply the updates it
 * resolves to, and resolve; reject to refuse the plugin(s) being
 * synchronized.
 */
export type SyncFn = (synchronize: SyncCallback) => Promise<void>;

/** Where unsolicited updates come from. */
export interface UnsolicitedUpdateOrigin {
  /** The plugin's full name, `<idx>-<name>`. */
  plugin: string;
  /**
   * The evictions the plugin asked for along with the updates. The Go
   * adaptation drops them; they are passed on here for runtimes that act
   * on them.
   */
  evictions: ContainerEviction[];
}

/**
 * The runtime applies updates a plugin asks for on its own (Runtime
 * UpdateContainers); resolves to the updates that failed, or rejects (the
 * plugin then gets the error).
 */
export type UpdateFn = (updates: ContainerUpdate[], origin: UnsolicitedUpdateOrigin) => Promise<ContainerUpdate[]>;

/** The requests whose plugin replies are merged, with what each is asked and answers. */
export interface MergedRequests {
  CreateContainer: { request: CreateContainerRequest; response: CreateContainerResponse };
  UpdateContainer: { request: UpdateContainerRequest; response: MergedUpdateContainerResponse };
  StopContainer: { request: StopContainerRequest; response: StopContainerResponse };
}

/**
 * How one CreateContainer, UpdateContainer or StopContainer ended, as the
 * `onMerge` option hears of it: the runtime's request as the plugins left it
 * (filled in; CreateContainer's adjusted, UpdateContainer's resources
 * merged), `owners` (who set or removed what, per container, updates of
 * other containers included: the `OwningPlugins` validators get), and
 * either the merged `response` the runtime receives or the `error` the
 * request failed with (owners then as far as the merge got). The objects are
 * the adaptation's own: read them, don't change them.
 */
export type MergeEvent = {
  [O in keyof MergedRequests]: {
    operation: O;
    request: MergedRequests[O]["request"];
    owners: OwningPlugins;
  } & ({ response: MergedRequests[O]["response"]; error?: undefined } | { response?: undefined; error: Error });
}[keyof MergedRequests];

/**
 * The runtime's own context for one request (Go's `ctx`): when `signal`
 * aborts, the plugin being called is cut short and the request fails with
 * Go's text, `context deadline exceeded` for an `AbortSignal.timeout(ms)`,
 * `context canceled` for any other reason; no plugin is dropped for it and
 * later plugins are not called. Each plugin still has the request timeout.
 */
export interface RequestOptions {
  signal?: AbortSignal;
}

/** Options of an Adaptation; every one has a default. */
export interface AdaptationOptions {
  /** The socket external plugins connect to (default /var/run/nri/nri.sock); its directory is created with mode 0700. */
  socketPath?: string;
  /** Where plugins to launch are found (default /opt/nri/plugins). */
  pluginPath?: string;
  /** Where launched plugins' configuration is found (default /etc/nri/conf.d). */
  pluginConfigPath?: string;
  /** Accept external plugins on the socket (default true). */
  externalConnections?: boolean;
  /** How long a plugin has to register, in milliseconds (default 5000). */
  registrationTimeoutMs?: number;
  /** How long a plugin has for each request, in milliseconds (default 2000). */
  requestTimeoutMs?: number;
  /** The builtin default validator's settings; it runs (as 00-default-validator) only if `enable` is set. */
  defaultValidator?: DefaultValidatorConfig;
  /** In-process plugins, started before launched ones. */
  builtinPlugins?: BuiltinPlugin[];
  logger?: Logger;
  /** Counters of plugin activity (none by default). */
  metrics?: Metrics;
  /**
   * Hears how every CreateContainer, UpdateContainer and StopContainer
   * ended, with the owner of each change (see MergeEvent); called once per
   * request, after validation, before the response is returned. An
   * exception it throws is logged and otherwise ignored.
   */
  onMerge?: (event: MergeEvent) => void;
  /**
   * Hears every failure of a plugin (timeout, lost connection, protocol
   * error) and what its failure policy decided: dropped or kept, request
   * failed or went on. An exception it throws is logged and ignored.
   */
  onPluginFailure?: (failure: PluginFailure) => void;
  /**
   * Hears each line launched plugins write to stderr, e.g. to show why one
   * failed to start; without it their output is discarded, as containerd
   * discards it.
   */
  launchedStderr?: (plugin: string, line: string) => void;
  /** Receives deprecation warnings; without one they are logged. */
  deprecations?: DeprecationRecorder;
  /** The NRI version told to plugins (default this package's, v0.12.5). */
  nriVersion?: string;
}

/** A plugin as the adaptation sees it. */
export interface PluginInfo {
  index: string;
  name: string;
  /** `<idx>-<name>`. */
  fullName: string;
  kind: PluginKind;
  /** The events it subscribed to (a mask). */
  events: number;
  /** Its failure policy, as its Configure reply gave it; undefined: none. */
  failurePolicy: FailurePolicy | undefined;
}

/** Holds off plugin synchronization until `unblock()`. */
export interface PluginSyncBlock {
  /** Lets plugin synchronization go on; calling it again does nothing. */
  unblock(): void;
}

/** The adaptation could not be created, started or used as asked. */
export class AdaptationError extends Error {
  override readonly name = "AdaptationError";
}

/**
 * The runtime side of NRI: hosts plugins (launched from the plugin
 * directory, connected to the socket, or in-process), relays every pod and
 * container lifecycle request to those subscribed, in index order, and
 * merges what they ask for exactly as the Go adaptation does.
 *
 * Requests are serialized: each holds the adaptation for its whole
 * duration. A plugin that times out, loses its connection or breaks the
 * protocol is handled by its failure policy (by default it is closed and the
 * request goes on without it); a plugin that answers with an error fails the
 * request. Plugins already closed when their turn comes are skipped.
 */
export class Adaptation {
  readonly #syncFn: SyncFn;
  readonly #updateFn: UpdateFn;
  readonly #socketPath: string;
  readonly #pluginPath: string;
  readonly #pluginConfigPath: string;
  readonly #listen: boolean;
  readonly #builtins: BuiltinPlugin[];
  readonly #logger: Logger;
  readonly #metrics: Metrics;
  readonly #onMerge: ((event: MergeEvent) => void) | undefined;
  readonly #launchedStderr: ((plugin: string, line: string) => void) | undefined;
  readonly #host: PluginHost;
  #registrationTimeoutMs: number;
  #requestTimeoutMs: number;
  /** Active plugins, in invocation order. */
  #plugins: Plugin[] = [];
  /** Active plugins that validate adjustments, in invocation order. */
  #validators: Plugin[] = [];
  /** Serializes requests, start and stop. */
  readonly #mutex = new Mutex();
  /** Read side: the runtime's BlockPluginSync; write side: an external plugin's synchronization. */
  readonly #syncLock = new ReadWriteLock();
  #listener: PluginListener | undefined;
  /** Kills of pruned plugins still under way. */
  readonly #stopping = new Set<Promise<void>>();
  #nextSequence = 0;
  /** An external plugin being started, which stop() cuts short. */
  #connecting: Plugin | undefined;
  #state: "new" | "started" | "stopped" = "new";

  /**
   * @param name the runtime's name, told to plugins (e.g. `containerd`)
   * @param version the runtime's version, told to plugins
   * @throws AdaptationError when syncFn or updateFn is missing
   */
  constructor(name: string, version: string, syncFn: SyncFn, updateFn: UpdateFn, options: AdaptationOptions = {}) {
    if (typeof syncFn !== "function") throw new AdaptationError("failed to create NRI adaptation, nil SyncFn");
    if (typeof updateFn !== "function") throw new AdaptationError("failed to create NRI adaptation, nil UpdateFn");
    this.#syncFn = syncFn;
    this.#updateFn = updateFn;
    this.#socketPath = options.socketPath ?? DEFAULT_SOCKET_PATH;
    this.#pluginPath = options.pluginPath ?? DEFAULT_PLUGIN_PATH;
    this.#pluginConfigPath = options.pluginConfigPath ?? DEFAULT_PLUGIN_CONFIG_PATH;
    this.#listen = options.externalConnections ?? true;
    this.#registrationTimeoutMs = options.registrationTimeoutMs ?? DEFAULT_REGISTRATION_TIMEOUT_MS;
    this.#requestTimeoutMs = options.requestTimeoutMs ?? DEFAULT_REQUEST_TIMEOUT_MS;
    this.#logger = options.logger ?? silentLogger;
    this.#metrics = options.metrics ?? noMetrics;
    this.#onMerge = options.onMerge;
    this.#launchedStderr = options.launchedStderr;
    this.#builtins = [...(options.builtinPlugins ?? [])];
    const validator = defaultValidator(options.defaultValidator);
    if (validator) {
      this.#builtins.unshift({
        index: validator.index,
        name: validator.name,
        handlers: {
          validateContainerAdjustment(request) {
            const verdict = validator.validate(request);
            if (verdict.reject) throw new Error(verdict.reason);
          },
        },
      });
    }
    const adaptation = this;
    this.#host = {
      logger: this.#logger,
      metrics: this.#metrics,
      deprecations: options.deprecations,
      runtimeName: name,
      runtimeVersion: version,
      nriVersion: options.nriVersion ?? NRI_VERSION,
      get registrationTimeoutMs() {
        return adaptation.#registrationTimeoutMs;
      },
      get requestTimeoutMs() {
        return adaptation.#requestTimeoutMs;
      },
      updateContainers: (request, plugin) => this.#updateFn(request.update, { plugin, evictions: request.evict }),
      pluginFailed: (failure) => {
        try {
          options.onPluginFailure?.(failure);
        } catch (error) {
          this.#logger.error(
            { plugin: failure.plugin, err: error },
            `NRI plugin failure observer failed: ${errorText(error)}`,
          );
        }
      },
    };
  }

  /** How long a plugin has to register, in milliseconds; applies to registrations from now on. */
  get registrationTimeoutMs(): number {
    return this.#registrationTimeoutMs;
  }

  set registrationTimeoutMs(ms: number) {
    this.#registrationTimeoutMs = ms;
  }

  /** How long a plugin has for each request, in milliseconds; applies to requests from now on. */
  get requestTimeoutMs(): number {
    return this.#requestTimeoutMs;
  }

  set requestTimeoutMs(ms: number) {
    this.#requestTimeoutMs = ms;
  }

  /** The active plugins in invocation order. */
  get plugins(): PluginInfo[] {
    return this.#plugins.map(({ index, name, fullName, kind, events, failurePolicy }) => ({
      index,
      name,
      fullName,
      kind,
      events,
      failurePolicy,
    }));
  }

  /**
   * Starts the builtin plugins, launches and starts those in the plugin
   * directory (a plugin that fails is logged and left out), synchronizes
   * them through the runtime's SyncFn, then listens for external plugins.
   *
   * @throws DiscoveryError, or an AdaptationError when a builtin plugin
   *   fails, the SyncFn rejects, or the socket cannot be created
   */
  async start(): Promise<void> {
    await this.#mutex.run(async () => {
      if (this.#state !== "new") throw new AdaptationError("NRI adaptation already started");
      this.#state = "started";
      this.#logger.info("runtime interface starting up");
      // requests are traced from the first on if an OpenTelemetry SDK is registered
      await loadOpenTelemetry();
      await this.#startPlugins();
      if (this.#listen) await this.#startListener();
      else this.#logger.info("connection from external plugins disabled");
    });
  }

  /**
   * Stops listening and stops every plugin: launched ones are killed, and
   * every connection is closed (external plugins see the socket close).
   */
  async stop(): Promise<void> {
    this.#state = "stopped";
    this.#connecting?.close();
    await this.#listener?.close();
    this.#listener = undefined;
    await this.#mutex.run(async () => {
      const plugins = this.#plugins;
      this.#plugins = [];
      this.#validators = [];
      await Promise.all([...plugins.map((plugin) => plugin.stop()), ...this.#stopping]);
    });
  }

  /**
   * Holds off the synchronization of newly connected plugins (which would
   * otherwise race with the runtime's own work) until `unblock()`.
   */
  async blockPluginSync(): Promise<PluginSyncBlock> {
    const release: Release = await this.#syncLock.read();
    return { unblock: release };
  }

  runPodSandbox(request: RunPodSandboxRequest, options: RequestOptions = {}): Promise<void> {
    return this.#relayEvent(Event.RUN_POD_SANDBOX, "runPodSandbox", request, options);
  }

  /** Relays an update of a pod's resources; what plugins answer is not used. */
  async updatePodSandbox(
    request: UpdatePodSandboxRequest,
    options: RequestOptions = {},
  ): Promise<UpdatePodSandboxResponse> {
    await this.#relayEvent(Event.UPDATE_POD_SANDBOX, "updatePodSandbox", request, options);
    return {};
  }

  postUpdatePodSandbox(request: PostUpdatePodSandboxRequest, options: RequestOptions = {}): Promise<void> {
    return this.#relayEvent(Event.POST_UPDATE_POD_SANDBOX, "postUpdatePodSandbox", request, options);
  }

  stopPodSandbox(request: StopPodSandboxRequest, options: RequestOptions = {}): Promise<void> {
    return this.#relayEvent(Event.STOP_POD_SANDBOX, "stopPodSandbox", request, options);
  }

  removePodSandbox(request: RemovePodSandboxRequest, options: RequestOptions = {}): Promise<void> {
    return this.#relayEvent(Event.REMOVE_POD_SANDBOX, "removePodSandbox", request, options);
  }

  /**
   * Asks the plugins for the adjustment of a container being created, and
   * validators for their verdict on the merged result. The request is
   * filled in and adjusted in place, as each plugin sees it.
   *
   * @returns the merged adjustment (never absent) and updates of other containers
   * @throws PluginError, ConflictError, CreationUpdateError, ValidatorRejectedError, ValidatorFailedError, ...
   */
  createContainer(request: CreateContainerRequest, options: RequestOptions = {}): Promise<CreateContainerResponse> {
    const { signal } = options;
    return RequestTrace.run("CreateContainer", request, (trace) =>
      this.#serialized(async () => {
        const result = new CreateContainerResult(request);
        return this.#observeMerge("CreateContainer", request, result.owners.message, async () => {
          const validation = this.#validators.length > 0 ? result.startValidation() : undefined;
          // a plugin closed before its turn is not reported to validators as consulted
          for (const plugin of this.#active()) {
            validation?.addPlugin(plugin.name, plugin.index);
            result.apply(
              await plugin.relay(Event.CREATE_CONTAINER, "createContainer", result.request, signal, trace),
              plugin.fullName,
            );
          }
          const response = result.response();
          if (validation) {
            const validationRequest = validation.build(response, result.owners.message);
            const validators = this.#validators.filter((plugin) => !plugin.closed);
            const failure = await firstValidationError(
              validators.map((plugin) => plugin.validate(validationRequest, signal, trace)),
            );
            if (failure) throw failure;
          }
          return response;
        });
      }),
    );
  }

  postCreateContainer(request: PostCreateContainerRequest, options: RequestOptions = {}): Promise<void> {
    return this.#relayEvent(Event.POST_CREATE_CONTAINER, "postCreateContainer", request, options);
  }

  startContainer(request: StartContainerRequest, options: RequestOptions = {}): Promise<void> {
    return this.#relayEvent(Event.START_CONTAINER, "startContainer", request, options);
  }

  postStartContainer(request: PostStartContainerRequest, options: RequestOptions = {}): Promise<void> {
    return this.#relayEvent(Event.POST_START_CONTAINER, "postStartContainer", request, options);
  }

  /**
   * Asks the plugins about a change of a container's resources. The request
   * is filled in place; its resources become the merged ones as plugins
   * change them.
   *
   * @returns updates of other containers, then the requested container's merged entry (null when no plugin touched it)
   */
  updateContainer(
    request: UpdateContainerRequest,
    options: RequestOptions = {},
  ): Promise<MergedUpdateContainerResponse> {
    return RequestTrace.run("UpdateContainer", request, (trace) =>
      this.#serialized(async () => {
        const result = new UpdateContainerResult(request);
        return this.#observeMerge("UpdateContainer", request, result.owners.message, async () => {
          for (const plugin of this.#active()) {
            const response = await plugin.relay(
              Event.UPDATE_CONTAINER,
              "updateContainer",
              result.request,
              options.signal,
              trace,
            );
            result.apply(response, plugin.fullName);
          }
          return result.response();
        });
      }),
    );
  }

  postUpdateContainer(request: PostUpdateContainerRequest, options: RequestOptions = {}): Promise<void> {
    return this.#relayEvent(Event.POST_UPDATE_CONTAINER, "postUpdateContainer", request, options);
  }

  /** Tells the plugins a container is stopping; they may update other containers (or this one). */
  stopContainer(request: StopContainerRequest, options: RequestOptions = {}): Promise<StopContainerResponse> {
    return RequestTrace.run("StopContainer", request, (trace) =>
      this.#serialized(async () => {
        const result = new StopContainerResult();
        return this.#observeMerge("StopContainer", request, result.owners.message, async () => {
          for (const plugin of this.#active()) {
            result.apply(
              await plugin.relay(Event.STOP_CONTAINER, "stopContainer", request, options.signal, trace),
              plugin.fullName,
            );
          }
          return result.response();
        });
      }),
    );
  }

  removeContainer(request: RemoveContainerRequest, options: RequestOptions = {}): Promise<void> {
    return this.#relayEvent(Event.REMOVE_CONTAINER, "removeContainer", request, options);
  }

  /** Runs a request holding the adaptation, pruning closed plugins afterwards. */
  #serialized<T>(body: () => Promise<T>): Promise<T> {
    return this.#mutex.run(async () => {
      try {
        return await body();
      } finally {
        this.#removeClosedPlugins();
      }
    });
  }

  /** Runs a merging request's body and tells the `onMerge` observer how it ended. */
  async #observeMerge<O extends keyof MergedRequests>(
    operation: O,
    request: MergedRequests[O]["request"],
    owners: OwningPlugins,
    merge: () => Promise<MergedRequests[O]["response"]>,
  ): Promise<MergedRequests[O]["response"]> {
    if (!this.#onMerge) return merge();
    let response: MergedRequests[O]["response"];
    try {
      response = await merge();
    } catch (error) {
      const failure = error instanceof Error ? error : new Error(String(error));
      this.#tellMerge({ operation, request, owners, error: failure } as MergeEvent);
      throw error;
    }
    this.#tellMerge({ operation, request, owners, response } as MergeEvent);
    return response;
  }

  #tellMerge(event: MergeEvent): void {
    try {
      this.#onMerge?.(event);
    } catch (error) {
      this.#logger.error({ operation: event.operation, err: error }, `NRI merge observer failed: ${errorText(error)}`);
    }
  }

  #relayEvent<K extends RelayMethod>(
    event: Event,
    method: K,
    request: PluginRequest<K>,
    options: RequestOptions,
  ): Promise<void> {
    return RequestTrace.run(eventName(event), request as TracedRequest, (trace) =>
      this.#serialized(async () => {
        for (const plugin of this.#active()) await plugin.relay(event, method, request, options.signal, trace);
      }),
    );
  }

  /**
   * The plugins in invocation order, each checked when its turn comes: one
   * closed in the meantime (dropped by this request, or its connection lost
   * while idle) is skipped, as in Go v0.12.5, instead of failing the request.
   */
  *#active(): Generator<Plugin> {
    for (const plugin of this.#plugins) if (!plugin.closed) yield plugin;
  }

  #newPlugin(
    kind: PluginKind,
    identity: { index: string; name: string; config: string },
    via: ConstructorParameters<typeof Plugin>[0]["via"],
  ): Plugin {
    return new Plugin({ kind, ...identity, sequence: this.#nextSequence++, host: this.#host, via });
  }

  async #startPlugins(): Promise<void> {
    const discovered = await discoverPlugins(this.#pluginPath, this.#pluginConfigPath);
    let plugins: Plugin[] = [];
    try {
      for (const builtin of this.#builtins) plugins.push(await this.#startBuiltin(builtin));
      for (const found of discovered) {
        const fullName = `${found.index}-${found.name}`;
        this.#logger.info({ plugin: fullName }, `starting pre-installed NRI plugin ${JSON.stringify(found.name)}`);
        let plugin: Plugin;
        let launched: LaunchedProcess | undefined;
        try {
          ({ plugin, launched } = await this.#preparePreinstalled(found, fullName));
        } catch (error) {
          this.#logger.warn(
            { plugin: fullName, err: error },
            `failed to initialize pre-installed NRI plugin ${JSON.stringify(found.name)}: ${errorText(error)}`,
          );
          continue;
        }
        try {
          await plugin.start();
        } catch (error) {
          // what it wrote last comes before it is reported (if it goes at all)
          if (launched && this.#launchedStderr) await closedWithin(launched, STDERR_GRACE_MS);
          const ended = launched && exitText(launched.child);
          this.#logger.warn(
            { plugin: fullName, err: error },
            `failed to start pre-installed NRI plugin ${JSON.stringify(found.name)}: ${errorText(error)}${ended ? ` (the plugin ${ended})` : ""}`,
          );
          continue;
        }
        plugins.push(plugin);
      }
      // Each call synchronizes the plugins that are still in: a plugin that
      // fails is stopped and dropped, the others' updates are concatenated.
      const synchronize: SyncCallback = async (pods, containers) => {
        const candidates = plugins;
        plugins = [];
        const updates: ContainerUpdate[] = [];
        for (const plugin of candidates) {
          try {
            updates.push(...(await plugin.synchronize(pods, containers)));
          } catch (error) {
            await plugin.stop();
            this.#logger.warn(
              { plugin: plugin.fullName, err: error },
              `failed to synchronize pre-installed NRI plugin ${JSON.stringify(plugin.fullName)}: ${errorText(error)}`,
            );
            continue;
          }
          plugins.push(plugin);
        }
        return updates;
      };
      try {
        await this.#syncFn(synchronize);
      } catch (error) {
        throw new AdaptationError(`failed to synchronize pre-installed NRI Plugins: ${errorText(error)}`, {
          cause: error,
        });
      }
    } catch (error) {
      await Promise.all(plugins.map((plugin) => plugin.stop()));
      throw error;
    }
    this.#plugins = plugins;
    this.#sortPlugins();
  }

  /**
   * A plugin from the plugin directory, before it starts: a WebAssembly
   * module is loaded into a thread of this process (Go's magic-bytes test
   * tells it from a program), anything else is launched as a process.
   */
  async #preparePreinstalled(
    found: DiscoveredPlugin,
    fullName: string,
  ): Promise<{ plugin: Plugin; launched?: LaunchedProcess }> {
    const { index, name, config } = found;
    if (await isWasm(found.path)) {
      this.#logger.info({ plugin: fullName }, `found WASM plugin ${found.path}`);
      // loaded here, not on import: most runtimes host no WASM plugin (4 modules, about 0.6 MiB of RSS and 7 ms to load)
      const { WasmTransport } = await import("./transport/wasm/wasm-transport.js");
      const wasm = await WasmTransport.load(found.path, {
        // a WASM plugin does not register; the registration timeout bounds its initialization instead
        timeoutMs: this.#registrationTimeoutMs,
        onLog: (level, message) => this.#logger[level]({ plugin: fullName, pluginLog: true }, message),
      });
      return { plugin: this.#newPlugin("wasm", { index, name, config }, { wasm }) };
    }
    const stderr = this.#launchedStderr;
    const launched = await launchPlugin(
      found.path,
      found.index,
      found.name,
      stderr && ((line) => stderr(fullName, line)),
    ).catch((error: unknown) => {
      throw new Error(`failed to launch plugin ${JSON.stringify(fullName)}: ${errorText(error)}`, { cause: error });
    });
    return {
      plugin: this.#newPlugin("launched", { index, name, config }, { socket: launched.socket, child: launched.child }),
      launched,
    };
  }

  async #startBuiltin(builtin: BuiltinPlugin): Promise<Plugin> {
    const { index, name } = builtin;
    if (index === "" || name === "") {
      throw new AdaptationError(
        `failed to initialize builtin NRI plugin ${JSON.stringify(name)}: builtin plugin without index or name (${JSON.stringify(index)}, ${JSON.stringify(name)})`,
      );
    }
    const handlers: BuiltinHandlers = builtin.handlers;
    const plugin = this.#newPlugin("builtin", { index, name, config: "" }, { handlers });
    try {
      await plugin.start();
    } catch (error) {
      throw new AdaptationError(`failed to start builtin NRI plugin ${JSON.stringify(name)}: ${errorText(error)}`, {
        cause: error,
      });
    }
    return plugin;
  }

  async #startListener(): Promise<void> {
    this.#listener = await PluginListener.listen(
      this.#socketPath,
      (socket) => this.#connectExternal(socket),
      (error) => this.#logger.error({ err: error }, `plugin socket ${this.#socketPath}: ${error.message}`),
    );
  }

  /** Starts, synchronizes and adds a plugin that connected to the socket. */
  async #connectExternal(socket: Socket): Promise<void> {
    const plugin = this.#newPlugin("external", { index: "", name: "", config: "" }, { socket });
    this.#connecting = plugin;
    try {
      await plugin.start();
    } catch (error) {
      // named once it registered: a failed Configure is that plugin's
      this.#logger.error(
        {
          ...(plugin.name !== "" && { plugin: plugin.fullName }),
          err: error,
        },
        `failed to start external plugin: ${errorText(error)}`,
      );
      return;
    } finally {
      this.#connecting = undefined;
    }
    const release = await this.#syncLock.write();
    try {
      if (this.#state === "stopped") {
        plugin.close();
        return;
      }
      try {
        await this.#syncFn((pods, containers) => plugin.synchronize(pods, containers));
      } catch (error) {
        this.#logger.error(
          { plugin: plugin.fullName, err: error },
          `failed to synchronize plugin: ${errorText(error)}`,
        );
        plugin.close();
        return;
      }
      const count = await this.#mutex.run(async () => {
        if (this.#state === "stopped") {
          plugin.close();
          return undefined;
        }
        this.#plugins.push(plugin);
        this.#sortPlugins();
        return this.#plugins.length;
      });
      if (count === undefined) return;
      this.#metrics.updatePluginCount(count);
      this.#logger.info(
        { plugin: plugin.fullName },
        `plugin ${JSON.stringify(plugin.fullName)} connected and synchronized`,
      );
    } finally {
      release();
    }
  }

  /** Drops closed plugins (killing launched ones in the background) and recounts validators. */
  #removeClosedPlugins(): void {
    const active: Plugin[] = [];
    for (const plugin of this.#plugins) {
      if (!plugin.closed) {
        active.push(plugin);
        continue;
      }
      const stopping = plugin.stop().finally(() => this.#stopping.delete(stopping));
      this.#stopping.add(stopping);
    }
    this.#plugins = active;
    this.#validators = active.filter((plugin) => plugin.isValidator);
    this.#metrics.updatePluginCount(active.length);
  }

  #sortPlugins(): void {
    this.#removeClosedPlugins();
    this.#plugins.sort(comparePlugins);
    this.#validators.sort(comparePlugins);
    this.#logger.debug({ plugins: this.#plugins.map((plugin) => plugin.fullName) }, "plugin invocation order");
  }
}
