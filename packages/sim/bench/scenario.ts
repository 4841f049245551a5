// nri-sim on a long scenario: 1,000 steps (100 pods, each run, two
// containers created, started, updated, stopped and removed, the pod
// removed) through two in-process plugins, one adjusting every new
// container (env, an annotation), one setting its memory limit and
// answering updates. It reports the wall time, the time per step, and a CPU
// profile of the run by where the time goes (which package, Node itself,
// the garbage collector), recorded for BENCHMARKS.md (@nri-ts/bench). Go
// has no nri-sim: there is no Go column.
//
//   npm run bench                     (from packages/sim)
//   NRI_BENCH_SMOKE=1 npm run bench   (20 steps: proves the bench works)
import { Session } from "node:inspector/promises";
import { type BenchResult, recordResults, result, smoke } from "@nri-ts/bench";
import type { Plugin } from "@nri-ts/stub";
import { simulate } from "@nri-ts/sim";

const PODS = smoke ? 2 : 100;
const STEPS_PER_POD = 10;

const adjuster: Plugin = {
  createContainer: (_pod, container) => ({
    env: [{ key: "ADJUSTED_BY", value: "10-adjuster" }],
    annotations: { "bench.example.com/seen": container.name },
  }),
};
const limits: Plugin = {
  createContainer: () => ({ linux: { resources: { memory: { limit: { value: 512n * 1024n * 1024n } } } } }),
  updateContainer: () => undefined,
};

function scenario(): object {
  const pods = Array.from({ length: PODS }, (_, i) => ({ name: `pod${i}`, labels: { app: "bench" } }));
  const containers = pods.flatMap((pod) =>
    ["a", "b"].map((name) => ({
      name: `${pod.name}-${name}`,
      pod: pod.name,
      args: ["/bin/app"],
      env: { PORT: "8080" },
    })),
  );
  const steps = pods.flatMap(({ name: pod }) => [
    { "run-pod": pod },
    { create: `${pod}-a` },
    { start: `${pod}-a` },
    { create: `${pod}-b` },
    { start: `${pod}-b` },
    { update: { container: `${pod}-a`, resources: { memory: { limit: "1Gi" } } } },
    { stop: `${pod}-a` },
    { remove: `${pod}-a` },
    { remove: `${pod}-b` },
    { "remove-pod": pod },
  ]);
  return { name: "bench", pods, containers, steps };
}

/** Where a profile node's code lives: a workspace package, a dependency, Node itself, or V8's own work. */
function placeOf(url: string, functionName: string): string {
  if (url === "")
    return functionName === "(garbage collector)"
      ? "garbage collector"
      : functionName === "(idle)"
        ? "idle (waiting)"
        : "V8 and native code";
  const workspace = /\/packages\/(?:plugins\/)?([^/]+)\/(?:src|dist|bench)\//.exec(url);
  if (workspace) return `@nri-ts/${workspace[1]}`;
  const dependency = /\/node_modules\/((?:@[^/]+\/)?[^/]+)\//.exec(url);
  if (dependency) return dependency[1]!;
  return url.startsWith("node:") ? "Node.js (streams, sockets, timers)" : url;
}

interface Profile {
  nodes: Array<{ id: number; callFrame: { functionName: string; url: string; lineNumber: number } }>;
  samples: number[];
  timeDeltas: number[];
}

/** A function of the profile by its package, name and line. */
function functionOf({ url, functionName, lineNumber }: Profile["nodes"][number]["callFrame"]): string {
  if (url === "") return `(${functionName.replace(/^\(|\)$/g, "")})`;
  const file = url.slice(url.lastIndexOf("/") + 1);
  return `${placeOf(url, functionName)}: ${functionName || "(anonymous)"} (${file}:${lineNumber + 1})`;
}

