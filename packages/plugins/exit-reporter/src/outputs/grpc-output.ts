/**
 * The gRPC output: the ExitReporterService (nice-grpc) on a unix socket or
 * TCP, serving live exits, the recent ring, and AttachCause.
 */
import { rm } from "node:fs/promises";
import { createServer, type Server, type ServiceImplementation } from "nice-grpc";
import { type CallContext, ServerError, Status } from "nice-grpc-common";
import { type Address, formatAddress, grpcTarget } from "./address.js";
import { ExitHub, type ExitHubOptions } from "./exit-hub.js";
import {
  type AttachCauseRequest,
  type AttachCauseResponse,
  type ExitRecord,
  ExitReporterServiceDefinition,
} from "../gen/nri_ts/exit_reporter/v1/exit_reporter.js";
import type { ExitOutput } from "./output.js";
import { clearStaleSocket } from "./unix-socket.js";

export interface GrpcOutputOptions extends ExitHubOptions {
  address: Address;
  /** Handles AttachCause; throws a ServerError to refuse. */
  attachCause: (request: AttachCauseRequest) => AttachCauseResponse;
}

/** What watchers are told when the reporter stops (UNAVAILABLE). */
export const STOPPING = "the exit reporter is stopping";

/** How long a stop waits for streams to end before cutting them. */
const SHUTDOWN_GRACE_MS = 1000;

export class GrpcOutput implements ExitOutput {
  readonly name = "grpc";

  private constructor(
    readonly hub: ExitHub,
    private readonly server: Server,
    readonly address: Address,
  ) {}

  /** Starts listening; rejects with a message naming the address when it cannot. */
  static async start(options: GrpcOutputOptions): Promise<GrpcOutput> {
    const hub = new ExitHub(options);
    const implementation: ServiceImplementation<typeof ExitReporterServiceDefinition> = {
      async *watchExits(request, context: CallContext) {
        for await (const exit of hub.subscribe(request.filter, context.peer, context.signal)) yield { exit };
      },
      async listRecentExits(request) {
        return { exits: hub.recent(request.filter, request.limit), capacity: hub.capacity };
      },
      async attachCause(request) {
        return options.attachCause(request);
      },
    };
    const server = createServer();
    server.add(ExitReporterServiceDefinition, implementation);
    let address = options.address;
    try {
      if (address.kind === "unix") await clearStaleSocket(address.path);
      const port = await server.listen(grpcTarget(address, true));
      if (address.kind === "tcp") address = { ...address, port };
    } catch (error) {
      server.forceShutdown();
      throw new Error(`cannot listen on ${formatAddress(options.address)}: ${(error as Error).message}`, {
        cause: error,
      });
    }
    return new GrpcOutput(hub, server, address);
  }

  get where(): string {
    return formatAddress(this.address);
  }

  publish(record: ExitRecord): void {
    this.hub.publish(record);
  }

  async close(): Promise<void> {
    this.hub.endAll(new ServerError(Status.UNAVAILABLE, STOPPING));
    let timer: NodeJS.Timeout | undefined;
    const graceful = this.server.shutdown();
    await Promise.race([graceful, new Promise((resolve) => (timer = setTimeout(resolve, SHUTDOWN_GRACE_MS)))]);
    clearTimeout(timer);
    this.server.forceShutdown();
    if (this.address.kind === "unix") await rm(this.address.path, { force: true });
  }
}
