import {
  type ConfigureRequest,
  Container,
  type Empty,
  Event,
  type EventMask,
  eventName,
  type FailurePolicy,
  type PluginDefinition,
  PodSandbox,
} from "@nri-ts/api";
import type { ServiceImplementation } from "@nri-ts/ttrpc";
import type { CallContext } from "nice-grpc-common";
import { messageOf } from "./errors.js";
import type { Logger } from "./logger.js";
import type { ConfigureInput, HandlerContext, Plugin, StubHandle } from "./plugin.js";
import { createContainerResponse, toUpdates, updateContainerResponse } from "./results.js";
import { resolveSubscription } from "./subscription.js";
import { SyncJoiner } from "./sync-joiner.js";
import { warmUpCodecs } from "./warm-up.js";

/** What the Plugin service serves, the same for every connection of a stub. */
export interface ServiceHost {
  readonly plugin: Plugin;
  /** What handlers get as `ctx.stub`. */
  readonly stub: StubHandle;
  readonly logger: Logger;
  /** The events the plugin has handlers for. */
  readonly handled: EventMask;
  /** Goes into every Configure reply when set, whatever NRI version the runtime has (as in Go). */
  readonly failurePolicy?: FailurePolicy | undefined;
  /** Configure arrived: record what the runtime said; returns what the plugin's handler gets. */
  configuring(request: ConfigureRequest): ConfigureInput;
  /** Compile the codecs of the handled requests once synchronized (see warm-up.ts). */
  readonly warmUp: boolean;
}

type PodHandler = "runPodSandbox" | "postUpdatePodSandbox" | "stopPodSandbox" | "removePodSandbox";
type ContainerHandler =
  | "postCreateContainer"
  | "startContainer"
  | "postStartContainer"
  | "postUpdateContainer"
  | "removeContainer";

/** The events runtimes before NRI v0.12 send through StateChange, and their handlers. */
const STATE_CHANGE_POD_EVENTS = new Map<Event, PodHandler>([
  [Event.RUN_POD_SANDBOX, "runPodSandbox"],
  [Event.POST_UPDATE_POD_SANDBOX, "postUpdatePodSandbox"],
  [Event.STOP_POD_SANDBOX, "stopPodSandbox"],
  [Event.REMOVE_POD_SANDBOX, "removePodSandbox"],
]);
const STATE_CHANGE_CONTAINER_EVENTS = new Map<Event, ContainerHandler>([
  [Event.POST_CREATE_CONTAINER, "postCreateContainer"],
  [Event.START_CONTAINER, "startContainer"],
  [Event.POST_START_CONTAINER, "postStartContainer"],
  [Event.POST_UPDATE_CONTAINER, "postUpdateContainer"],
  [Event.REMOVE_CONTAINER, "removeContainer"],
]);

/**
 * What a handler gets beside its request. `signal` is an own enumerable
 * getter, so that a copy of the context keeps it, and reads the call's signal
 * only when used: ttrpc makes a call's AbortSignal (and its deadline timer) on
 * first read, and most handlers never read it. Every context shares the one
 * getter: a getter made per call (an object literal's `get signal()`) gives
 * each context a hidden class of its own, which V8 keeps until a full
 * collection, and with it the call's objects, which every scavenge then copies
 * and promotes (a tenth of all a call allocates, and a full collection every
 * few thousand calls).
 */
class CallHandlerContext implements HandlerContext {
  static readonly #signal: PropertyDescriptor = {
    get(this: CallHandlerContext) {
      return this.#call.signal;
    },
    enumerable: true,
    configurable: true,
  };

  declare readonly signal: AbortSignal;
  readonly logger: Logger;
  readonly stub: StubHandle;
  readonly #call: CallContext;

  constructor(call: CallContext, logger: Logger, stub: StubHandle) {
    this.#call = call;
    this.logger = logger;
    this.stub = stub;
    Object.defineProperty(this, "signal", CallHandlerContext.#signal);
  }
}

/** What Configure ended with: the subscription it answered, or its failure. */
export type ConfigureResult = { events: EventMask } | { error: unknown };

/**
 * The Plugin service of one connection: every method of the protocol, each
 * calling the plugin's handler when it has one and answering empty when not
 * (as Go's stub does). StateChange, the only way runtimes before NRI v0.12
 * deliver nine of the events, calls the same handlers as the dedicated
 * methods. `configured` hears how Configure ended.
 */
