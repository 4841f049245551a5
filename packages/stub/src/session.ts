import type { Duplex } from "node:stream";
import { type EventMask, PluginDefinition, type RegisterPluginRequest, RuntimeDefinition } from "@nri-ts/api";
import { Mux, type MuxError, PLUGIN_SERVICE_CONN, RUNTIME_SERVICE_CONN } from "@nri-ts/mux";
import { Channel, type Client, createClient, Server } from "@nri-ts/ttrpc";
import { ClientError } from "nice-grpc-common";
import { StubError, messageOf } from "./errors.js";
import { type ConfigureResult, createPluginService, type ServiceHost } from "./service.js";
import { tracedService } from "./tracing.js";

/** What a session needs to run the handshake and serve the plugin. */
export interface SessionOptions {
  /** The connection to the runtime (the mux trunk). */
  trunk: Duplex;
  /** What the Plugin service serves. */
  service: ServiceHost;
  registration: RegisterPluginRequest;
  registrationTimeoutMs: number;
  /** How long to wait for Configure once registered. */
  configureTimeoutMs: number;
}

/** How long a failing session waits for its last answers to go out. */
const REPLY_GRACE_MS = 1000;

/**
 * One connection to the runtime, as NRI lays it out: a mux over the trunk,
 * the plugin serving the Plugin service on connection 1 and calling the
 * runtime's Runtime service on connection 2.
 */
export class Session {
  readonly runtime: Client<RuntimeDefinition>;
  /** Resolves with the mux's reason once the connection is closed, by either side. */
  readonly closed: Promise<MuxError>;
  readonly #mux: Mux;
  readonly #server: Server;
  readonly #channel: Channel;
  readonly #configured: Promise<ConfigureResult>;
  readonly #options: SessionOptions;

  /** Starts serving the Plugin service over `options.trunk`; `handshake()` then registers. */
  constructor(options: SessionOptions) {
    this.#options = options;
    const mux = new Mux(options.trunk);
    this.#mux = mux;
    this.closed = new Promise((resolve) => mux.once("close", resolve));

    let configured!: (result: ConfigureResult) => void;
    this.#configured = new Promise((resolve) => (configured = resolve));

    // The Plugin service is served before registering: a runtime may send
    // Configure before its answer to RegisterPlugin arrives.
    const identity = { index: options.registration.pluginIdx, name: options.registration.pluginName };
    this.#server = new Server().add(
      PluginDefinition,
      tracedService(createPluginService(options.service, configured), identity),
    );
    void this.#server.serve(mux.open(PLUGIN_SERVICE_CONN), { peer: "nri-runtime" });
    this.#channel = new Channel(mux.open(RUNTIME_SERVICE_CONN));
    this.runtime = createClient(RuntimeDefinition, this.#channel);
  }

  /**
   * Registers, waits for Configure, and resolves with the subscribed events;
   * or closes the connection and rejects with a StubError.
   */
  async handshake(): Promise<EventMask> {
    try {
      return await this.#handshake(this.#options);
    } catch (error) {
      // a failed Configure is answered with its error before the connection closes
      if (error instanceof StubError && error.code === "ERR_STUB_CONFIGURE") await this.#closeAfterReplies();
      else this.close();
      throw error;
    }
  }

  /** Lets the calls in progress send their answers (for a while at most), then closes. */
  async #closeAfterReplies(): Promise<void> {
    let timer: NodeJS.Timeout | undefined;
    const grace = new Promise<void>((resolve) => (timer = setTimeout(resolve, REPLY_GRACE_MS)));
    await Promise.race([this.#server.shutdown(), grace]);
    clearTimeout(timer);
    this.close();
  }

  async #handshake(options: SessionOptions): Promise<EventMask> {
    const lost = this.closed.then((reason): never => {
      throw new StubError("ERR_STUB_CONNECTION_LOST", `connection to the runtime closed: ${reason.message}`, {
        cause: reason,
      });
    });
    // the handshake may end first; the loss is then reported by `closed`
    lost.catch(() => {});

    const registered = this.runtime
      .registerPlugin(options.registration, { deadline: Date.now() + options.registrationTimeoutMs })
      .catch((error: unknown): never => {
        const text = error instanceof ClientError ? error.details : messageOf(error);
        throw new StubError("ERR_STUB_REGISTER", `failed to register with NRI/Runtime: ${text}`, { cause: error });
      });
    await Promise.race([registered, lost]);

    let timer: NodeJS.Timeout | undefined;
    const timeout = new Promise<never>((_, reject) => {
      timer = setTimeout(
        () =>
          reject(
            new StubError(
              "ERR_STUB_CONFIGURE_TIMEOUT",
              `the runtime did not configure the plugin within ${options.configureTimeoutMs} ms of its registration`,
            ),
          ),
        options.configureTimeoutMs,
      );
    });
    try {
      const result = await Promise.race([this.#configured, lost, timeout]);
      if ("error" in result) {
        throw new StubError("ERR_STUB_CONFIGURE", `plugin configuration failed: ${messageOf(result.error)}`, {
          cause: result.error,
        });
      }
      return result.events;
    } finally {
      clearTimeout(timer);
    }
  }

  /** Closes the connection now; handlers still running see their signal fire. */
  close(): void {
    this.#server.forceShutdown();
    this.#channel.close();
    this.#mux.close();
  }
}
