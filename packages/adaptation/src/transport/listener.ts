import { mkdir, rm } from "node:fs/promises";
import { createServer, type Server, type Socket } from "node:net";
import { dirname } from "node:path";
import { listenBacklog } from "@nri-ts/ttrpc";

/**
 * The socket external plugins connect to. Connections are taken on one at a
 * time, in the order they arrive, as in Go: the next one waits until the
 * handler is done with the previous one (registered, configured and
 * synchronized, or refused). Nothing is read from a waiting connection.
 * The listen queue is as long as a Go runtime's (the kernel's limit), so
 * that a burst of plugins connecting at once is not refused.
 */
export class PluginListener {
  readonly #server: Server;
  readonly #queue: Socket[] = [];
  readonly #handle: (socket: Socket) => Promise<void>;
  readonly #onError: (error: Error) => void;
  #busy: Promise<void> | undefined;
  #closed = false;

  private constructor(server: Server, handle: (socket: Socket) => Promise<void>, onError: (error: Error) => void) {
    this.#server = server;
    this.#handle = handle;
    this.#onError = onError;
    server.on("error", onError);
    server.on("connection", (socket) => {
      if (this.#closed) {
        socket.destroy();
        return;
      }
      // A peer may reset a connection while it waits: that is its loss only.
      socket.on("error", () => {});
      this.#queue.push(socket);
      this.#busy ??= this.#drain();
    });
  }

  /**
   * Listens on `path`: a stale socket file there is removed first, and its
   * directory is created (mode 0700) if missing.
   *
   * @param handle takes on one connection; resolves when done with it
   * @param onError told of failures: of the listening socket, or thrown by `handle`
   * @throws Error `failed to create socket "<path>": ...`
   */
  static async listen(
    path: string,
    handle: (socket: Socket) => Promise<void>,
    onError: (error: Error) => void,
  ): Promise<PluginListener> {
    try {
      // A stale socket goes; any trouble removing it shows up when listening.
      await rm(path, { force: true }).catch(() => {});
      await mkdir(dirname(path), { recursive: true, mode: 0o700 });
      const server = createServer({ pauseOnConnect: true });
      await new Promise<void>((resolve, reject) => {
        server.once("error", reject);
        server.listen({ path, backlog: listenBacklog() }, () => {
          server.off("error", reject);
          resolve();
        });
      });
      return new PluginListener(server, handle, onError);
    } catch (error) {
      throw new Error(`failed to create socket ${JSON.stringify(path)}: ${(error as Error).message}`, { cause: error });
    }
  }

  /** Stops listening, drops waiting connections and waits for the one being handled. */
  async close(): Promise<void> {
    this.#closed = true;
    for (const socket of this.#queue.splice(0)) socket.destroy();
    // Stops listening at once; the callback would wait for every accepted
    // connection to end, which is the plugins' business, not the listener's.
    this.#server.close();
    await this.#busy;
  }

  async #drain(): Promise<void> {
    for (let socket = this.#queue.shift(); socket; socket = this.#queue.shift()) {
      try {
        await this.#handle(socket);
      } catch (error) {
        this.#onError(error as Error);
      }
    }
    this.#busy = undefined;
  }
}
