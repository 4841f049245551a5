// Soak: many container lifecycles through one Adaptation, with three plugin
// programs on @nri-ts/stub in processes of their own, connected over the
// socket as external plugins:
//
//   10-ulimit-adjuster  adjusting: rlimits from the pod's annotation
//                       (@nri-ts/plugin-ulimit-adjuster's program)
//   50-logger           logging every event and validation, to /dev/null
//                       (@nri-ts/plugin-logger's program)
//   90-soak-validator   validating: rejects an open-file hard limit above
//                       2^20 (bench/soak-validator.ts)
//
// Each lifecycle: RunPodSandbox, CreateContainer, PostCreateContainer,
// StartContainer, PostStartContainer, StopContainer, RemoveContainer,
// StopPodSandbox, RemovePodSandbox, with the container's status filled in
// as it goes. Every 100th pod asks for too many open files: the validator
// rejects the creation, and the pod is stopped and removed. The bench checks
// every answer (the rlimits applied, the rejection's text) and fails on any
// surprise, so that it never reports a soak it did not run.
//
// Every tenth of the run it records, after a full garbage collection, the
// RSS and V8 heap in use of the runtime (this process) and of each plugin
// process (bench/soak-gauge.ts, loaded into them, answers on the IPC
// channel); beside the runtime's RSS, V8's committed heap by space, external
// memory and array buffers, so that a rise of the RSS can be told apart:
// V8 sizing its young generation (new_space) against memory held (heap in
// use, or the RSS outside V8's heap). The first 10,000 are the warm-up (half of a shorter run); the verdict is whether, from
// then on, the runtime's RSS and each plugin's heap in use stayed within 10%
// of their values at the end of the warm-up (a plugin's RSS is printed, but
// swings too much with V8's committed pages to tell a leak). The peaks go
// to BENCHMARKS.md (@nri-ts/bench), the ones judged with the target "<= 10 %".
//
//   npm run bench:soak                       (from packages/adaptation)
//   SOAK_LIFECYCLES=20000 npm run bench:soak
//   NRI_BENCH_SMOKE=1 npm run bench:soak     (2,000 lifecycles, as CI's npm run bench: proves it runs; no verdict)
import { type ChildProcess, spawn } from "node:child_process";
import { mkdtemp, rm } from "node:fs/promises";
import { cpus, loadavg, tmpdir } from "node:os";
import { join } from "node:path";
import { setTimeout as sleep } from "node:timers/promises";
import { fileURLToPath } from "node:url";
import { getHeapSpaceStatistics } from "node:v8";
import {
  Container,
  ContainerState,
  CreateContainerRequest,
  type DeepPartial,
  PodSandbox,
  type POSIXRlimit,
} from "@nri-ts/api";
import { type BenchResult, met, recordResults, result, smoke } from "@nri-ts/bench";
import { Adaptation } from "../src/index.js";

const LIFECYCLES = Number(process.env.SOAK_LIFECYCLES ?? (smoke ? 2_000 : 100_000));
const SAMPLES = 10;
const TARGET = "<= 10 %";
const REJECT_EVERY = 100;
const CONNECT_TIMEOUT_MS = 120_000;

const source = (path: string) => fileURLToPath(new URL(path, import.meta.url));
const GAUGE = source("./soak-gauge.ts");
const PLUGINS = [
  {
    fullName: "10-ulimit-adjuster",
    program: source("../../plugins/ulimit-adjuster/src/main.ts"),
    args: ["-idx", "10", "-socket"],
  },
  {
    fullName: "50-logger",
    program: source("../../plugins/logger/src/main.ts"),
    args: ["-idx", "50", "-log-file", "/dev/null", "-socket-path"],
  },
  { fullName: "90-soak-validator", program: source("./soak-validator.ts"), args: [] },
];

interface PluginProcess {
  fullName: string;
  child: ChildProcess;
  stderr: string[];
}

interface Sample {
  lifecycles: number;
  runtime: RuntimeMemory;
  plugins: Memory[];
}

