/*
 * The logger against Go's, line for line.
 *
 * The Go plugin (cmd/plugin-logger: the upstream logger restated on the
 * upstream stub, logrus and sigs.k8s.io/yaml v1.3.0, see its main.go) and
 * ours (@nri-ts/plugin-logger's nri-logger) each run as an external plugin
 * with the same flags: first next to nri-sim through the same pod
 * lifecycles (pods and containers with awkward labels, annotations,
 * arguments, environment and mounts; the loggers' own annotation and
 * variables, removal markers included, come back in later events), then
 * against a scripted runtime that sends both the same generated messages
 * (variants of messages with every field set, their text replaced by
 * awkward text) in every request the logger handles. What they log must be
 * the same, line for line: level and message, time left out. The stubs'
 * own lines about registering are worded differently and left out, and the
 * `logger-pid-<pid>` values (each logger stamps its own pid) are compared
 * without the pid.
 */
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { Container, Event, LinuxResources, PodSandbox, ValidateContainerAdjustmentRequest } from "@nri-ts/api";
import { simulate } from "@nri-ts/sim";
import { type ScriptedRuntime, ScriptedRuntimeListener } from "@nri-ts/stub/testing";
import fc from "fast-check";
import { afterAll, beforeAll, expect, it } from "vitest";
import { awkwardText } from "./awkward-text.js";
import { describeWithGo, goCommand } from "./go.js";
import { fullContainer, fullPod, fullResources, statusOnlyContainer, validateRequest } from "./golden-values.js";
import { messageVariants } from "./message-variants.js";
import { isGoEnding, LOST, ourPluginCommand, pluginLines, splitEnding, startPlugin } from "./plugin-process.js";

const ourLogger = ourPluginCommand("logger");
/** The flags both loggers run with: every kind of stamp, so removal markers travel too. */
const FLAGS = [
  "-add-annotation",
  "example.com/added",
  "-set-annotation",
  "example.com/set",
  "-add-env",
  "LOGGER_ADDED",
  "-set-env",
  "MODE",
];

/** Each logger stamps its own pid; compare without it. */
const withoutPid = (lines: string[]) => lines.map((line) => line.replace(/logger-pid-\d+/g, "logger-pid-N"));

/** The Go logger's line when Run fails (see isGoEnding). */
const RUN_FAILED = 'level=error msg="plugin exited with error ';
const session = (lines: string[]) => splitEnding(lines, RUN_FAILED);

const start = (command: readonly string[], socket: string) =>
  startPlugin(command, ["-idx", "10", "-socket-path", socket, ...FLAGS], { NRI_PLUGIN_NAME: "logger" });

const SCENARIO = String.raw`
pods:
  - name: web
    namespace: shop
    labels:
      appVersion: "1.0"
      app.kubernetes.io/name: web
      "yes": "no"
      empty: ""
      quoted: '"quoted" and ''single'''
      colon: "a: b"
      hash: "a #b"
      lead: "  leading spaces"
      trail: "trailing space "
      unicode: "ünïcödé 😀 中文"
      number: "0123"
      octal: "0o17"
      float: "1e3"
      bool: "True"
      nullish: "~"
      date: "2026-01-15"
      time: "2026-01-15T10:00:00Z"
      sexagesimal: "1:20"
      dash: "- x"
      long: "a long label value with many words that goes on well beyond eighty columns so that go-yaml wraps it"
    annotations:
      kubectl.kubernetes.io/restartedAt: "2026-01-15T10:00:00+01:00"
      multi: "line one\nline two\n"
      multi-keep: "a\n\n"
      multi-lead: " lead\nx"
      tab: "a\tb"
      cr: "a\rb"
      nbsp: "a\u00a0b"
      bom: "\ufeffstart"
      backslash: 'C:\path'
      json: '{"a": [1, 2]}'
      "-marker": removal-looking key
    ips: [10.244.1.22, "fd00::16"]
  - {name: host, namespace: kube-system, hostNetwork: true}
containers:
  - name: app
    pod: web
    image: registry.example.com/app:1.0
    args: [/bin/app, --flag=yes, "", "with space", "quote\"d", "- dash"]
    env: {MODE: prod, EMPTY: "", COLON: "a: b", EQUALS: "a=b=c", MULTI: "x\ny"}
    labels: {appVersion: "2.0", tier: backend}
    annotations: {note: "2026-01-15", weird: "? what"}
    mounts:
      - {destination: /data, source: /var/lib/data, type: bind, options: [rbind, ro]}
      - {destination: "/with space", source: "/src: colon", type: bind}
    resources:
      cpu: {shares: 512, quota: 50000, period: 100000, cpus: "0-3"}
      memory: {limit: 256Mi}
    rlimits: [{type: RLIMIT_NOFILE, hard: 4096, soft: 1024}]
  - {name: side, pod: host, args: [sleep, infinity]}
steps:
  - run-pod: web
  - run-pod: host
  - update-pod: {pod: web, resources: {cpu: {shares: 1024}}, overhead: {memory: {limit: 64Mi}}}
  - create: app
  - start: app
  - create: side
  - update: {container: app, resources: {memory: {limit: 512Mi}}}
  - exit: {container: app, code: 137, reason: OOMKilled, message: "memory limit of 512Mi exceeded: \"app\" killed"}
  - remove: app
  - stop-pod: web
  - remove-pod: web
  - stop: side
  - remove: side
  - stop-pod: host
`;

