import { Event, type EventMask, eventMask, formatEventMask } from "@nri-ts/api";
import { StubError } from "./errors.js";
import type { Plugin } from "./plugin.js";

/** The lifecycle handlers and the event each one subscribes to. */
export const HANDLER_EVENTS = {
  runPodSandbox: Event.RUN_POD_SANDBOX,
  updatePodSandbox: Event.UPDATE_POD_SANDBOX,
  postUpdatePodSandbox: Event.POST_UPDATE_POD_SANDBOX,
  stopPodSandbox: Event.STOP_POD_SANDBOX,
  removePodSandbox: Event.REMOVE_POD_SANDBOX,
  createContainer: Event.CREATE_CONTAINER,
  postCreateContainer: Event.POST_CREATE_CONTAINER,
  startContainer: Event.START_CONTAINER,
  postStartContainer: Event.POST_START_CONTAINER,
  updateContainer: Event.UPDATE_CONTAINER,
  postUpdateContainer: Event.POST_UPDATE_CONTAINER,
  stopContainer: Event.STOP_CONTAINER,
  removeContainer: Event.REMOVE_CONTAINER,
  validateContainerAdjustment: Event.VALIDATE_CONTAINER_ADJUSTMENT,
} as const satisfies Partial<Record<keyof Plugin, Event>>;

/**
 * The events the plugin has handlers for.
 * @param strays the plugin's keys that are no handler, named when it has none (they may be misspelled ones)
 * @throws StubError ERR_STUB_NO_HANDLERS when it has none
 */
export function handledEvents(plugin: Plugin, strays: readonly string[] = []): EventMask {
  const events = Object.entries(HANDLER_EVENTS)
    .filter(([handler]) => typeof plugin[handler as keyof Plugin] === "function")
    .map(([, event]) => event);
  if (events.length === 0) {
    const unknown =
      strays.length > 0
        ? `; its ${strays.length === 1 ? "key" : "keys"} ${strays.join(", ")} ${strays.length === 1 ? "is no handler" : "are no handlers"}`
        : "";
    throw new StubError(
      "ERR_STUB_NO_HANDLERS",
      `plugin does not implement any NRI request handlers (it needs at least one lifecycle event handler)${unknown}`,
    );
  }
  return eventMask(...events);
}

/**
 * The events to subscribe to: what `configure` asked for, or, when it asked
 * for nothing (0), every handled event. A plugin may narrow its subscription
 * but not widen it.
 * @throws StubError ERR_STUB_CONFIGURE naming the events asked for without a handler
 */
export function resolveSubscription(handled: EventMask, requested: EventMask | void): EventMask {
  if (requested === undefined || requested === 0) return handled;
  if (!Number.isInteger(requested)) {
    throw new StubError("ERR_STUB_CONFIGURE", `configure returned ${String(requested)}, not an event mask`);
  }
  const extra = (requested | 0) & ~handled;
  if (extra !== 0) {
    throw new StubError(
      "ERR_STUB_CONFIGURE",
      `internal error: unhandled events ${formatEventMask(extra)} (0x${(extra >>> 0).toString(16)})`,
    );
  }
  return requested;
}
