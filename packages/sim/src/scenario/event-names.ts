import { Event, eventName } from "@nri-ts/api";

/** The display names of the lifecycle events (`RunPodSandbox`, ..., `ValidateContainerAdjustment`). */
export const EVENT_NAMES: readonly string[] = Object.values(Event)
  .filter((value): value is Event => typeof value === "number" && value > Event.UNKNOWN && value < Event.LAST)
  .map(eventName);