const nofile = (i: number): POSIXRlimit => ({
  type: "RLIMIT_NOFILE",
  soft: 1024n,
  hard: i % REJECT_EVERY === REJECT_EVERY - 1 ? 2_097_152n : 4096n + BigInt(i % 7),
});

function podOf(i: number, limit: POSIXRlimit): PodSandbox {
  return PodSandbox.fromPartial({
    id: `pod-${i}`,
    name: `soak-${i}`,
    uid: `uid-${i}`,
    namespace: "soak",
    labels: { app: "soak", "pod-template-hash": String(i % 13) },
    annotations: {
      "ulimits.noderesource.dev/container.app": `- type: ${limit.type}\n  soft: ${limit.soft}\n  hard: ${limit.hard}\n`,
    },
    linux: { cgroupParent: `/kubepods/pod-${i}`, namespaces: [{ type: "network", path: `/run/netns/pod-${i}` }] },
  });
}

function containerOf(i: number, state: ContainerState, times: DeepPartial<Container> = {}): Container {
  return Container.fromPartial({
    id: `ctr-${i}`,
    podSandboxId: `pod-${i}`,
    name: "app",
    state,
    args: ["/bin/sh", "-c", "sleep 1000"],
    env: ["PATH=/usr/bin:/bin", `POD_INDEX=${i}`],
    mounts: [{ destination: "/etc/hosts", source: `/var/lib/pods/${i}/hosts`, type: "bind", options: ["rbind", "ro"] }],
    linux: { namespaces: [{ type: "network", path: `/run/netns/pod-${i}` }, { type: "mount" }] },
    ...times,
  });
}

function fail(message: string): never {
  throw new Error(`soak: ${message}`);
}

/** One lifecycle; resolves to whether the creation was (rightly) rejected. */
async function lifecycle(nri: Adaptation, i: number): Promise<boolean> {
  const limit = nofile(i);
  const pod = podOf(i, limit);
  await nri.runPodSandbox({ pod });
  const createdAt = BigInt(Date.now()) * 1_000_000n;
  const request = CreateContainerRequest.fromPartial({
    pod,
    container: containerOf(i, ContainerState.CONTAINER_CREATED),
  });
  let rejected = false;
  try {
    const { adjust } = await nri.createContainer(request);
    const got = adjust?.rlimits ?? [];
    if (got.length !== 1 || got[0]!.type !== limit.type || got[0]!.soft !== limit.soft || got[0]!.hard !== limit.hard) {
      fail(`lifecycle ${i}: rlimits ${JSON.stringify(got, (_, v) => (typeof v === "bigint" ? String(v) : v))}`);
    }
  } catch (error) {
    const expected = `RLIMIT_NOFILE hard limit ${limit.hard} (set by 10-ulimit-adjuster) is above 1048576`;
    if (limit.hard <= 1_048_576n || !(error instanceof Error) || !error.message.includes(expected)) throw error;
    rejected = true;
  }
  if (!rejected) {
    const container = (state: ContainerState, times: DeepPartial<Container> = {}) => ({
      pod,
      container: containerOf(i, state, { createdAt, ...times }),
    });
    await nri.postCreateContainer(container(ContainerState.CONTAINER_CREATED));
    const startedAt = createdAt + 1_000_000n;
    await nri.startContainer(container(ContainerState.CONTAINER_CREATED));
    await nri.postStartContainer(container(ContainerState.CONTAINER_RUNNING, { startedAt }));
    const finished = { startedAt, finishedAt: startedAt + 5_000_000n, exitCode: 0, statusReason: "Completed" };
    await nri.stopContainer(container(ContainerState.CONTAINER_STOPPED, finished));
    await nri.removeContainer(container(ContainerState.CONTAINER_STOPPED, finished));
  }
  await nri.stopPodSandbox({ pod });
  await nri.removePodSandbox({ pod });
  return rejected;
}

interface Memory {
  rssKiB: number;
  heapKiB: number;
}

