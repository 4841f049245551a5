import fc from "fast-check";
import { describe, expect, it } from "vitest";
import {
  ALL_EVENTS,
  clearEvents,
  eventMask,
  eventName,
  formatEventMask,
  hasEvent,
  isValidEventMask,
  parseEventMask,
  setEvents,
  UnknownEventError,
} from "./events.js";
import { ConfigureResponse, Event } from "./gen/nri/pkg/api/v1alpha1/api.js";

const hex = (bytes: Uint8Array) => Buffer.from(bytes).toString("hex");
const EVERY_NAME =
  "RunPodSandbox,StopPodSandbox,RemovePodSandbox,CreateContainer,PostCreateContainer,StartContainer," +
  "PostStartContainer,UpdateContainer,PostUpdateContainer,StopContainer,RemoveContainer,UpdatePodSandbox," +
  "PostUpdatePodSandbox,ValidateContainerAdjustment";

describe("event mask bits", () => {
  it("puts event e at bit 1 << (e - 1), as ConfigureResponse field 2 carries it", () => {
    expect(eventMask(Event.RUN_POD_SANDBOX)).toBe(0x1);
    expect(eventMask(Event.CREATE_CONTAINER)).toBe(0x8);
    expect(eventMask(Event.VALIDATE_CONTAINER_ADJUSTMENT)).toBe(0x2000);
    expect(ALL_EVENTS).toBe(0x3fff);
    expect(hex(ConfigureResponse.encode({ events: eventMask(Event.CREATE_CONTAINER) }).finish())).toBe("1008");
  });

  it("sets, clears and tests events", () => {
    let mask = setEvents(0, Event.CREATE_CONTAINER, Event.STOP_CONTAINER);
    expect(mask).toBe(0x208);
    expect(hasEvent(mask, Event.STOP_CONTAINER)).toBe(true);
    expect(hasEvent(mask, Event.START_CONTAINER)).toBe(false);
    mask = clearEvents(mask, Event.STOP_CONTAINER, Event.START_CONTAINER);
    expect(mask).toBe(0x8);
    expect(clearEvents(ALL_EVENTS, Event.VALIDATE_CONTAINER_ADJUSTMENT)).toBe(0x1fff);
  });

  it("refuses values that are not events", () => {
    expect(() => eventMask(Event.UNKNOWN)).toThrow(new RangeError("not an NRI event: 0"));
    expect(() => hasEvent(ALL_EVENTS, Event.LAST)).toThrow(new RangeError("not an NRI event: 15"));
    expect(() => setEvents(0, 32 as Event)).toThrow(RangeError);
  });

  it("tells masks a runtime accepts", () => {
    expect(isValidEventMask(0)).toBe(true);
    expect(isValidEventMask(ALL_EVENTS)).toBe(true);
    expect(isValidEventMask(0x4000)).toBe(false);
    expect(isValidEventMask(-1)).toBe(false);
  });
});

describe("parseEventMask", () => {
  // Expected masks as Go's api.ParseEventMask (v0.12.2) returns them for the same input.
  it.each([
    ["all", 16383],
    ["pod", 6151],
    ["podsandbox", 6151],
    ["POD", 6151],
    ["container", 10232],
    ["Container,validatecontaineradjustment", 10232],
    [" RunPodSandbox ,  stopcontainer", 513],
    ["createcontainer", 0x8],
  ])("parses %j like Go", (input, mask) => {
    expect(parseEventMask(input)).toBe(mask);
  });

  it("joins several lists", () => {
    expect(parseEventMask("RunPodSandbox", "StopContainer,RemoveContainer")).toBe(0x601);
  });

  it("also trims around the shorthands, where Go does not", () => {
    expect(parseEventMask("  pod")).toBe(6151);
    expect(parseEventMask("pod , container")).toBe(ALL_EVENTS);
  });

  it("names the unknown event in a typed error", () => {
    expect(() => parseEventMask("all,foo")).toThrow(new UnknownEventError("foo"));
    expect(() => parseEventMask("runpodsandbox, Bogus")).toThrow('unknown event "Bogus"');
    try {
      parseEventMask("createContainer, nope ");
      expect.unreachable();
    } catch (error) {
      expect(error).toBeInstanceOf(UnknownEventError);
      expect(error).toMatchObject({ name: "UnknownEventError", event: "nope", message: 'unknown event "nope"' });
    }
  });

  it("rejects empty entries, as Go does", () => {
    expect(() => parseEventMask("")).toThrow('unknown event ""');
    expect(() => parseEventMask("createContainer,,")).toThrow('unknown event ""');
    expect(() => parseEventMask("runpodsandbox", "stopcontainer", "")).toThrow('unknown event ""');
  });
});

describe("formatEventMask", () => {
  // Expected texts as Go's EventMask.PrettyString (v0.12.2) prints them for the same masks.
  it.each([
    [0, ""],
    [1, "RunPodSandbox"],
    [0x3fff, EVERY_NAME],
    [0x2008, "CreateContainer,ValidateContainerAdjustment"],
    [0x4000, "unknown(15)"],
    [0x7fff, `${EVERY_NAME},unknown(15)`],
    [-1, `${EVERY_NAME},unknown(15),unknown(0x-8000)`],
    [0x10000, "unknown(0x10000)"],
  ])("prints %i like Go", (mask, text) => {
    expect(formatEventMask(mask)).toBe(text);
  });

  it("round-trips through parseEventMask", () => {
    fc.assert(
      fc.property(fc.integer({ min: 1, max: ALL_EVENTS }), (mask) => {
        expect(parseEventMask(formatEventMask(mask))).toBe(mask);
      }),
    );
  });

  it("names single events", () => {
    expect(eventName(Event.POST_UPDATE_POD_SANDBOX)).toBe("PostUpdatePodSandbox");
    expect(eventName(Event.LAST)).toBe("unknown(15)");
  });
});
