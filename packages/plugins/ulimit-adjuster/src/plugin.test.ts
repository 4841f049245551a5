import { simulate } from "@nri-ts/sim";
import { describe, expect, it } from "vitest";
import { createUlimitAdjuster } from "./plugin.js";

const scenario = `
name: ulimits
pods:
  - name: web
    annotations:
      ulimits.noderesource.dev/container.app: |
        - type: RLIMIT_NOFILE
          soft: 1024
          hard: 4096
        - type: memlock
          soft: 645321
          hard: 987654
        - type: nproc
          hard: 9000
      ulimits.nri.containerd.io/container.old: "- {type: core, hard: 0}"
      ulimits.noderesource.dev/container.typo: "- {type: RLIMIT_FILES, hard: 1}"
      ulimits.noderesource.dev/container.upside: "- {type: stack, soft: 100, hard: 10}"
containers:
  - {name: app, pod: web}
  - {name: old, pod: web}
  - {name: typo, pod: web}
  - {name: upside, pod: web}
  - {name: plain, pod: web}
steps:
  - run-pod: web
  - create: app
  - create: old
  - create: typo
  - create: upside
  - create: plain
`;

describe("the ulimit-adjuster under nri-sim", () => {
  it("sets the annotated rlimits and fails the containers whose annotation is wrong", async () => {
    const report = await simulate(scenario, {
      plugins: [{ plugin: createUlimitAdjuster(), index: "10", name: "ulimit-adjuster" }],
      clock: "virtual",
    });
    const [, app, old, typo, upside, plain] = report.steps;
    // CreateContainer is all it subscribes to
    expect(report.steps.map((s) => s.events.map((e) => e.event))).toEqual([[], ...Array(5).fill(["CreateContainer"])]);
    expect(app.adjustment).toEqual({
      rlimits: [
        { type: "RLIMIT_NOFILE", hard: 4096, soft: 1024 },
        { type: "RLIMIT_MEMLOCK", hard: 987654, soft: 645321 },
        { type: "RLIMIT_NPROC", hard: 9000 },
      ],
    });
    expect(app.changes.map((c) => [c.text, c.owner])).toEqual([
      ["rlimit RLIMIT_NOFILE soft 1024 hard 4096", "10-ulimit-adjuster"],
      ["rlimit RLIMIT_MEMLOCK soft 645321 hard 987654", "10-ulimit-adjuster"],
      ["rlimit RLIMIT_NPROC soft 0 hard 9000", "10-ulimit-adjuster"],
    ]);
    expect(app.container).toMatchObject({
      rlimits: [
        { type: "RLIMIT_NOFILE", hard: 4096, soft: 1024 },
        { type: "RLIMIT_MEMLOCK", hard: 987654, soft: 645321 },
        { type: "RLIMIT_NPROC", hard: 9000 },
      ],
    });
    expect(old.adjustment).toEqual({ rlimits: [{ type: "RLIMIT_CORE" }] });
    expect(typo.ok).toBe(false);
    expect(typo.error).toContain('failed to parse type: "RLIMIT_FILES"');
    expect(upside.ok).toBe(false);
    expect(upside.error).toContain('ulimit "RLIMIT_STACK" must have hard limit >= soft limit');
    expect(plain.ok).toBe(true);
    expect(plain.adjustment).toEqual({});
  });
});
