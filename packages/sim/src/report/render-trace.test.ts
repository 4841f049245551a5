import { describe, expect, it } from "vitest";
import type { TraceSpan } from "../trace/trace-tree.js";
import { durationText, renderTrace } from "./render-trace.js";
import { plainStyle } from "./style.js";

function span(name: string, fields: Partial<TraceSpan> = {}): TraceSpan {
  return {
    name,
    spanId: "00f067aa0ba902b7",
    service: "nri-sim",
    kind: "internal",
    startMs: 0,
    durationMs: 1.5,
    attributes: {},
    children: [],
    ...fields,
  };
}

const call = (
  plugin: string,
  method: string,
  attributes: Record<string, unknown> = {},
  fields: Partial<TraceSpan> = {},
) =>
  span(`nri.pkg.api.v1alpha1.Plugin/${method}`, {
    kind: "client",
    attributes: {
      "rpc.service": "nri.pkg.api.v1alpha1.Plugin",
      "rpc.method": method,
      "nri.plugin.index": plugin.slice(0, 2),
      "nri.plugin.name": plugin.slice(3),
      ...attributes,
    },
    ...fields,
  });

describe("renderTrace", () => {
  it("says what each span says: its error, a policy's decision, a verdict, a conflict", () => {
    const trace = {
      traceId: "4bf92f3577b34da6a3ce929d0e0e4736",
      spans: [
        span("create app", {
          durationMs: 1234.5,
          children: [
            span("nri.CreateContainer", {
              error: 'plugins "20-b" and "10-a" both tried to set Env A',
              attributes: { "nri.conflict.plugins": ["10-a", "20-b"], "nri.conflict.field": "Env A" },
              children: [
                call(
                  "10-a",
                  "CreateContainer",
                  { "nri.adjusted": true },
                  { children: [call("10-a", "CreateContainer", {}, { kind: "server", durationMs: 0.25 })] },
                ),
                call(
                  "15-slow",
                  "CreateContainer",
                  { "nri.failure_policy.decision": "request went on, plugin dropped" },
                  { error: "context deadline exceeded", durationMs: 12.25 },
                ),
                call("90-v", "ValidateContainerAdjustment", {
                  "nri.validation.verdict": "rejected",
                  "nri.validation.reason": "no",
                }),
              ],
            }),
          ],
        }),
      ],
    };
    expect(renderTrace(trace, plainStyle, "  ")).toEqual([
      "  trace 4bf92f3577b34da6a3ce929d0e0e4736",
      "    create app                                1.23 s",
      "      CreateContainer                        1.50 ms  conflict: 10-a, 20-b on Env A",
      "        → 10-a CreateContainer               1.50 ms  adjusted",
      "          10-a handler                       0.25 ms",
      "        → 15-slow CreateContainer            12.3 ms  ✗ context deadline exceeded, request went on, plugin dropped",
      "        → 90-v ValidateContainerAdjustment   1.50 ms  rejected: no",
    ]);
  });
});

describe("durationText", () => {
  it("keeps three figures", () => {
    expect([0.0123, 1.5, 12.34, 999.9, 1500].map(durationText)).toEqual([
      "0.01 ms",
      "1.50 ms",
      "12.3 ms",
      "999.9 ms",
      "1.50 s",
    ]);
  });
});
