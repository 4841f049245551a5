/*
 * The differ against Go's, line for line.
 *
 * The Go differ (cmd/plugin-differ: upstream's differ restated on the
 * upstream stub, r3labs/diff v3.0.2, sters/yaml-diff v0.4.0 and
 * sigs.k8s.io/yaml v1.5.0, a module of its own as upstream's is; see its
 * main.go) and ours (@nri-ts/plugin-differ's nri-differ) each run as an
 * external program with the same flags, registered at four indices around
 * three plugins that change containers (our logger stamping an annotation
 * and a variable, the device-injector adding devices, a mount, a sysctl, a
 * scheduler and an I/O priority, the ulimit-adjuster adding rlimits), next
 * to nri-sim through the same pod lifecycle, at every verbose level and
 * with -yaml. What they log must be the same, line for line: level and
 * message, time left out, the stubs' own lines (worded differently) left
 * out. Some of Go's output is random on purpose, and is compared in one of
 * its forms:
 * - protobuf-go's text format adds a second space between fields when a
 *   hash of the Go binary says so (detrand);
 * - go-cmp (-yaml) indents with regular or non-breaking spaces, picked per
 *   process, and yaml-diff renames `uint64` to `Number` or `uNumber`;
 * - the indices register concurrently, so the Synchronize dumps (level 3)
 *   come in either order: they are compared as a set.
 * The scenario changes at most one entry of a map per event, since Go lists
 * the changes of several in random order. One container's arguments hold a
 * DEL, which sigs.k8s.io/yaml refuses: its dumps fail with Go's error.
 */
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { createDeviceInjector } from "@nri-ts/plugin-device-injector";
import { createLoggerPlugin, TextLog } from "@nri-ts/plugin-logger";
import { createUlimitAdjuster } from "@nri-ts/plugin-ulimit-adjuster";
import { simulate } from "@nri-ts/sim";
import { silentLogger } from "@nri-ts/stub";
import { beforeAll, describe, expect, it } from "vitest";
import { describeWithGo, goCommand, moduleDir, pinnedNriModule } from "./go.js";
import { isGoEnding, LOST, ourPluginCommand, pluginLines, splitEnding, startPlugin } from "./plugin-process.js";

const ourDiffer = ourPluginCommand("differ");

const SCENARIO = String.raw`
pods:
  - name: web
    namespace: shop
    labels: {app: web, appVersion: "1.0", "yes": "no"}
    annotations:
      devices.noderesource.dev/container.app: |
        - {path: /dev/nri-null, type: c, major: 1, minor: 3, file_mode: 0666}
        - {path: /dev/nri-zero, type: c, major: 1, minor: 5, uid: 1000}
      mounts.noderesource.dev/container.app: |
        - {source: /home, destination: /host-home, type: bind, options: [bind, ro]}
      ulimits.noderesource.dev/container.app: |
        - {type: nofile, hard: 4096, soft: 1024}
        - {type: nproc, hard: 64}
      sysctl.noderesource.dev/container.app: |
        net.core.somaxconn: "256"
      scheduling-policy.noderesource.dev/container.app: |
        {policy: SCHED_FIFO, priority: 10, flags: [SCHED_FLAG_RESET_ON_FORK]}
      io-priority.noderesource.dev/container.app: |
        {class: IOPRIO_CLASS_RT, priority: 2}
      "quoted \"key\"": "a\tb"
      long: "a long annotation value with many words that goes on well beyond eighty columns"
containers:
  - name: app
    pod: web
    image: registry.example.com/app:1.0
    args: [/bin/app, "--flag=yes", 'say "hi"']
    env: {MODE: prod}
    mounts:
      - {destination: /data, source: /var/lib/data, type: bind, options: [rbind, ro]}
    resources:
      cpu: {shares: 512, quota: 50000, period: 100000, cpus: "0-3"}
      memory: {limit: 256Mi}
    rlimits: [{type: RLIMIT_NOFILE, hard: 8192, soft: 1024}]
  - {name: side, pod: web, args: [sleep, infinity, "del \x7f here"]}
steps:
  - run-pod: web
  - create: app
  - start: app
  - create: side
  - update: {container: app, resources: {memory: {limit: 512Mi}}}
  - exit: {container: app, code: 137, reason: OOMKilled, message: "memory limit exceeded"}
  - remove: app
  - stop: side
  - remove: side
  - stop-pod: web
  - remove-pod: web
`;

const INDICES = "0,15,25,99";
/** The Go differ's line when a Run fails (see isGoEnding); it has one stub per index, so several may end. */
const RUN_FAILED = 'level=error msg="Plugin exited with error ';

/** Lines in one of the forms Go prints at random (see above). */
function oneForm(line: string): string {
  return line
    .replaceAll("\\u00a0", " ")
    .replaceAll("uNumber(", "Number(")
    .replace(/(?<=-> To: .*|From: .*)([^ ]) {2}(?=[A-Za-z_]+:)/g, "$1 ");
}

/** A differ's lines before it ends, and how it ended; Synchronize dumps apart. */
function session(stderr: string): { lines: string[]; synchronize: string[]; ending: string[] } {
  const { lines, ending } = splitEnding(pluginLines(stderr).map(oneForm), RUN_FAILED);
  return {
    lines: lines.filter((line) => !line.includes(" Synchronize:")),
    synchronize: lines.filter((line) => line.includes(" Synchronize:")).sort(),
    ending,
  };
}

