import { describe, expect, it } from "vitest";
import { HANDLER_EVENTS } from "./subscription.js";
import { nearestPluginKey, PLUGIN_KEYS, unknownPluginKeys } from "./plugin-keys.js";

describe("the keys of a plugin object", () => {
  it("knows every handler", () => {
    expect(PLUGIN_KEYS).toEqual(["configure", "synchronize", "shutdown", ...Object.keys(HANDLER_EVENTS)]);
    expect(unknownPluginKeys(Object.fromEntries(PLUGIN_KEYS.map((key) => [key, () => {}])))).toEqual([]);
  });

  it("names the handler nearest to a key that is none", () => {
    expect(nearestPluginKey("stopContainr")).toBe("stopContainer");
    expect(nearestPluginKey("CreateContainer")).toBe("createContainer");
    expect(nearestPluginKey("onStopContainer")).toBe("stopContainer");
    expect(nearestPluginKey("postStart")).toBe("postStartContainer");
    expect(nearestPluginKey("synchronise")).toBe("synchronize");
    expect(nearestPluginKey("x".repeat(1_000_000))).toBeDefined();
  });

  it("lists the own keys that are no handler, in the object's order", () => {
    expect(unknownPluginKeys({ createContainer: () => {}, stopContainr: () => {}, name: "x" })).toEqual([
      { key: "stopContainr", nearest: "stopContainer" },
      { key: "name", nearest: "configure" },
    ]);
  });
});
