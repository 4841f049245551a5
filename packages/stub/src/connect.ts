import { once } from "node:events";
import { connect as netConnect } from "node:net";
import type { Duplex } from "node:stream";
import { PLUGIN_SOCKET_ENV } from "@nri-ts/api";
import { connectFd } from "@nri-ts/mux";
import { StubError, messageOf } from "./errors.js";

/** Opens a connection to the runtime's socket at `socketPath`. */
export type Dialer = (socketPath: string) => Promise<Duplex>;

/** Connects to a unix socket; the default dialer. */
export const dialUnix: Dialer = async (socketPath) => {
  const socket = netConnect(socketPath);
  try {
    await once(socket, "connect");
  } catch (error) {
    socket.destroy();
    throw error;
  }
  return socket;
};

/** Where the stub's connection to the runtime comes from, in Go's order of preference. */
export type ConnectionSource =
  /** A connection the caller made. */
  | { kind: "given"; connection: Duplex }
  /** The fd a runtime that launched the plugin passed in `NRI_PLUGIN_SOCKET`. */
  | { kind: "inherited"; fd: number }
  /** The runtime's socket. */
  | { kind: "socket"; socketPath: string; dial: Dialer };

/**
 * The fd in `NRI_PLUGIN_SOCKET`, undefined when the variable is unset or empty.
 * @throws StubError ERR_STUB_INVALID_SOCKET_ENV when it is not a number
 */
export function inheritedFd(env: Readonly<Record<string, string | undefined>>): number | undefined {
  const value = env[PLUGIN_SOCKET_ENV];
  if (value === undefined || value === "") return undefined;
  if (!/^[0-9]+$/.test(value)) {
    throw new StubError(
      "ERR_STUB_INVALID_SOCKET_ENV",
      `invalid socket in environment (${PLUGIN_SOCKET_ENV}=${JSON.stringify(value)}): not a file descriptor number`,
    );
  }
  return Number(value);
}

/** Opens the connection to the runtime. */
export async function openConnection(source: ConnectionSource): Promise<Duplex> {
  switch (source.kind) {
    case "given":
      return source.connection;
    case "inherited":
      try {
        return connectFd(source.fd);
      } catch (error) {
        throw new StubError(
          "ERR_STUB_INVALID_SOCKET_ENV",
          `invalid socket (${source.fd}) in environment: ${messageOf(error)}`,
          { cause: error },
        );
      }
    case "socket":
      try {
        return await source.dial(source.socketPath);
      } catch (error) {
        throw new StubError(
          "ERR_STUB_CONNECT",
          `failed to connect to NRI service at ${source.socketPath}: ${messageOf(error)}`,
          { cause: error },
        );
      }
  }
}