async function runWith(command: readonly string[], flags: readonly string[]) {
  let plugin: ReturnType<typeof startPlugin> | undefined;
  const quiet = new TextLog({ sink: { write: () => true } });
  const report = await simulate(SCENARIO, {
    waitPlugins: INDICES.split(",").length,
    waitTimeoutMs: 120_000,
    clock: "virtual",
    plugins: [
      {
        plugin: createLoggerPlugin({
          log: quiet,
          pid: 4242,
          config: { setAnnotation: "logger.nri-ts.dev/seen-by", addEnv: "LOGGER_SEEN" },
        }),
        index: "10",
        name: "logger",
      },
      { plugin: createDeviceInjector({ logger: silentLogger }), index: "20", name: "device-injector" },
      { plugin: createUlimitAdjuster({ logger: silentLogger }), index: "30", name: "ulimit-adjuster" },
    ],
    observer: {
      listening: (socket) =>
        (plugin = startPlugin(command, ["-socket-path", socket, "-indices", INDICES, ...flags], {
          NRI_PLUGIN_NAME: "differ",
        })),
    },
  });
  const code = await plugin?.exited;
  return { report, code, ...session(plugin?.stderr() ?? "") };
}

describe("the differ's Go twin", () => {
  it("is a module of its own, on the NRI version the conformance module pins", async () => {
    const own = readFileSync(join(moduleDir, "cmd", "plugin-differ", "go.mod"), "utf8");
    expect(own).toContain(`\t${await pinnedNriModule()}\n`);
  });
});

describeWithGo("differ: ours and Go's, line for line", () => {
  let goBin: string;

  beforeAll(async () => {
    goBin = await goCommand("plugin-differ");
  }, 300_000);

  const MODES: [string, string[], (lines: string[]) => void][] = [
    [
      "the changes between indices",
      [],
      (lines) =>
        expect(lines).toEqual(
          expect.arrayContaining([
            'level=info msg="[15] CreateContainer: container: create: [Annotations logger.nri-ts.dev/seen-by]: From: <nil> -> To: logger-pid-4242"',
            'level=info msg="[25] CreateContainer: container: create: [Linux Devices 0 FileMode]: From: <nil> -> To: value:438"',
            'level=info msg="[25] CreateContainer: container: update: [Linux Scheduler]: From: <nil> -> To: policy:SCHED_FIFO priority:10 flags:SCHED_FLAG_RESET_ON_FORK"',
            'level=info msg="[99] CreateContainer: container: create: [Rlimits 2 Type]: From: <nil> -> To: RLIMIT_NPROC"',
            'level=info msg="[99] UpdateContainer: container: <no changes>"',
          ]),
        ),
    ],
    [
      "the first index's dumps (-verbose-level 1)",
      ["-verbose-level", "1"],
      (lines) => expect(lines).toContain('level=info msg="[00] RunPodSandbox:      \\"yes\\": \\"no\\""'),
    ],
    [
      "the objects around each change (-verbose-level 2)",
      ["-verbose-level", "2"],
      (lines) => {
        expect(lines).toContain('level=info msg="[25] Values after changes for container"');
        expect(lines).toContain(
          'level=info msg="CreateContainer: container: failed to dump object: yaml: control characters are not allowed"',
        );
      },
    ],
    [
      "Synchronize too (-verbose-level 3)",
      ["-verbose-level", "3"],
      (lines) => expect(lines.length).toBeGreaterThan(1000),
    ],
    [
      "YAML diffs (-yaml)",
      ["-yaml"],
      (lines) => {
        const reports = lines.filter((line) => line.includes("map[String]any{"));
        expect(reports.length).toBeGreaterThanOrEqual(3);
        expect(reports.some((line) => line.includes("identical entries"))).toBe(true);
        expect(reports.some((line) => line.includes('+ \\t\\t\\"devices\\": []any{'))).toBe(true);
      },
    ],
  ];

  for (const [what, flags, covered] of MODES) {
    it(`log the same lines for ${what} under nri-sim`, async () => {
      const go = await runWith([goBin], flags);
      const ts = await runWith(ourDiffer, flags);
      expect(go.report.failures).toEqual([]);
      expect(ts.report.failures).toEqual([]);
      const firstDifference = go.lines.findIndex((line, i) => ts.lines[i] !== line);
      expect(
        firstDifference === -1
          ? undefined
          : {
              at: firstDifference,
              go: go.lines.slice(firstDifference, firstDifference + 3),
              ts: ts.lines.slice(firstDifference, firstDifference + 3),
            },
      ).toBeUndefined();
      expect(ts.lines.length).toBe(go.lines.length);
      expect(ts.synchronize).toEqual(go.synchronize);
      expect(isGoEnding(go.ending, RUN_FAILED), go.ending.join("\n")).toBe(true);
      expect(ts.ending).toEqual([LOST]);
      expect([go.code, ts.code]).toEqual([1, 1]);
      // What the comparison covered.
      expect(go.lines.filter((line) => !line.includes("<no changes>")).length).toBeGreaterThanOrEqual(3);
      covered(go.lines);
    }, 240_000);
  }
});
