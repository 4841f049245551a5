import { connect as netConnect, type Socket } from "node:net";
import type { Duplex } from "node:stream";
import {
  type ConfigureResponse,
  PLUGIN_SOCKET_ENV,
  PluginDefinition,
  RuntimeDefinition,
  type SynchronizeRequest,
} from "@nri-ts/api";
import { connectFd, Mux, type MuxConnection, PLUGIN_SERVICE_CONN, RUNTIME_SERVICE_CONN } from "@nri-ts/mux";
import { Channel, type Client, createClient, Server, type ServiceImplementation } from "@nri-ts/ttrpc";

/** The Plugin service as a scripted plugin implements it; a method left out answers Unimplemented. */
export type PluginHandlers = ServiceImplementation<typeof PluginDefinition>;

/** One call the plugin received. */
export interface ReceivedCall {
  /** The method's wire name, e.g. `CreateContainer`. */
  method: string;
  request: unknown;
}

/** How a scripted plugin behaves. */
export interface ScriptedPluginOptions {
  /** Registered as `<index>-<name>`. */
  name: string;
  index: string;
  /** The mask answered to Configure when `handlers.configure` is left out (default 0: everything). */
  events?: number;
  /**
   * Handlers replacing the defaults. By default Configure answers `events`,
   * Synchronize joins pages and answers no updates, the lifecycle methods
   * answer empty responses, StateChange is Unimplemented, validation accepts.
   */
  handlers?: PluginHandlers;
  /** Leave out these methods entirely (they answer Unimplemented), e.g. to act as an old plugin. */
  without?: ReadonlyArray<keyof PluginHandlers>;
  /** Send RegisterPlugin (default true). */
  register?: boolean;
}

const EMPTY_RESPONSES: PluginHandlers = {
  synchronize: async (request: SynchronizeRequest) => ({ update: [], more: request.more }),
  shutdown: async () => ({}),
  runPodSandbox: async () => ({}),
  updatePodSandbox: async () => ({}),
  postUpdatePodSandbox: async () => ({}),
  stopPodSandbox: async () => ({}),
  removePodSandbox: async () => ({}),
  createContainer: async () => ({}),
  postCreateContainer: async () => ({}),
  startContainer: async () => ({}),
  postStartContainer: async () => ({}),
  updateContainer: async () => ({}),
  postUpdateContainer: async () => ({}),
  stopContainer: async () => ({}),
  removeContainer: async () => ({}),
  validateContainerAdjustment: async () => ({}),
};

/**
 * A plugin for tests, written directly on ttrpc and the mux (not on
 * @nri-ts/stub): it serves the Plugin service with scripted handlers,
 * records every call it gets, registers, and can call the Runtime service.
 * Its raw connections are exposed so that a test can misbehave on purpose.
 */
export class ScriptedPlugin {
  /** Every call received, in order. */
  readonly calls: ReceivedCall[] = [];
  /** The Runtime service of the adaptation. */
  readonly runtime: Client<typeof RuntimeDefinition>;
  /** Settles with the answer to RegisterPlugin (undefined when not registering). */
  readonly registered: Promise<void> | undefined;
  /** Resolves when the connection to the adaptation is gone. */
  readonly closed: Promise<void>;
  readonly mux: Mux;
  /** Connection 1, where the plugin answers; write raw ttrpc frames here to misbehave. */
  readonly pluginConnection: MuxConnection;
  /** Connection 2, where the plugin calls the runtime (through `runtime`); raw ttrpc frames may go here too. */
  readonly runtimeConnection: MuxConnection;
  readonly #server = new Server();

  constructor(trunk: Duplex, options: ScriptedPluginOptions) {
    this.mux = new Mux(trunk);
    this.closed = new Promise((resolve) => this.mux.once("close", () => resolve()));
    this.pluginConnection = this.mux.open(PLUGIN_SERVICE_CONN);
    this.runtimeConnection = this.mux.open(RUNTIME_SERVICE_CONN);
    const channel = new Channel(this.runtimeConnection, { onClose: () => this.mux.close() });
    this.runtime = createClient(RuntimeDefinition, channel);
    const configure = async (): Promise<Partial<ConfigureResponse>> => ({ events: options.events ?? 0 });
    const handlers: Record<string, unknown> = { configure, ...EMPTY_RESPONSES, ...options.handlers };
    for (const method of options.without ?? []) delete handlers[method];
    const recorded: Record<string, unknown> = {};
    for (const [key, handler] of Object.entries(handlers)) {
      const method = PluginDefinition.methods[key as keyof PluginHandlers].name;
      recorded[key] = (request: unknown, context: unknown) => {
        this.calls.push({ method, request });
        return (handler as (request: unknown, context: unknown) => unknown)(request, context);
      };
    }
    this.#server.add(PluginDefinition, recorded as PluginHandlers);
    void this.#server.serve(this.pluginConnection).then(() => this.mux.close());
    if (options.register ?? true) {
      this.registered = this.runtime
        .registerPlugin({ pluginName: options.name, pluginIdx: options.index, NRIVersion: "v0.12.2" })
        .then(() => undefined);
      // A test that does not look at the registration should not see it fail unhandled.
      this.registered.catch(() => {});
    }
  }

  /** Connects to an adaptation's socket. */
  static async connect(socketPath: string, options: ScriptedPluginOptions): Promise<ScriptedPlugin> {
    const socket: Socket = netConnect(socketPath);
    await new Promise<void>((resolve, reject) => {
      socket.once("connect", resolve);
      socket.once("error", reject);
    });
    return new ScriptedPlugin(socket, options);
  }

  /** Runs as a launched plugin, on the connection the runtime handed down (the fd in NRI_PLUGIN_SOCKET). */
  static inherited(options: ScriptedPluginOptions): ScriptedPlugin {
    return new ScriptedPlugin(connectFd(Number(process.env[PLUGIN_SOCKET_ENV])), options);
  }

  /** The names of the methods called so far, in order. */
  get methods(): string[] {
    return this.calls.map((call) => call.method);
  }

  /** The requests of one method, in order. */
  requests<T = unknown>(method: string): T[] {
    return this.calls.filter((call) => call.method === method).map((call) => call.request as T);
  }

  /** Drops the connection, as a crashing plugin would. */
  close(): void {
    this.#server.forceShutdown();
    this.mux.close();
  }
}
