import { expect, test } from "vitest";
import { logCall, silentLogger } from "./logger.js";

test("logCall reads both forms of a log call", () => {
  expect(logCall({ plugin: "10-logger" }, "registered")).toEqual({
    fields: { plugin: "10-logger" },
    message: "registered",
  });
  expect(logCall({ plugin: "10-logger" })).toEqual({ fields: { plugin: "10-logger" }, message: "" });
  expect(logCall("registered")).toEqual({ fields: {}, message: "registered" });
});

test("silentLogger drops everything, its children too", () => {
  expect(silentLogger.child?.({ plugin: "10-logger" })).toBe(silentLogger);
  expect(silentLogger.info({ plugin: "10-logger" }, "dropped")).toBeUndefined();
});
