import {
  type ConfigureRequest,
  type ConfigureResponse,
  type CreateContainerRequest,
  type CreateContainerResponse,
  type DeepPartial,
  Event,
  eventMask,
  PluginDefinition,
  type PostCreateContainerRequest,
  type PostStartContainerRequest,
  type PostUpdateContainerRequest,
  type PostUpdatePodSandboxRequest,
  type RemoveContainerRequest,
  type RemovePodSandboxRequest,
  type RunPodSandboxRequest,
  type StartContainerRequest,
  type StopContainerRequest,
  type StopContainerResponse,
  type StopPodSandboxRequest,
  type SynchronizeRequest,
  type SynchronizeResponse,
  type UpdateContainerRequest,
  type UpdateContainerResponse,
  type UpdatePodSandboxRequest,
  type ValidateContainerAdjustmentRequest,
} from "@nri-ts/api";
import { Status } from "nice-grpc-common";
import {
  abortedFailure,
  CallFailure,
  type PluginMethod,
  type PluginRequest,
  type PluginResponse,
  type PluginTransport,
  type TracedCall,
} from "./plugin-transport.js";
import { DeadlineSignals } from "./deadline-signals.js";
import { errorText } from "../error-text.js";

/** A value, or a promise of it. */
export type Awaitable<T> = T | Promise<T>;
type EventHandler = (request: unknown, signal: AbortSignal) => Awaitable<void>;

/** The request timeouts of every builtin plugin's calls. */
const timeouts = new DeadlineSignals();

/**
 * The handlers of an in-process plugin; each is optional. A handler gets the
 * request and a signal that fires at the request timeout (calls with the
 * same deadline, to the millisecond, share it: remove a listener you add
 * once the call is done), and may leave out
 * any part of its response (as ts-proto's `fromPartial` takes it). Throwing
 * fails the request like a plugin's error status does; a validation handler
 * throws to reject (its message becomes the reason).
 */
export interface BuiltinHandlers {
  /**
   * Answers Configure; events 0 (or no handler) subscribes to the events
   * that have handlers. A `failurePolicy` in the answer applies as for any
   * plugin (the only way a builtin plugin sets one, as in Go).
   */
  configure?(request: ConfigureRequest, signal: AbortSignal): Awaitable<DeepPartial<ConfigureResponse>>;
  synchronize?(request: SynchronizeRequest, signal: AbortSignal): Awaitable<DeepPartial<SynchronizeResponse>>;
  runPodSandbox?(request: RunPodSandboxRequest, signal: AbortSignal): Awaitable<void>;
  stopPodSandbox?(request: StopPodSandboxRequest, signal: AbortSignal): Awaitable<void>;
  removePodSandbox?(request: RemovePodSandboxRequest, signal: AbortSignal): Awaitable<void>;
  updatePodSandbox?(request: UpdatePodSandboxRequest, signal: AbortSignal): Awaitable<void>;
  postUpdatePodSandbox?(request: PostUpdatePodSandboxRequest, signal: AbortSignal): Awaitable<void>;
  createContainer?(
    request: CreateContainerRequest,
    signal: AbortSignal,
  ): Awaitable<DeepPartial<CreateContainerResponse>>;
  postCreateContainer?(request: PostCreateContainerRequest, signal: AbortSignal): Awaitable<void>;
  startContainer?(request: StartContainerRequest, signal: AbortSignal): Awaitable<void>;
  postStartContainer?(request: PostStartContainerRequest, signal: AbortSignal): Awaitable<void>;
  updateContainer?(
    request: UpdateContainerRequest,
    signal: AbortSignal,
  ): Awaitable<DeepPartial<UpdateContainerResponse>>;
  postUpdateContainer?(request: PostUpdateContainerRequest, signal: AbortSignal): Awaitable<void>;
  stopContainer?(request: StopContainerRequest, signal: AbortSignal): Awaitable<DeepPartial<StopContainerResponse>>;
  removeContainer?(request: RemoveContainerRequest, signal: AbortSignal): Awaitable<void>;
  validateContainerAdjustment?(request: ValidateContainerAdjustmentRequest, signal: AbortSignal): Awaitable<void>;
}

/**
 * A plugin that runs inside the runtime's process (the default validator is
 * one). It takes part like any other: ordered by index, called with the same
 * requests, merged by the same rules; it has no connection to lose.
 */
export interface BuiltinPlugin {
  /** Index, two digits. */
  index: string;
  /** Base name. */
  name: string;
  handlers: BuiltinHandlers;
}

