import type { Duplex } from "node:stream";
import {
  type ContainerUpdate,
  decodeMessage,
  type MessageType,
  PluginDefinition,
  type RegisterPluginRequest,
  RuntimeDefinition,
  type UpdateContainersRequest,
} from "@nri-ts/api";
import { Mux, type MuxError, PLUGIN_SERVICE_CONN, RUNTIME_SERVICE_CONN } from "@nri-ts/mux";
import { Channel, Server, StatusText } from "@nri-ts/ttrpc";
import { ClientError, type Metadata, Status } from "nice-grpc-common";
import {
  abortedFailure,
  CallFailure,
  type LocalFailure,
  type PluginMethod,
  type PluginRequest,
  type PluginResponse,
  type PluginTransport,
  type TracedCall,
} from "./plugin-transport.js";
import { goStatusText } from "./status-text.js";
import { errorText } from "../error-text.js";
import { encodePluginRequest } from "./request-encoding.js";
import { boundedText } from "@nri-ts/common";

/** What the runtime side answers a connected plugin. */
export interface RuntimeService {
  /** A RegisterPlugin call; throwing answers it with that error. */
  register(request: RegisterPluginRequest): void;
  /** An unsolicited UpdateContainers call, with the call's metadata; resolves to the updates that failed. */
  updateContainers(request: UpdateContainersRequest, metadata: Metadata): Promise<ContainerUpdate[]>;
}

/**
 * A DeadlineExceeded this close to the deadline is taken for the local
 * timeout (timers and the wall clock may disagree by a millisecond or so);
 * one well before it is the plugin's own answer.
 */
const DEADLINE_SLACK_MS = 5;

/** The local texts of a frame the plugin may not send (see @nri-ts/ttrpc's channel). */
const PROTOCOL_ERROR = /^unexpected .* message received: protocol error$/;
/**
 * The channel's text for a Response frame whose envelope does not decode.
 * Go's ttrpc returns the bare decoding error, which its adaptation does not
 * count as a failure; we count it as a protocol error (see the README).
 */
const GARBLED_ENVELOPE = /^ttrpc: error unmarshalling response: /;

/**
 * One plugin on the other end of a unix stream socket: NRI's mux over the
 * socket, a ttrpc client on connection 1 (the plugin serves Plugin) and a
 * ttrpc server on connection 2 (the runtime serves Runtime). Reading is held
 * back until `start()` serves the Runtime service, so that a plugin that
 * registers right away loses nothing.
 */
export class RemotePluginConnection implements PluginTransport {
  readonly #mux: Mux;
  readonly #channel: Channel;
  readonly #server = new Server();
  readonly #runtimeConn: Duplex;
  readonly #onClose: (reason: Error | undefined) => void;
  #closed = false;

  /**
   * @param trunk the socket (an accepted connection or this side of a socket pair)
   * @param onClose called once when the connection closes, whichever side closed it
   */
  constructor(trunk: Duplex, service: RuntimeService, onClose: (reason: Error | undefined) => void) {
    this.#onClose = onClose;
    this.#mux = new Mux(trunk, { blockedRead: true });
    this.#mux.once("close", (reason: MuxError) => this.#shutdown(reason));
    this.#channel = new Channel(this.#mux.open(PLUGIN_SERVICE_CONN), {
      onClose: (error) => this.#shutdown(error),
    });
    this.#runtimeConn = this.#mux.open(RUNTIME_SERVICE_CONN);
    this.#server.add(RuntimeDefinition, {
      registerPlugin: async (request) => {
        service.register(request);
        return {};
      },
      updateContainers: async (request, { metadata }) => ({
        failed: await service.updateContainers(request, metadata),
      }),
    });
  }

  get closed(): boolean {
    return this.#closed;
  }

  /** Serves the Runtime service, then lets the plugin's frames in. */
  start(): void {
    void this.#server.serve(this.#runtimeConn).then(() => this.#shutdown(undefined));
    this.#mux.unblock();
  }

  async call<K extends PluginMethod>(
    method: K,
    request: PluginRequest<K>,
    deadline: number,
    signal?: AbortSignal,
    trace?: TracedCall,
  ): Promise<PluginResponse<K>> {
    const definition = PluginDefinition.methods[method];
    const responseType = definition.responseType as unknown as MessageType<PluginResponse<K>>;
    let payload: Uint8Array;
    try {
      payload = await this.#channel.unary(
        PluginDefinition.fullName,
        definition.name,
        encodePluginRequest(method, request),
        { deadline, signal, metadata: trace?.metadata },
      );
    } catch (error) {
      if (signal?.aborted && error === signal.reason) throw abortedFailure(signal);
      throw this.#failure(error, deadline);
    }
    try {
      // strictly, as Go does: garbage must not pass for a plausible answer
      return decodeMessage(responseType, payload);
    } catch (error) {
      throw localFailure(
        Status.INTERNAL,
        `ttrpc: error unmarshalling payload: ${(error as Error).message}`,
        "protocol",
        error,
      );
    }
  }

  close(): void {
    this.#shutdown(undefined);
  }

  #failure(error: unknown, deadline: number): CallFailure {
    if (!(error instanceof ClientError)) {
      const text = errorText(error);
      return new CallFailure(text, Status.INTERNAL, text, undefined, { cause: error });
    }
    const { code, details } = error;
    // The channel fails calls with their local cause (oversized messages keep
    // theirs); anything else that comes back is the plugin's own status.
    const cause = error.cause ?? error;
    if (code === Status.DEADLINE_EXCEEDED && Date.now() + DEADLINE_SLACK_MS >= deadline) {
      return localFailure(code, StatusText.deadlineExceeded, "deadline", cause);
    }
    if (this.#channel.isClosed) return localFailure(code, StatusText.closed, "closed", cause);
    if (code === Status.UNKNOWN && PROTOCOL_ERROR.test(details)) return localFailure(code, details, "protocol", cause);
    if (code === Status.INTERNAL && GARBLED_ENVELOPE.test(details))
      return localFailure(code, details, "protocol", cause);
    // the plugin's own text, up to 4 MiB (a ttrpc frame): bounded as any text a plugin sends
    const text = boundedText(details);
    return new CallFailure(goStatusText(code, text), code, text, undefined, { cause });
  }

  #shutdown(reason: Error | undefined): void {
    if (this.#closed) return;
    this.#closed = true;
    this.#channel.close();
    this.#server.forceShutdown();
    this.#mux.close(reason);
    this.#onClose(reason);
  }
}

function localFailure(code: Status, details: string, local: LocalFailure, cause: unknown): CallFailure {
  return new CallFailure(details, code, details, local, { cause });
}