/**
 * Sends each generated request through the logger's every handler, each
 * with a deadline of its own: one deadline for all 601 would leave the last
 * ones what the others left of it (our logger takes 5-8 s for them at load 12).
 */
async function sendAll(runtime: ScriptedRuntime, rounds: readonly Round[]): Promise<void> {
  const call = () => ({ deadline: Date.now() + 20_000 });
  for (const { pod, container, resources, overhead, request, pods, containers } of rounds) {
    await runtime.plugin.synchronize({ pods, containers }, call());
    for (const event of [
      Event.RUN_POD_SANDBOX,
      Event.POST_UPDATE_POD_SANDBOX,
      Event.STOP_POD_SANDBOX,
      Event.REMOVE_POD_SANDBOX,
    ]) {
      await runtime.plugin.stateChange({ event, pod }, call());
    }
    await runtime.plugin.updatePodSandbox({ pod, overheadLinuxResources: overhead, linuxResources: resources }, call());
    await runtime.plugin.createContainer({ pod, container }, call());
    for (const event of [
      Event.POST_CREATE_CONTAINER,
      Event.START_CONTAINER,
      Event.POST_START_CONTAINER,
      Event.POST_UPDATE_CONTAINER,
      Event.REMOVE_CONTAINER,
    ]) {
      await runtime.plugin.stateChange({ event, pod, container }, call());
    }
    await runtime.plugin.updateContainer({ pod, container, linuxResources: resources }, call());
    await runtime.plugin.stopContainer({ pod, container }, call());
    await runtime.plugin.validateContainerAdjustment(request, call());
  }
  await runtime.plugin.shutdown({}, call());
}

interface Round {
  pod: PodSandbox;
  container: Container;
  resources?: LinuxResources;
  overhead?: LinuxResources;
  request: ValidateContainerAdjustmentRequest;
  pods: PodSandbox[];
  containers: Container[];
}

/** Rounds of generated messages: variants of the golden vectors' full messages, with awkward text. */
function rounds(count: number, seed: number): Round[] {
  // No runes go-yaml refuses in most of them: a refused rune turns a whole dump into one error line.
  const texts = fc.sample(awkwardText({ refused: false }), { numRuns: 3000, seed });
  const refused = fc.sample(awkwardText(), { numRuns: 300, seed: seed + 1 });
  const pods = messageVariants(PodSandbox, fullPod(), count * 2, seed, texts);
  const containers = messageVariants(Container, fullContainer(), count * 2, seed + 2, texts);
  const resources = messageVariants(LinuxResources, fullResources(), count * 2, seed + 3, texts);
  const requests = messageVariants(ValidateContainerAdjustmentRequest, validateRequest(), count, seed + 4, [
    ...texts,
    ...refused,
  ]);
  const statusOnly = messageVariants(Container, statusOnlyContainer(), count, seed + 5, texts);
  return Array.from({ length: count }, (_, i) => ({
    pod: pods[2 * i],
    container: containers[2 * i],
    resources: i % 5 === 4 ? undefined : resources[2 * i],
    overhead: i % 3 === 2 ? undefined : resources[2 * i + 1],
    request: requests[i],
    pods: i % 4 === 0 ? [] : [pods[2 * i + 1], PodSandbox.fromPartial({})],
    containers: i % 4 === 1 ? [] : [containers[2 * i + 1], statusOnly[i]],
  }));
}