/** Where the runtime's RSS is: V8's committed heap by space, and what V8 counts outside it. */
interface RuntimeMemory extends Memory {
  heapTotalKiB: number;
  externalKiB: number;
  arrayBuffersKiB: number;
  /** Committed KiB of each V8 heap space (new_space, old_space, code_space, ...). */
  spaces: Record<string, number>;
}

const kib = (bytes: number) => Math.round(bytes / 1024);

/** The V8 heap spaces shown beside the runtime's RSS: the others stay near zero. */
const SPACES = ["new_space", "old_space", "code_space", "large_object_space"] as const;

/** A plugin process's memory after a full garbage collection, from bench/soak-gauge.ts in it. */
function pluginMemory({ child, fullName }: PluginProcess): Promise<Memory> {
  return new Promise((resolve, reject) => {
    const answer = (message: { rss: number; heapUsed: number }) => {
      child.off("exit", gone);
      resolve({ rssKiB: kib(message.rss), heapKiB: kib(message.heapUsed) });
    };
    const gone = () => reject(new Error(`soak: ${fullName} ended while being sampled`));
    child.once("message", answer).once("exit", gone);
    child.send("sample");
  });
}

async function sample(lifecycles: number, plugins: PluginProcess[]): Promise<Sample> {
  globalThis.gc!();
  const { rss, heapUsed, heapTotal, external, arrayBuffers } = process.memoryUsage();
  const spaces = Object.fromEntries(getHeapSpaceStatistics().map((space) => [space.space_name, kib(space.space_size)]));
  const runtime = {
    rssKiB: kib(rss),
    heapKiB: kib(heapUsed),
    heapTotalKiB: kib(heapTotal),
    externalKiB: kib(external),
    arrayBuffersKiB: kib(arrayBuffers),
    spaces,
  };
  return { lifecycles, runtime, plugins: await Promise.all(plugins.map(pluginMemory)) };
}

function startPlugin(socketPath: string, spec: (typeof PLUGINS)[number]): PluginProcess {
  const node = [
    "--expose-gc",
    "--conditions=@nri-ts/source",
    "--import",
    import.meta.resolve("tsx"),
    "--import",
    GAUGE,
  ];
  const child = spawn(process.execPath, [...node, spec.program, ...spec.args, socketPath], {
    stdio: ["ignore", "ignore", "pipe", "ipc"],
  });
  const stderr: string[] = [];
  child.stderr!.setEncoding("utf8").on("data", (chunk: string) => {
    stderr.push(...chunk.split("\n").filter(Boolean));
    stderr.splice(0, stderr.length - 20);
  });
  return { fullName: spec.fullName, child, stderr };
}

function lostPlugin(plugins: PluginProcess[], nri: Adaptation): string | undefined {
  for (const plugin of plugins) {
    if (plugin.child.exitCode !== null || plugin.child.signalCode !== null) {
      return `${plugin.fullName} ended (${plugin.child.exitCode ?? plugin.child.signalCode}): ${plugin.stderr.join("\n")}`;
    }
  }
  const connected = nri.plugins.map((p) => p.fullName);
  const missing = plugins.filter((p) => !connected.includes(p.fullName)).map((p) => p.fullName);
  return missing.length ? `not connected: ${missing.join(", ")}` : undefined;
}

async function waitForPlugins(plugins: PluginProcess[], nri: Adaptation): Promise<void> {
  const deadline = Date.now() + CONNECT_TIMEOUT_MS;
  for (;;) {
    const problem = lostPlugin(plugins, nri);
    if (!problem) return;
    if (problem.startsWith("not connected") ? Date.now() > deadline : true) fail(problem);
    await sleep(100);
  }
}

const mib = (kib: number) => (kib / 1024).toFixed(1);
const percent = (fraction: number) => `${fraction < 0 ? "" : "+"}${(fraction * 100).toFixed(1)}%`;

/**
 * The warm-up: 10,000 lifecycles (RSS rises until about then, as code is
 * compiled and the allocator settles), or half of a shorter run.
 */
const WARM_UP = Math.min(10_000, LIFECYCLES / 2);

