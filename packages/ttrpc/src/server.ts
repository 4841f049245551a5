import { createServer as createNetServer, type Server as NetServer } from "node:net";
import type { Duplex } from "node:stream";
import { composeServerMiddleware, type ServerMiddleware } from "nice-grpc-common";
import { methodPath, type ServiceDefinition, type ServiceImplementation } from "./definition.js";
import { listenBacklog } from "./listen-backlog.js";
import { type AnyHandler, type RegisteredMethod, ServerConnection } from "./server-connection.js";

/** Options of one served connection. */
export interface ServeOptions {
  /** What handlers see as `context.peer`. */
  peer?: string;
}

/**
 * A ttrpc server: services added from ts-proto generic definitions, served
 * on any number of connections (duplex streams or unix sockets).
 */
// biome-ignore lint/complexity/noBannedTypes: extensions default to {} as nice-grpc's do, so that `CallContext & ContextExt` is CallContext
export class Server<CallContextExt = {}> {
  private readonly registry = new Map<string, Map<string, RegisteredMethod>>();
  private chain: ServerMiddleware<unknown, unknown> | undefined;
  private readonly connections = new Set<ServerConnection>();
  private readonly listeners = new Set<NetServer>();

  /** @internal What connections read: services and middleware. */
  get services(): ReadonlyMap<string, ReadonlyMap<string, RegisteredMethod>> {
    return this.registry;
  }

  /** @internal */
  get middleware(): ServerMiddleware<unknown, unknown> | undefined {
    return this.chain;
  }

  /**
   * Adds a middleware (nice-grpc-common's ServerMiddleware) around every
   * call; the first one added is the outermost.
   */
  use<Ext>(middleware: ServerMiddleware<Ext, CallContextExt>): Server<CallContextExt & Ext> {
    const added = middleware as ServerMiddleware<unknown, unknown>;
    this.chain = this.chain === undefined ? added : composeServerMiddleware(this.chain, added);
    return this as Server<CallContextExt & Ext>;
  }

  /**
   * Serves a service. Methods the implementation leaves out answer
   * Unimplemented "method X", as unknown methods do. Throws if the service
   * was added already.
   */
  add<D extends ServiceDefinition>(definition: D, implementation: ServiceImplementation<D, CallContextExt>): this {
    if (this.registry.has(definition.fullName)) throw new Error(`ttrpc: service ${definition.fullName} added twice`);
    const methods = new Map<string, RegisteredMethod>();
    const handlers = implementation as Record<string, AnyHandler | undefined>;
    for (const [key, method] of Object.entries(definition.methods)) {
      const handler = handlers[key];
      methods.set(method.name, {
        definition: method,
        descriptor: {
          path: methodPath(definition.fullName, method.name),
          requestStream: method.requestStream,
          responseStream: method.responseStream,
          options: method.options ?? {},
        },
        handler: handler?.bind(implementation),
      });
    }
    this.registry.set(definition.fullName, methods);
    return this;
  }

  /** Serves one connection; resolves when it closes. */
  serve(duplex: Duplex, options: ServeOptions = {}): Promise<void> {
    const connection = new ServerConnection(this, duplex, options.peer ?? "");
    this.connections.add(connection);
    return connection.closed.then(() => {
      this.connections.delete(connection);
    });
  }

  /**
   * Listens on a unix socket path (which must not exist yet) and serves
   * every connection; the listen queue is as long as Go's (`listenBacklog()`).
   */
  listen(path: string): Promise<void> {
    const listener = createNetServer((socket) => void this.serve(socket, { peer: `unix:${path}` }));
    this.listeners.add(listener);
    return new Promise((resolve, reject) => {
      const failed = (error: Error) => {
        this.listeners.delete(listener);
        reject(error);
      };
      listener.once("error", failed);
      listener.listen({ path, backlog: listenBacklog() }, () => {
        // from now on a failed accept loses that connection only
        listener.off("error", failed).on("error", () => {});
        resolve();
      });
    });
  }

  /**
   * Graceful close: stops listening, lets the calls in progress finish,
   * then closes each connection; resolves when all are closed.
   */
  async shutdown(): Promise<void> {
    const stopped = this.stopListening();
    const closed = [...this.connections].map((connection) => {
      connection.drain();
      return connection.closed;
    });
    await Promise.all([stopped, ...closed]);
  }

  /** Immediate close: stops listening and closes every connection; running calls see their signal fire. */
  forceShutdown(): void {
    void this.stopListening();
    for (const connection of this.connections) connection.destroy();
  }

  private stopListening(): Promise<void> {
    const listeners = [...this.listeners];
    this.listeners.clear();
    return Promise.all(
      listeners.map((listener) => new Promise<void>((resolve) => listener.close(() => resolve()))),
    ).then(() => undefined);
  }
}

/** A new, empty server. */
export function createServer(): Server {
  return new Server();
}
