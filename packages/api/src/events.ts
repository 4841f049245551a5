/**
 * Event masks: the set of lifecycle events a plugin subscribes to, as sent in
 * `ConfigureResponse.events`. Event `e` is bit `1 << (e - 1)`; a mask is an
 * int32 like the wire field.
 */
import { Event } from "./gen/nri/pkg/api/v1alpha1/api.js";
import { goQuote, goTrimSpace } from "@nri-ts/common";

export type EventMask = number;

/** Every event there is (0x3FFF), including container adjustment validation. */
export const ALL_EVENTS: EventMask = (1 << (Event.LAST - 1)) - 1;

/** The events in the order of their numbers, with their display names. */
const EVENT_NAMES = new Map<Event, string>([
  [Event.RUN_POD_SANDBOX, "RunPodSandbox"],
  [Event.STOP_POD_SANDBOX, "StopPodSandbox"],
  [Event.REMOVE_POD_SANDBOX, "RemovePodSandbox"],
  [Event.CREATE_CONTAINER, "CreateContainer"],
  [Event.POST_CREATE_CONTAINER, "PostCreateContainer"],
  [Event.START_CONTAINER, "StartContainer"],
  [Event.POST_START_CONTAINER, "PostStartContainer"],
  [Event.UPDATE_CONTAINER, "UpdateContainer"],
  [Event.POST_UPDATE_CONTAINER, "PostUpdateContainer"],
  [Event.STOP_CONTAINER, "StopContainer"],
  [Event.REMOVE_CONTAINER, "RemoveContainer"],
  [Event.UPDATE_POD_SANDBOX, "UpdatePodSandbox"],
  [Event.POST_UPDATE_POD_SANDBOX, "PostUpdatePodSandbox"],
  [Event.VALIDATE_CONTAINER_ADJUSTMENT, "ValidateContainerAdjustment"],
]);

const EVENTS_BY_LOWER_NAME = new Map([...EVENT_NAMES].map(([event, name]) => [name.toLowerCase(), event]));

/** Thrown by parseEventMask for a name it does not know. */
export class UnknownEventError extends Error {
  override readonly name = "UnknownEventError";

  constructor(readonly event: string) {
    super(`unknown event ${goQuote(event)}`);
  }
}

/** The display name of an event, e.g. `CreateContainer`, or `unknown(N)`. */
export function eventName(event: Event): string {
  return EVENT_NAMES.get(event) ?? `unknown(${event})`;
}

function bit(event: Event): EventMask {
  if (!EVENT_NAMES.has(event)) throw new RangeError(`not an NRI event: ${event}`);
  return 1 << (event - 1);
}

/** A mask of the given events. */
export function eventMask(...events: Event[]): EventMask {
  return setEvents(0, ...events);
}

/** The mask with the given events added. */
export function setEvents(mask: EventMask, ...events: Event[]): EventMask {
  return events.reduce((m, event) => m | bit(event), mask);
}

/** The mask with the given events removed. */
export function clearEvents(mask: EventMask, ...events: Event[]): EventMask {
  return events.reduce((m, event) => m & ~bit(event), mask);
}

export function hasEvent(mask: EventMask, event: Event): boolean {
  return (mask & bit(event)) !== 0;
}

/**
 * Whether the mask names only known events. A runtime refuses a plugin whose
 * non-zero mask has other bits; zero means "everything".
 */
export function isValidEventMask(mask: EventMask): boolean {
  return (mask & ~ALL_EVENTS) === 0;
}

/**
 * Parses event names into a mask, like the Go reference's ParseEventMask.
 * Each argument is a comma-separated list; names are case-insensitive and
 * may be surrounded by whitespace. Besides the event names (`RunPodSandbox`,
 * `createcontainer`, ...) it knows `all`, `pod` or `podsandbox` (every event
 * whose name contains "pod") and `container` (every event whose name
 * contains "container", which includes ValidateContainerAdjustment).
 *
 * Unlike Go, which compares the shorthands before trimming, `" pod"` is
 * accepted here. An empty entry is an error, as in Go.
 *
 * @throws UnknownEventError naming the first entry it does not know
 */
export function parseEventMask(...lists: string[]): EventMask {
  let mask = 0;
  for (const list of lists) {
    for (const entry of list.split(",")) {
      const name = goTrimSpace(entry);
      const lower = name.toLowerCase();
      if (lower === "all") {
        mask |= ALL_EVENTS;
      } else if (lower === "pod" || lower === "podsandbox" || lower === "container") {
        const part = lower === "container" ? "container" : "pod";
        for (const [eventLower, event] of EVENTS_BY_LOWER_NAME) {
          if (eventLower.includes(part)) mask |= bit(event);
        }
      } else {
        const event = EVENTS_BY_LOWER_NAME.get(lower);
        if (event === undefined) throw new UnknownEventError(name);
        mask |= bit(event);
      }
    }
  }
  return mask;
}

/**
 * The names of the events in the mask, comma-separated in event order, e.g.
 * `CreateContainer,ValidateContainerAdjustment`; the same text as Go's
 * `EventMask.PrettyString`. Bit 0x4000 (the LAST sentinel) shows as
 * `unknown(15)`; any higher bits as `unknown(0x…)`.
 */
export function formatEventMask(mask: EventMask): string {
  const names: string[] = [];
  let rest = mask | 0;
  for (let event = Event.RUN_POD_SANDBOX; event <= Event.LAST; event++) {
    const eventBit = 1 << (event - 1);
    if ((rest & eventBit) !== 0) {
      names.push(eventName(event));
      rest &= ~eventBit;
    }
  }
  if (rest !== 0) names.push(`unknown(0x${rest.toString(16)})`);
  return names.join(",");
}
