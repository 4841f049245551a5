// CreateContainer through 1, 5 and 10 plugins, measured in one run on three
// sides: our merge engine alone (CreateContainerResult), our Adaptation with
// builtin (in-process) plugins, and the upstream Go adaptation (v0.12.2) with
// builtin plugins, timed inside cmd/merge-oracle of packages/conformance
// (`-bench N`). Every side decodes the request and each plugin's response
// from protobuf bytes on every call, as a runtime and a plugin would; no
// validators. Rounds alternate between the sides so that all meet the same
// load; each cell is the fastest round. Two tables: wall-clock time per call,
// and the process's CPU time per call (all threads, garbage collection
// included), which other load on the machine disturbs less.
//
// Plugin answers:
//   no-op       an empty CreateContainerResponse
//   adjusting   annotations, a mount, env, a hook, a device, resources, a
//               sysctl and an update of another container, on keys of its own
//   conflicting as adjusting, but the last plugin also sets the first one's
//               env variable: the request fails with a conflict at the end
//
// It records the Adaptation and Go figures (CPU time) and the cost of one
// builtin plugin per call, the slope from 1 to 10 no-op plugins, for
// BENCHMARKS.md (@nri-ts/bench).
//
//   npm run bench            (from packages/adaptation; needs Go for the Go column)
//   BENCH_ROUNDS=5 npm run bench
//   NRI_BENCH_SMOKE=1 npm run bench   (a short run that proves the bench works)
import { execFile } from "node:child_process";
import { mkdir, mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { promisify } from "node:util";
import { CreateContainerRequest, CreateContainerResponse } from "@nri-ts/api";
import { type BenchResult, recordResults, result, smoke } from "@nri-ts/bench";
import { registerTracing } from "@nri-ts/bench/tracing-sdk";
import { Adaptation, type BuiltinPlugin, CreateContainerResult } from "../src/index.js";

const run = promisify(execFile);
const here = dirname(fileURLToPath(import.meta.url));
const conformanceDir = join(here, "../../conformance");
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? (smoke ? 1 : 5));
const PLUGIN_COUNTS = [1, 5, 10];
/** Calls per round: about the same work per cell whatever the plugin count. */
const callsFor = (plugins: number) => Math.round((smoke ? 200 : 20_000) / plugins);

type Answers = "no-op" | "adjusting" | "conflicting";

const requestBytes = CreateContainerRequest.encode(
  CreateContainerRequest.fromPartial({
    pod: { id: "pod0", name: "web", namespace: "default", uid: "uid0", annotations: { "example.com/team": "web" } },
    container: {
      id: "ctr0",
      podSandboxId: "pod0",
      name: "nginx",
      args: ["/bin/sh", "-c", "sleep 1000"],
      env: ["PATH=/usr/bin:/bin", "HOME=/root"],
      mounts: [{ destination: "/etc/hosts", source: "/var/lib/ctr0/hosts", type: "bind", options: ["rbind", "ro"] }],
      linux: {
        namespaces: [{ type: "network", path: "/run/netns/pod0" }, { type: "ipc" }, { type: "mount" }],
        resources: { cpu: { shares: { value: 1024n } }, memory: { limit: { value: 1n << 28n } } },
      },
    },
  }),
).finish();

const envKey = (i: number) => `P${i}_A`;

/** What plugin i of n answers. */
function answer(kind: Answers, i: number, n: number): CreateContainerResponse {
  if (kind === "no-op") return CreateContainerResponse.create();
  const p = `p${i}`;
  const env = [
    { key: envKey(i), value: "x" },
    { key: `P${i}_B`, value: "y" },
  ];
  if (kind === "conflicting" && i === n - 1) env.push({ key: envKey(0), value: "z" });
  return CreateContainerResponse.fromPartial({
    adjust: {
      annotations: { [`${p}.example.com/a`]: "1", [`${p}.example.com/b`]: "2" },
      mounts: [{ destination: `/mnt/${p}`, source: `/srv/${p}`, type: "bind", options: ["rbind", "ro"] }],
      env,
      hooks: { prestart: [{ path: `/usr/libexec/${p}-hook`, args: [`${p}-hook`, "prestart"] }] },
      linux: {
        devices: [{ path: `/dev/${p}`, type: "c", major: 10n, minor: BigInt(200 + i) }],
        resources:
          i === 0
            ? { cpu: { shares: { value: 512n }, cpus: "0-3" }, memory: { limit: { value: 1n << 30n } } }
            : { unified: { [`${p}.weight`]: "100" } },
        sysctl: { [`net.${p}.x`]: "1" },
      },
    },
    update: [{ containerId: `other-${i}`, linux: { resources: { cpu: { shares: { value: 2n } } } } }],
  });
}

interface Case {
  answers: Answers;
  plugins: Array<{ index: string; name: string; response: Uint8Array }>;
  calls: number;
}

