import { ALL_EVENTS, Event, eventMask, formatEventMask } from "@nri-ts/api";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { StubError } from "./errors.js";
import type { Plugin } from "./plugin.js";
import { HANDLER_EVENTS, handledEvents, resolveSubscription } from "./subscription.js";

const noop = (): void => {};

describe("handledEvents", () => {
  it("sets the bit of each lifecycle handler present", () => {
    expect(handledEvents({ createContainer: noop })).toBe(0x8);
    expect(handledEvents({ runPodSandbox: noop, validateContainerAdjustment: noop })).toBe(0x2001);
    const all = Object.fromEntries(Object.keys(HANDLER_EVENTS).map((key) => [key, noop])) as Plugin;
    expect(handledEvents(all)).toBe(ALL_EVENTS);
  });

  it("does not count configure, synchronize or shutdown", () => {
    expect(handledEvents({ configure: noop, synchronize: noop, shutdown: noop, stopContainer: noop })).toBe(
      eventMask(Event.STOP_CONTAINER),
    );
  });

  it("refuses a plugin without lifecycle handlers, as Go's stub does", () => {
    expect(() => handledEvents({ configure: noop, synchronize: noop })).toThrow(
      expect.objectContaining({ code: "ERR_STUB_NO_HANDLERS" }),
    );
  });
});

describe("resolveSubscription", () => {
  const handled = eventMask(Event.CREATE_CONTAINER, Event.STOP_CONTAINER);

  it("subscribes to the handled events when configure asks for nothing or 0", () => {
    expect(resolveSubscription(handled, undefined)).toBe(handled);
    expect(resolveSubscription(handled, 0)).toBe(handled);
  });

  it("narrows to what configure asks for", () => {
    expect(resolveSubscription(handled, eventMask(Event.STOP_CONTAINER))).toBe(0x200);
  });

  it("refuses events without a handler, naming them as Go's stub does", () => {
    expect(() => resolveSubscription(handled, eventMask(Event.CREATE_CONTAINER, Event.RUN_POD_SANDBOX))).toThrow(
      new StubError("ERR_STUB_CONFIGURE", "internal error: unhandled events RunPodSandbox (0x1)"),
    );
    expect(() => resolveSubscription(handled, 0x8000)).toThrow(
      new StubError("ERR_STUB_CONFIGURE", "internal error: unhandled events unknown(0x8000) (0x8000)"),
    );
  });

  it("refuses what is not an event mask", () => {
    expect(() => resolveSubscription(handled, 1.5)).toThrow(expect.objectContaining({ code: "ERR_STUB_CONFIGURE" }));
  });

  it("accepts exactly the non-empty subsets of the handled events", () => {
    fc.assert(
      fc.property(fc.integer({ min: 1, max: ALL_EVENTS }), fc.integer({ min: 1, max: 0x7fffffff }), (h, asked) => {
        if ((asked & ~h) === 0) expect(resolveSubscription(h, asked)).toBe(asked);
        else expect(() => resolveSubscription(h, asked)).toThrow(formatEventMask(asked & ~h));
      }),
    );
  });
});
