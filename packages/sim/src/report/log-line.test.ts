import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { readableLogLine } from "./log-line.js";

describe("readableLogLine", () => {
  it("keeps the message of logrus logfmt lines", () => {
    expect(readableLogLine('time="2026-01-01T00:00:00Z" level=info msg="StopContainer:    exit_code: 137"')).toBe(
      "StopContainer:    exit_code: 137",
    );
    expect(readableLogLine('time="2026-01-01T00:00:00Z" level=error msg=boom plugin=10-x')).toBe(
      "error: boom plugin=10-x",
    );
    expect(readableLogLine('level=info msg="quote \\" inside"')).toBe('quote " inside');
  });

  it("keeps the message of JSON log lines", () => {
    expect(readableLogLine('{"time":"t","level":"warn","msg":"lost","plugin":"10-x","n":1}')).toBe(
      "warn: lost plugin=10-x n=1",
    );
  });

  it("leaves other lines alone", () => {
    expect(readableLogLine("plain output")).toBe("plain output");
    expect(readableLogLine("a=b c=d")).toBe("a=b c=d");
    expect(readableLogLine("{not json")).toBe("{not json");
  });

  it("never throws", () => {
    fc.assert(fc.property(fc.string(), (text) => typeof readableLogLine(text) === "string"));
  });
});