function makeCase(answers: Answers, n: number): Case {
  const plugins = Array.from({ length: n }, (_, i) => ({
    index: String(i).padStart(2, "0"),
    name: `p${i}`,
    response: CreateContainerResponse.encode(answer(answers, i, n)).finish(),
  }));
  return { answers, plugins, calls: callsFor(n) };
}

/** How a side did on a case: wall-clock and CPU time per call, and the error text of the last call. */
interface Timing {
  nsPerOp: number;
  cpuNsPerOp: number;
  error?: string;
}

/** Times `calls` runs of `once`, after calls/10 warm-up runs. */
async function timeCalls(calls: number, once: () => unknown): Promise<Omit<Timing, "error">> {
  for (let i = 0; i < calls / 10; i++) await once();
  const cpu = process.cpuUsage();
  const start = process.hrtime.bigint();
  for (let i = 0; i < calls; i++) await once();
  const wall = Number(process.hrtime.bigint() - start);
  const { user, system } = process.cpuUsage(cpu);
  return { nsPerOp: wall / calls, cpuNsPerOp: ((user + system) * 1000) / calls };
}

function messageOf(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}

/** Our merge engine, fed the plugins' responses in order. */
async function timeEngine(c: Case): Promise<Timing> {
  let error: string | undefined;
  const once = () => {
    const result = new CreateContainerResult(CreateContainerRequest.decode(requestBytes));
    try {
      for (const plugin of c.plugins) {
        result.apply(CreateContainerResponse.decode(plugin.response), `${plugin.index}-${plugin.name}`);
      }
      result.response();
      error = undefined;
    } catch (failure) {
      error = messageOf(failure);
    }
  };
  return { ...(await timeCalls(c.calls, once)), error };
}

/**
 * Our Adaptation, hosting the plugins in-process; `traced`: with an
 * OpenTelemetry SDK registered (spans batched and dropped), so that every
 * request and plugin call makes a span.
 */
async function timeAdaptation(c: Case, emptyDir: string, traced = false): Promise<Timing> {
  const tracing = traced ? registerTracing() : undefined;
  const builtinPlugins: BuiltinPlugin[] = c.plugins.map((plugin) => ({
    index: plugin.index,
    name: plugin.name,
    handlers: { createContainer: () => CreateContainerResponse.decode(plugin.response) },
  }));
  const adaptation = new Adaptation(
    "bench",
    "v0.0.0",
    (synchronize) => synchronize([], []).then(() => undefined),
    async () => [],
    {
      pluginPath: emptyDir,
      pluginConfigPath: emptyDir,
      externalConnections: false,
      builtinPlugins,
    },
  );
  await adaptation.start();
  let error: string | undefined;
  const once = async () => {
    try {
      await adaptation.createContainer(CreateContainerRequest.decode(requestBytes));
      error = undefined;
    } catch (failure) {
      error = messageOf(failure);
    }
  };
  try {
    return { ...(await timeCalls(c.calls, once)), error };
  } finally {
    await adaptation.stop();
    await tracing?.stop();
  }
}

/** The Go adaptation, in cmd/merge-oracle. */
async function timeGo(c: Case, binary: string): Promise<Timing> {
  const scenario = {
    kind: "create",
    request: Buffer.from(requestBytes).toString("base64"),
    plugins: c.plugins.map((plugin) => ({ ...plugin, response: Buffer.from(plugin.response).toString("base64") })),
  };
  const child = run(binary, ["-bench", String(c.calls)]);
  child.child.stdin?.end(`${JSON.stringify(scenario)}\n`);
  const answer = JSON.parse((await child).stdout) as Timing & { fatal?: string };
  if (answer.fatal) throw new Error(`merge-oracle: ${answer.fatal}`);
  return answer;
}

/** Builds cmd/merge-oracle of packages/conformance; undefined (with a note) without Go. */
async function buildGo(dir: string): Promise<string | undefined> {
  const binary = join(dir, "merge-oracle");
  try {
    await run("go", ["build", "-o", binary, "./cmd/merge-oracle"], { cwd: conformanceDir });
    return binary;
  } catch (error) {
    console.log(`Go column skipped: ${messageOf(error).split("\n")[0]}`);
    return undefined;
  }
}

type Measure = "nsPerOp" | "cpuNsPerOp";
/** The fastest round's figure, in µs; undefined for a side that did not run. */
const fastest = (timings: Timing[], measure: Measure): number | undefined =>
  timings.length === 0 ? undefined : Math.min(...timings.map((t) => t[measure])) / 1000;
const us = (x: number | undefined) => (x === undefined ? "n/a" : x.toFixed(1));
const ratio = (ours: number | undefined, go: number | undefined) =>
  ours !== undefined && go !== undefined ? (ours / go).toFixed(2) : "n/a";

interface Row {
  answers: Answers;
  plugins: number;
  sides: [engine: Timing[], adaptation: Timing[], go: Timing[], traced: Timing[]];
}