/** The peak of a series after the warm-up, relative to its value at the end of the warm-up. */
function growth(lifecycles: number[], series: number[]): number {
  const start = lifecycles.findIndex((n) => n >= WARM_UP);
  const [base, ...rest] = series.slice(start);
  return Math.max(...rest) / base! - 1;
}

/**
 * Where the runtime's RSS went from the end of the warm-up to its peak: V8's
 * committed heap space by space, and the rest of the process (code, malloc,
 * Node.js). Undefined when it did not grow.
 */
function rssGrowth(samples: Sample[]): string | undefined {
  const start = samples.findIndex((s) => s.lifecycles >= WARM_UP);
  const base = samples[start]!.runtime;
  const peak = samples
    .slice(start + 1)
    .reduce<Sample | undefined>((top, s) => (!top || s.runtime.rssKiB > top.runtime.rssKiB ? s : top), undefined);
  if (!peak || peak.runtime.rssKiB <= base.rssKiB) return undefined;
  const delta = (now: number, then: number) => `${now >= then ? "+" : ""}${mib(now - then)}`;
  const spaces = SPACES.map((space) => `${space} ${delta(peak.runtime.spaces[space] ?? 0, base.spaces[space] ?? 0)}`);
  const outside = delta(peak.runtime.rssKiB - peak.runtime.heapTotalKiB, base.rssKiB - base.heapTotalKiB);
  return (
    `its peak (${peak.lifecycles.toLocaleString("en")} lifecycles) is ${delta(peak.runtime.rssKiB, base.rssKiB)} MiB: ` +
    `V8's committed heap ${delta(peak.runtime.heapTotalKiB, base.heapTotalKiB)} (${spaces.join(", ")}), the rest of the process ${outside}; ` +
    `heap in use ${delta(peak.runtime.heapKiB, base.heapKiB)}`
  );
}

function report(samples: Sample[], plugins: PluginProcess[], seconds: number, rejected: number): BenchResult[] {
  const names = plugins.map((p) => p.fullName);
  const row = (...cells: string[]) => console.log(`| ${cells.join(" | ")} |`);
  row("lifecycles", "runtime RSS", "runtime heap used", ...names.map((n) => `${n} RSS / heap used`));
  row("--:", "--:", "--:", ...names.map(() => "--:"));
  for (const s of samples) {
    row(
      s.lifecycles.toLocaleString("en"),
      mib(s.runtime.rssKiB),
      mib(s.runtime.heapKiB),
      ...s.plugins.map((p) => `${mib(p.rssKiB)} / ${mib(p.heapKiB)}`),
    );
  }
  console.log("\nThe runtime's RSS beside V8's committed heap, by space (MiB, the same samples):\n");
  row("lifecycles", "RSS", "V8 heap committed", ...SPACES, "external", "array buffers", "RSS outside V8's heap");
  row("--:", "--:", "--:", ...SPACES.map(() => "--:"), "--:", "--:", "--:");
  for (const { lifecycles, runtime: r } of samples) {
    const spaces = SPACES.map((space) => mib(r.spaces[space] ?? 0));
    row(
      lifecycles.toLocaleString("en"),
      mib(r.rssKiB),
      mib(r.heapTotalKiB),
      ...spaces,
      mib(r.externalKiB),
      mib(r.arrayBuffersKiB),
      mib(r.rssKiB - r.heapTotalKiB),
    );
  }
  console.log(
    `\nMiB, after a full garbage collection. ${LIFECYCLES.toLocaleString("en")} lifecycles (${rejected} rejected by the validator) ` +
      `in ${seconds.toFixed(0)} s, ${((seconds * 1e6) / LIFECYCLES).toFixed(0)} µs each; load average ` +
      `${loadavg()
        .map((l) => l.toFixed(2))
        .join(" ")}, ${cpus().length} cores, Node ${process.version}`,
  );
  // The runtime's RSS holds steady after a full collection; a Node plugin's swings by a third either way
  // with the pages V8 keeps committed, so for the plugins the heap in use tells a leak.
  const counts = samples.map((s) => s.lifecycles);
  const warmedUp = counts.find((n) => n >= WARM_UP)!;
  const note = `peak after ${warmedUp.toLocaleString("en")} lifecycles of warm-up, over its value then; ${LIFECYCLES.toLocaleString("en")} lifecycles`;
  const peak = (what: string, values: number[], target: string | null) =>
    result({ group: "soak", what, ours: growth(counts, values) * 100, go: null, unit: "%", target, note });
  const runtimeRss = peak(
    "runtime RSS",
    samples.map((s) => s.runtime.rssKiB),
    TARGET,
  );
  const growthOfRss = rssGrowth(samples);
  if (growthOfRss) runtimeRss.note += `; ${growthOfRss}`;
  const results = [
    runtimeRss,
    peak(
      "runtime heap used",
      samples.map((s) => s.runtime.heapKiB),
      null,
    ),
    peak(
      "runtime V8 heap committed",
      samples.map((s) => s.runtime.heapTotalKiB),
      null,
    ),
    peak(
      "runtime RSS outside V8's heap",
      samples.map((s) => s.runtime.rssKiB - s.runtime.heapTotalKiB),
      null,
    ),
    ...names.map((name, i) =>
      peak(
        `${name} heap used`,
        samples.map((s) => s.plugins[i]!.heapKiB),
        TARGET,
      ),
    ),
    ...names.map((name, i) =>
      peak(
        `${name} RSS`,
        samples.map((s) => s.plugins[i]!.rssKiB),
        null,
      ),
    ),
  ];
  for (const r of results) {
    const judged = smoke ? null : met(r);
    const verdict = judged === null ? "" : judged ? " (flat within 10%)" : " (GREW by more than 10%)";
    console.log(`${r.what}: after the warm-up, peaked at ${percent(r.ours / 100)}${verdict}`);
  }
  if (growthOfRss) console.log(`runtime RSS: ${growthOfRss} (MiB)`);
  return results;
}

