import { describe, expect, it } from "vitest";
import type { ContainerView } from "./container-view.js";
import { renderStep, renderSummary } from "./render-text.js";
import type { SimReport, StepReport } from "./report.js";
import { makeStyle } from "./style.js";

const step: StepReport = {
  number: 2,
  step: "create app",
  line: 12,
  ok: true,
  events: [
    { plugin: "10-logger", event: "CreateContainer" },
    { plugin: "20-limits", event: "CreateContainer" },
    { plugin: "10-logger", event: "ValidateContainerAdjustment" },
    { plugin: "10-logger", event: "PostCreateContainer", error: "rpc error: code = Unknown desc = boom" },
  ],
  adjustment: { annotations: { seen: "yes" } },
  changes: [
    { field: "Annotations", key: "seen", remove: false, text: "annotation seen=yes", owner: "10-logger" },
    { field: "Env", key: "OLD", remove: true, text: "env -OLD (remove)", owner: "-20-limits" },
    { field: "MemReservation", remove: false, text: "memory.reservation 128Mi", owner: "20-limits" },
  ],
  updates: [
    {
      container: "web/side",
      from: "CreateContainer",
      ignoreFailure: false,
      changes: [{ field: "CPUShares", remove: false, text: "cpu.shares 2", owner: "20-limits" }],
      applied: true,
    },
  ],
  evictions: [],
  validation: [{ plugin: "10-logger", accepted: true }],
  closed: [],
  failures: [],
  ignored: ["linux.resources.memory.reservation"],
  output: [{ plugin: "10-logger", text: "CreateContainer: pod: web" }],
  container: { name: "app", status: "created" } as ContainerView,
};

describe("renderStep", () => {
  it("shows events per plugin, changes with owners, updates, verdicts, output and the container", () => {
    expect(renderStep(step)).toBe(
      [
        "✓  2 create app  line 12",
        "     10-logger  CreateContainer, ValidateContainerAdjustment, PostCreateContainer ✗ rpc error: code = Unknown desc = boom",
        "     20-limits  CreateContainer",
        "     adjustment:",
        "       annotation seen=yes       10-logger",
        "       env -OLD (remove)         removed by 20-limits",
        "       memory.reservation 128Mi  20-limits",
        "       linux.resources.memory.reservation: not applied by runtimes",
        "     update web/side (from CreateContainer)",
        "       cpu.shares 2  20-limits",
        "     10-logger accepted the adjustment",
        "     │ 10-logger: CreateContainer: pod: web",
        "     container app: created",
      ].join("\n"),
    );
  });

  it("shows the faults asked for and what each failure's policy decided", () => {
    const failing = renderStep({
      ...step,
      ok: false,
      error: "plugin 10-net failed to handle CreateContainer request: context deadline exceeded",
      events: [{ plugin: "10-net", event: "CreateContainer", error: "context deadline exceeded" }],
      changes: [],
      updates: [],
      validation: [],
      ignored: [],
      output: [],
      faults: [
        { plugin: "10-net", fault: "timeout", on: "CreateContainer", happened: true },
        { plugin: "20-dns", fault: "disconnect", happened: false },
      ],
      failures: [
        {
          plugin: "10-net",
          event: "CreateContainer",
          error: "context deadline exceeded",
          policy: { failRequest: true, keepConnected: true },
          requestFailed: true,
          dropped: false,
        },
        { plugin: "30-log", event: "CreateContainer", error: "ttrpc: closed", requestFailed: false, dropped: true },
      ],
    });
    expect(failing.split("\n").slice(2, 9)).toEqual([
      "     10-net  CreateContainer ✗ context deadline exceeded",
      "     fault: 10-net timeout on CreateContainer",
      "     fault: 20-dns disconnect: no such request came",
      "     10-net failed CreateContainer: context deadline exceeded",
      "       policy failRequest, keepConnected: request failed, plugin kept",
      "     30-log failed CreateContainer: ttrpc: closed",
      "       no policy: request went on without it, plugin dropped",
    ]);
  });

  it("colours failures red on a terminal", () => {
    const failed = renderStep(
      {
        ...step,
        ok: false,
        error: "validator rejected",
        events: [],
        changes: [],
        updates: [],
        validation: [],
        ignored: [],
        output: [],
      },
      makeStyle(true),
    );
    expect(failed.split("\n").slice(0, 2)).toEqual([
      "\x1b[31m✗\x1b[39m  2 \x1b[1mcreate app\x1b[22m\x1b[2m  line 12\x1b[22m",
      "\x1b[31m     error: validator rejected\x1b[39m",
    ]);
  });
});

describe("renderSummary", () => {
  it("lists expectations and what failed", () => {
    const report = {
      steps: [step],
      expectations: [
        { line: 20, step: 2, stepText: "create app", ok: true, failures: [] },
        {
          line: 23,
          step: 2,
          stepText: "create app",
          ok: false,
          failures: ["adjustment.env: expected 1 item(s), got 0: nothing"],
        },
      ],
      ok: false,
      failures: ["expectation at line 23 after step 2 (create app) failed"],
    } as unknown as SimReport;
    expect(renderSummary(report)).toBe(
      [
        "expectations",
        "✓ line 20, after step 2 (create app)",
        "✗ line 23, after step 2 (create app)",
        "    adjustment.env: expected 1 item(s), got 0: nothing",
        "✗ 1 step, 1/2 expectations met",
        "  expectation at line 23 after step 2 (create app) failed",
      ].join("\n"),
    );
  });
});