export function createPluginService(
  host: ServiceHost,
  configured: (result: ConfigureResult) => void,
): ServiceImplementation<PluginDefinition> {
  const { plugin, stub, logger } = host;
  const joiner = new SyncJoiner();

  const context = (call: CallContext): HandlerContext => new CallHandlerContext(call, logger, stub);

  /**
   * A handler threw: logs it and gives it back to throw, failing this request
   * only. (Each method catches for itself: a closure and an async wrapper per
   * request cost more than the rest of a no-op hook.)
   */
  function failed(method: string, error: unknown): unknown {
    logger.error({ method, err: error }, `${method} failed: ${messageOf(error)}`);
    return error;
  }

  const warnedAbout = new Set<string>();
  /**
   * A handler the runtime takes no answer from returned something: most
   * likely changes meant for another handler, so say so (once per handler).
   */
  function unanswered(method: string, value: unknown): void {
    if (value === undefined || warnedAbout.has(method)) return;
    warnedAbout.add(method);
    logger.warn(
      { method },
      `${method} returned ${typeof value === "object" && value !== null ? "an object" : String(value)}, which is dropped: ` +
        "the runtime takes no answer to it (only createContainer, updateContainer, stopContainer and synchronize answer with changes)",
    );
  }

  /** Synchronize is answered: events come from now on; until the first does, compile what it runs. */
  const synchronized = (): void => {
    if (host.warmUp) warmUpCodecs(plugin);
  };

  const pod = (value: PodSandbox | undefined): PodSandbox => value ?? PodSandbox.fromPartial({});
  const container = (value: Container | undefined): Container => value ?? Container.fromPartial({});

  async function podEvent(handler: PodHandler, request: { pod?: PodSandbox }, call: CallContext): Promise<Empty> {
    const run = plugin[handler];
    if (!run) return {};
    try {
      unanswered(handler, await run.call(plugin, pod(request.pod), context(call)));
    } catch (error) {
      throw failed(handler, error);
    }
    return {};
  }

  async function containerEvent(
    handler: ContainerHandler,
    request: { pod?: PodSandbox; container?: Container },
    call: CallContext,
  ): Promise<Empty> {
    const run = plugin[handler];
    if (!run) return {};
    try {
      unanswered(handler, await run.call(plugin, pod(request.pod), container(request.container), context(call)));
    } catch (error) {
      throw failed(handler, error);
    }
    return {};
  }

  return {
    async configure(request, call) {
      const input = host.configuring(request);
      const handler = plugin.configure;
      try {
        let requested: EventMask | void;
        try {
          requested = handler ? await handler.call(plugin, input, context(call)) : undefined;
        } catch (error) {
          throw failed("configure", error);
        }
        const events = resolveSubscription(host.handled, requested);
        configured({ events });
        return { events, failurePolicy: host.failurePolicy };
      } catch (error) {
        configured({ error });
        throw error;
      }
    },

    async synchronize(request, call) {
      const handler = plugin.synchronize;
      if (!handler) {
        if (!request.more) synchronized();
        return { more: request.more };
      }
      const state = joiner.add(request);
      if (state === undefined) {
        logger.debug(
          { pods: request.pods.length, containers: request.containers.length },
          "collected a page of a split Synchronize",
        );
        return { more: true };
      }
      try {
        const update = toUpdates(
          await handler.call(plugin, state.pods, state.containers, context(call)),
          "synchronize result",
        );
        synchronized();
        return { update, more: false };
      } catch (error) {
        throw failed("synchronize", error);
      }
    },

    async shutdown(_request, call) {
      const handler = plugin.shutdown;
      if (!handler) return {};
      try {
        unanswered("shutdown", await handler.call(plugin, context(call)));
      } catch (error) {
        throw failed("shutdown", error);
      }
      return {};
    },

    runPodSandbox: (request, call) => podEvent("runPodSandbox", request, call),
    postUpdatePodSandbox: (request, call) => podEvent("postUpdatePodSandbox", request, call),
    stopPodSandbox: (request, call) => podEvent("stopPodSandbox", request, call),
    removePodSandbox: (request, call) => podEvent("removePodSandbox", request, call),

    async updatePodSandbox(request, call) {
      const handler = plugin.updatePodSandbox;
      if (!handler) return {};
      try {
        const answer = await handler.call(
          plugin,
          pod(request.pod),
          request.overheadLinuxResources,
          request.linuxResources,
          context(call),
        );
        unanswered("updatePodSandbox", answer);
      } catch (error) {
        throw failed("updatePodSandbox", error);
      }
      return {};
    },

    async createContainer(request, call) {
      const handler = plugin.createContainer;
      if (!handler) return {};
      try {
        return createContainerResponse(
          await handler.call(plugin, pod(request.pod), container(request.container), context(call)),
        );
      } catch (error) {
        throw failed("createContainer", error);
      }
    },

    postCreateContainer: (request, call) => containerEvent("postCreateContainer", request, call),
    startContainer: (request, call) => containerEvent("startContainer", request, call),
    postStartContainer: (request, call) => containerEvent("postStartContainer", request, call),
    postUpdateContainer: (request, call) => containerEvent("postUpdateContainer", request, call),
    removeContainer: (request, call) => containerEvent("removeContainer", request, call),

    async updateContainer(request, call) {
      const handler = plugin.updateContainer;
      if (!handler) return {};
      try {
        return updateContainerResponse(
          await handler.call(
            plugin,
            pod(request.pod),
            container(request.container),
            request.linuxResources,
            context(call),
          ),
        );
      } catch (error) {
        throw failed("updateContainer", error);
      }
    },

    async stopContainer(request, call) {
      const handler = plugin.stopContainer;
      if (!handler) return {};
      try {
        const answer = await handler.call(plugin, pod(request.pod), container(request.container), context(call));
        return { update: toUpdates(answer, "stopContainer result") };
      } catch (error) {
        throw failed("stopContainer", error);
      }
    },

    async stateChange(event, call) {
      const podHandler = STATE_CHANGE_POD_EVENTS.get(event.event);
      if (podHandler) return podEvent(podHandler, event, call);
      const containerHandler = STATE_CHANGE_CONTAINER_EVENTS.get(event.event);
      if (containerHandler) return containerEvent(containerHandler, event, call);
      logger.debug({ event: eventName(event.event) }, "ignored a StateChange for an event it does not carry");
      return {};
    },

    async validateContainerAdjustment(request, call) {
      const handler = plugin.validateContainerAdjustment;
      if (!handler) return {};
      try {
        unanswered("validateContainerAdjustment", await handler.call(plugin, request, context(call)));
        return {};
      } catch (error) {
        const reason = messageOf(error);
        logger.info({ container: request.container?.id, reason }, "rejected a container adjustment");
        return { reject: true, reason };
      }
    },
  };
}