/** Which handler subscribes to which event. */
const HANDLER_EVENTS: ReadonlyArray<readonly [keyof BuiltinHandlers, Event]> = [
  ["runPodSandbox", Event.RUN_POD_SANDBOX],
  ["stopPodSandbox", Event.STOP_POD_SANDBOX],
  ["removePodSandbox", Event.REMOVE_POD_SANDBOX],
  ["updatePodSandbox", Event.UPDATE_POD_SANDBOX],
  ["postUpdatePodSandbox", Event.POST_UPDATE_POD_SANDBOX],
  ["createContainer", Event.CREATE_CONTAINER],
  ["postCreateContainer", Event.POST_CREATE_CONTAINER],
  ["startContainer", Event.START_CONTAINER],
  ["postStartContainer", Event.POST_START_CONTAINER],
  ["updateContainer", Event.UPDATE_CONTAINER],
  ["postUpdateContainer", Event.POST_UPDATE_CONTAINER],
  ["stopContainer", Event.STOP_CONTAINER],
  ["removeContainer", Event.REMOVE_CONTAINER],
  ["validateContainerAdjustment", Event.VALIDATE_CONTAINER_ADJUSTMENT],
];

/** The calls of an in-process plugin, answered as the Go reference's builtin plugins answer them. */
export class BuiltinTransport implements PluginTransport {
  readonly #handlers: BuiltinHandlers;
  #closed = false;

  constructor(handlers: BuiltinHandlers) {
    this.#handlers = handlers;
  }

  get closed(): boolean {
    return this.#closed;
  }

  close(): void {
    this.#closed = true;
  }

  async call<K extends PluginMethod>(
    method: K,
    request: PluginRequest<K>,
    deadline: number,
    runtimeSignal?: AbortSignal,
    trace?: TracedCall,
  ): Promise<PluginResponse<K>> {
    const timeout = timeouts.acquire(deadline);
    // The handler's signal fires at the request timeout or when the runtime gives up.
    const signal = runtimeSignal ? AbortSignal.any([timeout.signal, runtimeSignal]) : timeout.signal;
    try {
      const answer =
        (await (trace === undefined
          ? this.#answer(method, request, signal)
          : trace.enter(() => this.#answer(method, request, signal)))) ?? {};
      const responseType = PluginDefinition.methods[method].responseType as unknown as {
        fromPartial(answer: unknown): PluginResponse<K>;
      };
      return responseType.fromPartial(answer);
    } catch (error) {
      const text = errorText(error);
      // A handler that gives up with the runtime's reason fails as Go's with the context's error.
      if (runtimeSignal?.aborted && error === runtimeSignal.reason) throw abortedFailure(runtimeSignal);
      if (timeout.signal.aborted && !runtimeSignal?.aborted) {
        throw new CallFailure("context deadline exceeded", Status.DEADLINE_EXCEEDED, text, "deadline", {
          cause: error,
        });
      }
      throw new CallFailure(text, Status.UNKNOWN, text, undefined, { cause: error });
    } finally {
      timeouts.release(timeout);
    }
  }

  /**
   * The handler's answer, or its promise (undefined: an empty response). Not
   * async itself: the methods that pass a handler's answer on as it is return
   * it without another promise and microtask per call.
   */
  #answer(method: PluginMethod, request: unknown, signal: AbortSignal): Awaitable<unknown> {
    const handlers = this.#handlers;
    switch (method) {
      case "configure":
        return this.#configure(request as ConfigureRequest, signal);
      case "synchronize":
        return handlers.synchronize?.(request as SynchronizeRequest, signal);
      case "createContainer":
        return handlers.createContainer?.(request as CreateContainerRequest, signal);
      case "updateContainer":
        return handlers.updateContainer?.(request as UpdateContainerRequest, signal);
      case "stopContainer":
        return handlers.stopContainer?.(request as StopContainerRequest, signal);
      case "validateContainerAdjustment":
        return this.#validate(request as ValidateContainerAdjustmentRequest, signal);
      case "shutdown":
      case "stateChange":
        return undefined;
      default:
        return this.#event(handlers[method] as EventHandler | undefined, request, signal);
    }
  }

  async #configure(request: ConfigureRequest, signal: AbortSignal): Promise<unknown> {
    const answer = await this.#handlers.configure?.(request, signal);
    const events = answer?.events ?? 0;
    return { events: events !== 0 ? events : this.#handledEvents(), failurePolicy: answer?.failurePolicy };
  }

  async #validate(request: ValidateContainerAdjustmentRequest, signal: AbortSignal): Promise<unknown> {
    try {
      await this.#handlers.validateContainerAdjustment?.(request, signal);
      return { reject: false, reason: "" };
    } catch (error) {
      return { reject: true, reason: errorText(error) };
    }
  }

  /** An event's handler answers nothing: whatever it returns is dropped. */
  async #event(handler: EventHandler | undefined, request: unknown, signal: AbortSignal): Promise<undefined> {
    await handler?.(request, signal);
    return undefined;
  }

  #handledEvents(): number {
    return eventMask(...HANDLER_EVENTS.filter(([handler]) => this.#handlers[handler]).map(([, event]) => event));
  }
}