/** Self time by `key` of each sample's function, in ms, largest first. */
function selfTime(
  profile: Profile,
  key: (frame: Profile["nodes"][number]["callFrame"]) => string,
): Array<[string, number]> {
  const place = new Map(profile.nodes.map((node) => [node.id, key(node.callFrame)]));
  const totals = new Map<string, number>();
  profile.samples.forEach((id, i) => {
    const where = place.get(id)!;
    totals.set(where, (totals.get(where) ?? 0) + profile.timeDeltas[i]! / 1000);
  });
  return [...totals].sort((a, b) => b[1] - a[1]);
}

async function run(): Promise<{ ms: number; steps: number; ok: boolean; failures: string[] }> {
  const started = performance.now();
  const report = await simulate(scenario(), {
    plugins: [
      { plugin: adjuster, index: "10", name: "adjuster" },
      { plugin: limits, index: "20", name: "limits" },
    ],
    clock: "virtual",
  });
  return { ms: performance.now() - started, steps: report.steps.length, ok: report.ok, failures: report.failures };
}

async function main(): Promise<void> {
  await run(); // warm-up: a runtime has been running for a while
  const session = new Session();
  session.connect();
  await session.post("Profiler.enable");
  await session.post("Profiler.setSamplingInterval", { interval: 200 });
  await session.post("Profiler.start");
  const cpu = process.cpuUsage();
  const measured = await run();
  const { user, system } = process.cpuUsage(cpu);
  const { profile } = (await session.post("Profiler.stop")) as { profile: Profile };
  session.disconnect();
  if (!measured.ok || measured.steps !== PODS * STEPS_PER_POD) {
    throw new Error(`the scenario did not pass (${measured.steps} steps): ${measured.failures.slice(0, 3).join("; ")}`);
  }
  const cpuMs = (user + system) / 1000;
  const places = selfTime(profile, (frame) => placeOf(frame.url, frame.functionName));
  const hottest = selfTime(profile, functionOf).filter(([name]) => !name.startsWith("("));
  const sampled = places.reduce((sum, [, ms]) => sum + ms, 0);
  const note = `${measured.steps} steps, 2 in-process plugins over the NRI protocol, virtual clock, after one warm-up run`;
  const results: BenchResult[] = [
    result({
      group: "nri-sim",
      what: `${measured.steps}-step scenario, two plugins: wall time`,
      ours: measured.ms,
      go: null,
      unit: "ms",
      target: null,
      note,
    }),
    result({
      group: "nri-sim",
      what: "the same, per step",
      ours: (measured.ms / measured.steps) * 1000,
      go: null,
      unit: "µs",
      target: null,
      note,
    }),
    result({
      group: "nri-sim",
      what: "the same, process CPU time",
      ours: cpuMs,
      go: null,
      unit: "ms",
      target: null,
      note: "all threads, garbage collection included",
    }),
    ...places.slice(0, 10).map(([where, ms]) =>
      result({
        group: "nri-sim: where the time goes",
        what: where,
        ours: (ms / sampled) * 100,
        go: null,
        unit: "% of samples",
        target: null,
        note: `${ms.toFixed(0)} ms self time in the CPU profile of the measured run`,
      }),
    ),
    ...hottest.slice(0, 8).map(([what, ms]) =>
      result({
        group: "nri-sim: hottest functions",
        what,
        ours: (ms / sampled) * 100,
        go: null,
        unit: "% of samples",
        target: null,
        note: `${ms.toFixed(0)} ms self time`,
      }),
    ),
  ];
  console.log(
    `${measured.steps} steps in ${measured.ms.toFixed(0)} ms (${((measured.ms / measured.steps) * 1000).toFixed(0)} µs a step), CPU ${cpuMs.toFixed(0)} ms`,
  );
  for (const [where, ms] of [...places.slice(0, 10), ...hottest.slice(0, 8)])
    console.log(`  ${((ms / sampled) * 100).toFixed(1).padStart(5)}%  ${where}`);
  recordResults(results);
}

await main();