describeWithGo("logger: ours and Go's, line for line", () => {
  let goBin: string;
  let dir: string;

  beforeAll(async () => {
    goBin = await goCommand("plugin-logger");
    dir = await mkdtemp(join(tmpdir(), "nri-logger-conformance-"));
  }, 180_000);

  afterAll(() => rm(dir, { recursive: true, force: true }));

  it("log the same lines through the same pod lifecycles under nri-sim", async () => {
    const runWith = async (command: readonly string[]) => {
      let plugin: ReturnType<typeof start> | undefined;
      const report = await simulate(SCENARIO, {
        waitPlugins: 1,
        clock: "virtual",
        observer: { listening: (socket) => (plugin = start(command, socket)) },
      });
      const code = await plugin?.exited;
      return { report, code, ...session(withoutPid(pluginLines(plugin?.stderr() ?? ""))) };
    };
    const [go, ts] = [await runWith([goBin]), await runWith(ourLogger)];
    expect(go.report.failures).toEqual([]);
    expect(ts.report.failures).toEqual([]);
    expect(ts.lines).toEqual(go.lines);
    expect(isGoEnding(go.ending, RUN_FAILED), go.ending.join("\n")).toBe(true);
    expect(ts.ending).toEqual([LOST]);
    expect([go.code, ts.code]).toEqual([1, 1]);

    // What the comparison covered: some of the lines, as Go logs them.
    expect(go.lines.length).toBeGreaterThan(1500);
    expect(go.lines).toEqual(
      expect.arrayContaining([
        // biome-ignore-start lint/complexity/noUselessStringRaw: every line as Go logs it, backslashes or not
        String.raw`level=info msg="Synchronize:    null"`,
        String.raw`level=info msg="RunPodSandbox:      appVersion: \"1.0\""`,
        String.raw`level=info msg="RunPodSandbox:      \"yes\": \"no\""`,
        String.raw`level=info msg="RunPodSandbox:      empty: \"\""`,
        String.raw`level=info msg="RunPodSandbox:      quoted: '\"quoted\" and ''single'''"`,
        String.raw`level=info msg="RunPodSandbox:      time: \"2026-01-15T10:00:00Z\""`,
        String.raw`level=info msg="RunPodSandbox:      unicode: \"ünïcödé \\U0001F600 中文\""`,
        String.raw`level=info msg="RunPodSandbox:      multi-keep: |+"`,
        String.raw`level=info msg="RunPodSandbox:        so that go-yaml wraps it"`,
        String.raw`level=info msg="ValidateContainerAdjustment:        -example.com/set: \"\""`,
        String.raw`level=info msg="ValidateContainerAdjustment:      hooks: {}"`,
        String.raw`level=info msg="UpdatePodSandbox: overHeadResources:"`,
        String.raw`level=info msg="StopContainer:    exit_code: 137"`,
        // biome-ignore-end lint/complexity/noUselessStringRaw: every line as Go logs it
      ]),
    );
  }, 120_000);

  it("log the same lines for generated messages of every field, in every request", async () => {
    const generated = rounds(40, 20261208);
    const runWith = async (command: readonly string[]) => {
      const socket = join(await mkdtemp(join(dir, "rt-")), "nri.sock");
      const listener = await ScriptedRuntimeListener.listen(socket);
      const plugin = start(command, socket);
      const runtime = await listener.next();
      await runtime.handshake();
      await sendAll(runtime, generated);
      runtime.close();
      listener.close();
      await plugin.exited;
      return session(withoutPid(pluginLines(plugin.stderr()))).lines;
    };
    const [go, ts] = [await runWith([goBin]), await runWith(ourLogger)];
    const firstDifference = go.findIndex((line, i) => ts[i] !== line);
    expect(
      firstDifference === -1
        ? undefined
        : {
            at: firstDifference,
            go: go.slice(firstDifference, firstDifference + 3),
            ts: ts.slice(firstDifference, firstDifference + 3),
          },
    ).toBeUndefined();
    expect(ts.length).toBe(go.length);

    // What the comparison covered.
    expect(go.length).toBeGreaterThan(20_000);
    expect(go.filter((line) => line.includes("failed to dump object")).length).toBeGreaterThan(3);
    expect(go.filter((line) => line.endsWith(': {}"')).length).toBeGreaterThan(20);
    expect(go.filter((line) => /: \|[-+2]*"$/.test(line)).length).toBeGreaterThan(20);
  }, 300_000);
});
