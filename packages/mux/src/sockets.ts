import { once } from "node:events";
import { mkdtemp, rm } from "node:fs/promises";
import net from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { MuxError } from "./errors.js";

/** Two connected unix stream sockets. */
export interface SocketPair {
  /** This process's end, reading already. */
  local: net.Socket;
  /**
   * The other end, paused: it reads nothing from the socket until `resume()`
   * or `read()` (a `Mux` over it calls `resume()`), so bytes sent to it stay
   * in the socket. Use it in this process, or hand it untouched to a child
   * process: put it in `spawn`'s `stdio` array (index 3 becomes the child's
   * fd 3), then `destroy()` it here.
   */
  peer: net.Socket;
}

/**
 * Creates a connected pair of unix stream sockets, what `socketpair(2)` gives
 * (Node has no binding for it): a listening socket in a fresh 0700 directory
 * under the system temp dir, one connection to it, accepted; then the
 * listener and the directory are removed.
 */
export async function socketPair(): Promise<SocketPair> {
  const dir = await mkdtemp(join(tmpdir(), "nri-ts-pair-"));
  const server = net.createServer({ pauseOnConnect: true });
  try {
    const path = join(dir, "s");
    server.listen(path);
    await once(server, "listening");
    const accepted = once(server, "connection") as Promise<[net.Socket]>;
    const local = net.connect(path);
    try {
      await once(local, "connect");
      const [peer] = await accepted;
      return { local, peer };
    } catch (error) {
      local.destroy();
      throw error;
    }
  } finally {
    server.close();
    await rm(dir, { recursive: true, force: true });
  }
}

/**
 * Wraps an inherited socket fd (what `NRI_PLUGIN_SOCKET` names in a plugin
 * the runtime started) as a socket. Throws a `MuxError` `ERR_MUX_INVALID_FD`
 * when `fd` is not an open socket.
 */
export function connectFd(fd: number): net.Socket {
  if (!Number.isInteger(fd) || fd < 0) {
    throw new MuxError("ERR_MUX_INVALID_FD", `${String(fd)} is not a file descriptor`);
  }
  try {
    return new net.Socket({ fd, readable: true, writable: true });
  } catch (error) {
    throw new MuxError("ERR_MUX_INVALID_FD", `fd ${fd} is not a socket: ${(error as Error).message}`, {
      cause: error,
    });
  }
}