function printTable(title: string, rows: Row[], measure: Measure): void {
  console.log(`\n${title}`);
  console.log(
    "| plugins answer | plugins | engine | Adaptation | Go adaptation | engine / Go | Adaptation / Go | Adaptation traced | traced / untraced |",
  );
  console.log("|---|--:|--:|--:|--:|--:|--:|--:|--:|");
  for (const { answers, plugins, sides } of rows) {
    const [e, a, g, t] = sides.map((timings) => fastest(timings, measure));
    console.log(
      `| ${answers} | ${plugins} | ${us(e)} | ${us(a)} | ${us(g)} | ${ratio(e, g)} | ${ratio(a, g)} | ${us(t)} | ${ratio(t, a)} |`,
    );
  }
}

/** The figures for BENCHMARKS.md: CPU time, as the tables' second one. */
function benchResults(rows: Row[]): BenchResult[] {
  const note = `process CPU per call, fastest of ${ROUNDS} rounds, no validators`;
  const cpu = (row: Row | undefined, side: 1 | 2 | 3) => (row ? fastest(row.sides[side], "cpuNsPerOp") : undefined);
  const results = rows.map((row) =>
    result({
      group: "adaptation, builtin plugins",
      what: `CreateContainer, ${row.plugins} ${row.answers} plugin${row.plugins === 1 ? "" : "s"}`,
      ours: cpu(row, 1)!,
      go: cpu(row, 2) ?? null,
      unit: "µs",
      target: null,
      note,
    }),
  );
  // What one more builtin plugin costs a call: the slope from 1 to 10 no-op plugins.
  const noop = (n: number) => rows.find((row) => row.answers === "no-op" && row.plugins === n);
  const slope = (side: 1 | 2) => {
    const [one, ten] = [cpu(noop(1), side), cpu(noop(10), side)];
    return one === undefined || ten === undefined ? null : (ten - one) / 9;
  };
  results.push(
    result({
      group: "adaptation, builtin plugins",
      what: "builtin plugin per call",
      ours: slope(1)!,
      go: slope(2),
      unit: "µs",
      target: "<= 1.5 µs",
      note: `(10 no-op plugins − 1) / 9; ${note}`,
    }),
  );
  // What tracing costs, an OpenTelemetry SDK registered: a span per request and per plugin call.
  for (const row of rows.filter((r) => r.answers === "no-op")) {
    const [traced, untraced] = [cpu(row, 3), cpu(row, 1)];
    results.push(
      result({
        group: "adaptation, builtin plugins",
        what: `CreateContainer, ${row.plugins} no-op plugin${row.plugins === 1 ? "" : "s"}, traced (an SDK registered)`,
        ours: traced!,
        go: cpu(row, 2) ?? null,
        unit: "µs",
        target: null,
        note: `${row.plugins + 1} spans per call (the request's, one per plugin call), batched and dropped; untraced ${us(untraced)} µs, so tracing adds ${us(traced! - untraced!)} µs a call; ${note}`,
      }),
    );
  }
  return results;
}

async function main(): Promise<void> {
  const work = await mkdtemp(join(tmpdir(), "nri-ts-merge-bench-"));
  try {
    const goBinary = await buildGo(work);
    const noPlugins = join(work, "no-plugins");
    await mkdir(noPlugins);
    const rows: Row[] = [];
    for (const answers of ["no-op", "adjusting", "conflicting"] as const) {
      for (const n of PLUGIN_COUNTS) {
        const c = makeCase(answers, n);
        const engine: Timing[] = [];
        const adaptation: Timing[] = [];
        const go: Timing[] = [];
        const traced: Timing[] = [];
        for (let round = 0; round < ROUNDS; round++) {
          engine.push(await timeEngine(c));
          adaptation.push(await timeAdaptation(c, noPlugins));
          if (goBinary) go.push(await timeGo(c, goBinary));
          traced.push(await timeAdaptation(c, noPlugins, true));
        }
        // All sides must have decided alike, or the figures compare different work.
        const errors = new Set([...engine, ...adaptation, ...go, ...traced].map((t) => t.error ?? "ok"));
        if (errors.size > 1) console.log(`note: the sides disagree on ${answers}/${n}: ${[...errors].join(" | ")}`);
        rows.push({ answers, plugins: n, sides: [engine, adaptation, go, traced] });
      }
    }
    const when = `fastest of ${ROUNDS} rounds, no validators`;
    printTable(`CreateContainer, wall-clock µs per call (${when})`, rows, "nsPerOp");
    printTable(`CreateContainer, CPU µs per call (${when})`, rows, "cpuNsPerOp");
    recordResults(benchResults(rows));
    console.log(`\nconflicting ends with: ${(await timeEngine({ ...makeCase("conflicting", 10), calls: 1 })).error}`);
  } finally {
    await rm(work, { recursive: true, force: true });
  }
}

await main();
