import { createServer, type Server as NetServer, type Socket } from "node:net";
import type { Duplex } from "node:stream";
import {
  type ConfigureRequest,
  type ConfigureResponse,
  type ContainerUpdate,
  type DeepPartial,
  PluginDefinition,
  type RegisterPluginRequest,
  RuntimeDefinition,
  type UpdateContainersRequest,
} from "@nri-ts/api";
import { Mux, type MuxError, PLUGIN_SERVICE_CONN, RUNTIME_SERVICE_CONN, socketPair } from "@nri-ts/mux";
import { Channel, type Client, createClient, Server } from "@nri-ts/ttrpc";
import type { Awaitable } from "../plugin.js";

/** How a scripted runtime answers the plugin's calls. */
export interface ScriptedRuntimeOptions {
  /**
   * Runs when RegisterPlugin arrives, before it is answered: e.g. send
   * Configure first, as a real runtime may. A throw refuses the registration.
   */
  onRegister?(request: RegisterPluginRequest, runtime: ScriptedRuntime): Awaitable<void>;
  /** Answers UpdateContainers with the updates that failed; default none. */
  onUpdateContainers?(request: UpdateContainersRequest): Awaitable<ContainerUpdate[]>;
}

/**
 * The runtime side of one plugin connection, for tests: it serves the
 * Runtime service on mux connection 2 and calls the plugin's Plugin service
 * on connection 1, as NRI runtimes do, and leaves every step to the test.
 */
export class ScriptedRuntime {
  /** A client of the plugin's service (Configure, Synchronize, CreateContainer, StateChange, ...). */
  readonly plugin: Client<PluginDefinition>;
  /** Every RegisterPlugin received. */
  readonly registrations: RegisterPluginRequest[] = [];
  /** Every UpdateContainers received. */
  readonly updateRequests: UpdateContainersRequest[] = [];
  /** Resolves with the mux's reason once the connection is closed. */
  readonly closed: Promise<MuxError>;
  readonly #mux: Mux;
  readonly #registered: Promise<RegisterPluginRequest>;

  constructor(trunk: Duplex, options: ScriptedRuntimeOptions = {}) {
    const mux = new Mux(trunk, { blockedRead: true });
    this.#mux = mux;
    this.closed = new Promise((resolve) => mux.once("close", resolve));
    let registered!: (request: RegisterPluginRequest) => void;
    this.#registered = new Promise((resolve) => (registered = resolve));

    this.plugin = createClient(PluginDefinition, new Channel(mux.open(PLUGIN_SERVICE_CONN)));
    const server = new Server().add(RuntimeDefinition, {
      registerPlugin: async (request) => {
        this.registrations.push(request);
        registered(request);
        await options.onRegister?.(request, this);
        return {};
      },
      updateContainers: async (request) => {
        this.updateRequests.push(request);
        return { failed: (await options.onUpdateContainers?.(request)) ?? [] };
      },
    });
    void server.serve(mux.open(RUNTIME_SERVICE_CONN), { peer: "nri-plugin" });
    mux.unblock();
  }

  /** A runtime and the plugin's end of a fresh socket pair (give it to the stub as `connection`). */
  static async pair(options?: ScriptedRuntimeOptions): Promise<{ runtime: ScriptedRuntime; connection: Socket }> {
    const { local, peer } = await socketPair();
    return { runtime: new ScriptedRuntime(local, options), connection: peer };
  }

  /** The first RegisterPlugin. */
  registered(): Promise<RegisterPluginRequest> {
    return this.#registered;
  }

  /** Sends Configure (defaults: no config, runtime "scripted" v0.0.0, NRI v0.12.2, 5 s and 2 s). */
  configure(request: DeepPartial<ConfigureRequest> = {}): Promise<ConfigureResponse> {
    return this.plugin.configure(
      {
        runtimeName: "scripted",
        runtimeVersion: "v0.0.0",
        registrationTimeout: 5000n,
        requestTimeout: 2000n,
        NRIVersion: "v0.12.2",
        ...request,
      },
      { deadline: Date.now() + 2000 },
    );
  }

  /** What a runtime does with a new plugin: waits for its registration, configures it, synchronizes it (empty). */
  async handshake(request: DeepPartial<ConfigureRequest> = {}): Promise<ConfigureResponse> {
    await this.registered();
    const reply = await this.configure(request);
    await this.plugin.synchronize({}, { deadline: Date.now() + 2000 });
    return reply;
  }

  /** Closes the connection, as a runtime that goes away. */
  close(): void {
    this.#mux.close();
  }
}

/** A socket a scripted runtime listens on: each accepted connection becomes a ScriptedRuntime. */
export class ScriptedRuntimeListener {
  readonly #server: NetServer;
  readonly #accepted: ScriptedRuntime[] = [];
  readonly #waiting: Array<(runtime: ScriptedRuntime) => void> = [];

  private constructor(server: NetServer) {
    this.#server = server;
  }

  /** Listens on `socketPath`. */
  static async listen(socketPath: string, options?: ScriptedRuntimeOptions): Promise<ScriptedRuntimeListener> {
    let listener!: ScriptedRuntimeListener;
    const server = createServer((socket) => {
      const runtime = new ScriptedRuntime(socket, options);
      const waiter = listener.#waiting.shift();
      if (waiter) waiter(runtime);
      else listener.#accepted.push(runtime);
    });
    listener = new ScriptedRuntimeListener(server);
    await new Promise<void>((resolve, reject) => {
      server.once("error", reject);
      server.listen(socketPath, () => {
        server.off("error", reject);
        resolve();
      });
    });
    return listener;
  }

  /** The next accepted connection. */
  next(): Promise<ScriptedRuntime> {
    const runtime = this.#accepted.shift();
    if (runtime) return Promise.resolve(runtime);
    return new Promise((resolve) => this.#waiting.push(resolve));
  }

  /** Stops listening; accepted connections stay open. */
  close(): void {
    this.#server.close();
  }
}