async function main(): Promise<void> {
  if (!globalThis.gc) fail("run it with node --expose-gc, as npm run bench:soak does");
  const dir = await mkdtemp(join(tmpdir(), "nri-soak-"));
  const socketPath = join(dir, "nri.sock");
  const nri = new Adaptation(
    "soak-runtime",
    "0.0.1",
    async (synchronize) => void (await synchronize([], [])),
    async () => [],
    {
      socketPath,
      pluginPath: join(dir, "plugins"),
      pluginConfigPath: join(dir, "conf.d"),
      // a soak, not a test of deadlines: a busy machine must not drop a plugin
      registrationTimeoutMs: 60_000,
      requestTimeoutMs: 60_000,
    },
  );
  await nri.start();
  const plugins = PLUGINS.map((spec) => startPlugin(socketPath, spec));
  try {
    await waitForPlugins(plugins, nri);
    const every = Math.max(1, Math.floor(LIFECYCLES / SAMPLES));
    const samples = [await sample(0, plugins)];
    let rejected = 0;
    const started = performance.now();
    for (let i = 0; i < LIFECYCLES; i++) {
      if (await lifecycle(nri, i)) rejected++;
      if ((i + 1) % every === 0 || i + 1 === LIFECYCLES) {
        const problem = lostPlugin(plugins, nri);
        if (problem) fail(`after ${i + 1} lifecycles: ${problem}`);
        samples.push(await sample(i + 1, plugins));
        if (smoke) continue;
        process.stderr.write(`${i + 1} lifecycles, ${((performance.now() - started) / 1000).toFixed(0)} s\n`);
      }
    }
    const seconds = (performance.now() - started) / 1000;
    const expectedRejections = Math.floor(LIFECYCLES / REJECT_EVERY);
    if (rejected !== expectedRejections) fail(`${rejected} creations rejected, expected ${expectedRejections}`);
    recordResults(report(samples, plugins, seconds, rejected));
    if (smoke) console.log("(smoke run: too short for a verdict)");
  } finally {
    await nri.stop();
    for (const { child } of plugins) if (child.exitCode === null && child.signalCode === null) child.kill("SIGKILL");
    await rm(dir, { recursive: true, force: true });
  }
}

await main();
