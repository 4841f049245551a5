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
  /** Closes the channel; calls in flight fail. */
  close(): void;
}

/**
 * A client of the reporter at `address` (`unix:///path`, a socket path, or
 * `host:port`). Connects lazily, on the first call.
 * @throws AddressError for an address it cannot read
 */
export function connectExitReporter(address = DEFAULT_ADDRESS): ExitReporterConnection {
  const channel = createChannel(grpcTarget(parseAddress(address)));
  return { client: createClient(ExitReporterServiceDefinition, channel), close: () => channel.close() };
}
