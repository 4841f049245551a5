import { describe, expect, it } from "vitest";
import { CauseRequestError, readCauseRequest } from "./cause-request.js";
import { Source } from "../gen/nri_ts/exit_reporter/v1/exit_reporter.js";

describe("readCauseRequest", () => {
  it("reads absent optional fields as protobuf's defaults", () => {
    expect(readCauseRequest({ containerId: "c1", declaredBy: "10-x", reason: "Evicted" })).toEqual({
      containerId: "c1",
      cause: { declaredBy: "10-x", source: Source.SOURCE_PLUGIN, reason: "Evicted", message: "", exitCodes: [] },
      ttlSeconds: 0,
    });
  });

  it.each([
    [undefined, "expected an AttachCause request, got undefined"],
    ["c1", 'expected an AttachCause request, got "c1"'],
    [{ containerId: "c1", reason: "Evicted" }, "declared_by: required"],
    [{ containerId: "c1", declaredBy: "10-x", reason: {} }, "reason: expected a text, got a mapping"],
    [
      { containerId: "c1", declaredBy: "10-x", reason: "Evicted", ttlSeconds: 1.5 },
      "ttl_seconds: expected a whole number of seconds, got 1.5",
    ],
  ])("refuses %j: %s", (request, message) => {
    expect(() => readCauseRequest(request)).toThrow(new CauseRequestError(message));
  });
});
