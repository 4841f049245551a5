/**
 * A nice-grpc client of the reporter's service, for `nri-exits` and for
 * plugins that attach causes.
 */
import { type Client, createChannel, createClient } from "nice-grpc";
import { grpcTarget, parseAddress } from "./outputs/address.js";
import { DEFAULT_GRPC_SOCKET } from "./config.js";
import { ExitReporterServiceDefinition } from "./gen/nri_ts/exit_reporter/v1/exit_reporter.js";

export const DEFAULT_ADDRESS = `unix://${DEFAULT_GRPC_SOCKET}`;

export type ExitReporterClient = Client<typeof ExitReporterServiceDefinition>;

export interface ExitReporterConnection {
  client: ExitReporterClient;
  /** Whether the channel has been connected to the reporter at some point (a lost connection, not a missing reporter). */
  readonly wasConnected: boolean;
  /** Closes the channel; calls in flight fail. */
  close(): void;
}

/** grpc-js's connectivity states (its `ConnectivityState`), which nice-grpc's channel reports. */
const READY = 2;
const SHUTDOWN = 4;

/**
 * A client of the reporter at `address` (`unix:///path`, a socket path, or
 * `host:port`). Connects lazily, on the first call.
 * @throws AddressError for an address it cannot read
 */
export function connectExitReporter(address = DEFAULT_ADDRESS): ExitReporterConnection {
  const channel = createChannel(grpcTarget(parseAddress(address)));
  let wasConnected = false;
  const follow = (state: number) =>
    channel.watchConnectivityState(state, Number.POSITIVE_INFINITY, () => {
      const now = channel.getConnectivityState(false);
      if (now === READY) wasConnected = true;
      if (now !== SHUTDOWN) follow(now);
    });
  follow(channel.getConnectivityState(false));
  return {
    client: createClient(ExitReporterServiceDefinition, channel),
    get wasConnected() {
      return wasConnected;
    },
    close: () => channel.close(),
  };
}
