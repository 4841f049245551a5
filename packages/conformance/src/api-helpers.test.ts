/**
 * The hand-written helpers of @nri-ts/api against the Go reference's helpers
 * in pkg/api, using vectors/api-helpers.json (written by cmd/api-helpers,
 * regenerated with `npm run golden:helpers`). The checked-in data is checked
 * without Go; with Go, the program is rebuilt and must reproduce the file.
 */
import { execFile } from "node:child_process";
import { readFile } from "node:fs/promises";
import { join } from "node:path";
import { promisify } from "node:util";
import {
  AdjustmentBuilder,
  CDIDevice,
  checkPluginIndex,
  checkPluginName,
  ContainerAdjustment,
  ContainerUpdate,
  decodeMessage,
  eventName,
  formatDurationNs,
  formatEventMask,
  Hooks,
  inferRuntimeNriVersion,
  InvalidPluginIndexError,
  InvalidPluginNameError,
  LinuxDevice,
  LinuxIOPriority,
  LinuxNamespace,
  LinuxNetDevice,
  type LinuxResourceSetters,
  LinuxScheduler,
  LinuxSeccomp,
  type MessageFns,
  Mount,
  mpolFlagFromJSON,
  mpolModeFromJSON,
  parseEventMask,
  parsePluginName,
  UNKNOWN_NRI_VERSION,
  UnknownEventError,
  UpdateBuilder,
  VersionInferenceError,
} from "@nri-ts/api";
import { beforeAll, describe, expect, it } from "vitest";
import { describeWithGo, goCommand, moduleDir, pinnedNriModule, runWithInput } from "./go.js";

const run = promisify(execFile);

/** One Go helper method call; 64-bit integers are decimal strings, messages protojson. */
interface Call {
  readonly method: string;
  readonly args: readonly unknown[];
}

interface BuilderCase {
  readonly name: string;
  readonly calls: readonly Call[];
  /** A populated map occurs in the result: compare decoded messages, not bytes. */
  readonly hasMaps: boolean;
  /** Go's `proto.MarshalOptions{Deterministic: true}` bytes. */
  readonly hex: string;
}

interface MaskParse {
  readonly input: readonly string[];
  readonly mask: number;
  readonly error: string;
}

interface Checked {
  readonly input: string;
  readonly error: string;
}

interface ParsedName {
  readonly input: string;
  readonly index: string;
  readonly name: string;
  readonly error: string;
}

interface RuntimeVersion {
  readonly runtime: string;
  readonly version: string;
  readonly nri: string;
  readonly error: string;
}

interface HelperFile {
  readonly comment: string;
  readonly module: string;
  readonly methods: { readonly ContainerAdjustment: readonly string[]; readonly ContainerUpdate: readonly string[] };
  readonly adjustments: readonly BuilderCase[];
  readonly updates: readonly BuilderCase[];
  readonly eventMaskParses: readonly MaskParse[];
  readonly eventMaskTexts: readonly { readonly mask: number; readonly text: string }[];
  readonly eventNames: readonly { readonly event: number; readonly name: string }[];
  readonly pluginIndexes: readonly Checked[];
  readonly pluginNames: readonly Checked[];
  readonly parsedPluginNames: readonly ParsedName[];
  readonly runtimeVersions: readonly RuntimeVersion[];
  readonly durations: readonly { readonly ns: string; readonly text: string }[];
}

const SECTIONS = [
  "adjustments",
  "updates",
  "eventMaskParses",
  "eventMaskTexts",
  "eventNames",
  "pluginIndexes",
  "pluginNames",
  "parsedPluginNames",
  "runtimeVersions",
  "durations",
] as const satisfies readonly (keyof HelperFile)[];

/** Parses the file, refusing one that lacks a section (the entries are read as cmd/api-helpers writes them). */
function parseHelperFile(text: string): HelperFile {
  const file: unknown = JSON.parse(text);
  if (typeof file !== "object" || file === null) throw new Error("api-helpers vectors: not a JSON object");
  const record = file as Record<string, unknown>;
  const missing = SECTIONS.filter((section) => !Array.isArray(record[section]));
  if (missing.length > 0 || typeof record.module !== "string" || typeof record.methods !== "object") {
    throw new Error(`api-helpers vectors: missing module, methods or ${missing.join(", ")}`);
  }
  return file as HelperFile;
}

const vectorsPath = join(moduleDir, "vectors", "api-helpers.json");
const golden = parseHelperFile(await readFile(vectorsPath, "utf8"));

const fromHex = (hex: string): Uint8Array => new Uint8Array(Buffer.from(hex, "hex"));
const toHex = (bytes: Uint8Array): string => Buffer.from(bytes).toString("hex");

// Readers for call arguments, in the JSON form cmd/api-helpers writes.
type Args = readonly unknown[];

function arg<T>(args: Args, i: number, what: string, is: (value: unknown) => value is T): T {
  const value = args[i];
  if (!is(value)) throw new TypeError(`argument ${i}: expected ${what}, got ${JSON.stringify(value)}`);
  return value;
}

const isString = (v: unknown): v is string => typeof v === "string";
const str = (args: Args, i: number): string => arg(args, i, "a string", isString);
const int64 = (args: Args, i: number): bigint => BigInt(str(args, i));
const int = (args: Args, i: number): number =>
  arg(args, i, "an integer", Number.isSafeInteger as (v: unknown) => v is number);
const bool = (args: Args, i: number): boolean => arg(args, i, "a boolean", (v): v is boolean => typeof v === "boolean");
const strings = (args: Args, i: number): string[] =>
  arg(args, i, "strings", (v): v is string[] => Array.isArray(v) && v.every(isString));
/** A message argument, from Go's protojson. */
const message = <T>(fns: MessageFns<T>, args: Args, i: number): T => fns.fromJSON(args[i]);

type Step<B> = (builder: B, args: Args) => void;

/** Go's resource setters, shared by ContainerAdjustment and ContainerUpdate, and ours. */
const RESOURCE_STEPS: Record<string, Step<LinuxResourceSetters>> = {
  SetLinuxMemoryLimit: (b, a) => b.setMemoryLimit(int64(a, 0)),
  SetLinuxMemoryReservation: (b, a) => b.setMemoryReservation(int64(a, 0)),
  SetLinuxMemorySwap: (b, a) => b.setMemorySwap(int64(a, 0)),
  SetLinuxMemoryKernel: (b, a) => b.setMemoryKernel(int64(a, 0)),
  SetLinuxMemoryKernelTCP: (b, a) => b.setMemoryKernelTcp(int64(a, 0)),
  SetLinuxMemorySwappiness: (b, a) => b.setMemorySwappiness(int64(a, 0)),
  SetLinuxMemoryDisableOomKiller: (b) => b.setMemoryDisableOomKiller(),
  SetLinuxMemoryUseHierarchy: (b) => b.setMemoryUseHierarchy(),
  SetLinuxCPUShares: (b, a) => b.setCpuShares(int64(a, 0)),
  SetLinuxCPUQuota: (b, a) => b.setCpuQuota(int64(a, 0)),
  SetLinuxCPUPeriod: (b, a) => b.setCpuPeriod(int64(a, 0)),
  SetLinuxCPURealtimeRuntime: (b, a) => b.setCpuRealtimeRuntime(int64(a, 0)),
  SetLinuxCPURealtimePeriod: (b, a) => b.setCpuRealtimePeriod(int64(a, 0)),
  SetLinuxCPUSetCPUs: (b, a) => b.setCpusetCpus(str(a, 0)),
  SetLinuxCPUSetMems: (b, a) => b.setCpusetMems(str(a, 0)),
  SetLinuxPidLimits: (b, a) => b.setPidsLimit(int64(a, 0)),
  AddLinuxHugepageLimit: (b, a) => b.addHugepageLimit(str(a, 0), int64(a, 1)),
  SetLinuxBlockIOClass: (b, a) => b.setBlockioClass(str(a, 0)),
  SetLinuxRDTClass: (b, a) => b.setRdtClass(str(a, 0)),
  AddLinuxUnified: (b, a) => b.addUnified(str(a, 0), str(a, 1)),
};

/** Each Go ContainerAdjustment helper and the AdjustmentBuilder method that does its job. */
const ADJUSTMENT_STEPS: Record<string, Step<AdjustmentBuilder>> = {
  ...RESOURCE_STEPS,
  AddAnnotation: (b, a) => b.addAnnotation(str(a, 0), str(a, 1)),
  RemoveAnnotation: (b, a) => b.removeAnnotation(str(a, 0)),
  AddMount: (b, a) => b.addMount(message(Mount, a, 0)),
  RemoveMount: (b, a) => b.removeMount(str(a, 0)),
  AddEnv: (b, a) => b.addEnv(str(a, 0), str(a, 1)),
  RemoveEnv: (b, a) => b.removeEnv(str(a, 0)),
  SetArgs: (b, a) => b.setArgs(strings(a, 0)),
  UpdateArgs: (b, a) => b.updateArgs(strings(a, 0)),
  AddHooks: (b, a) => b.addHooks(message(Hooks, a, 0)),
  AddRlimit: (b, a) => b.addRlimit(str(a, 0), int64(a, 1), int64(a, 2)),
  AddDevice: (b, a) => b.addDevice(message(LinuxDevice, a, 0)),
  RemoveDevice: (b, a) => b.removeDevice(str(a, 0)),
  AddCDIDevice: (b, a) => b.addCdiDevice(message(CDIDevice, a, 0).name),
  AddOrReplaceNamespace: (b, a) => b.addOrReplaceNamespace(message(LinuxNamespace, a, 0)),
  // Go takes a whole namespace and reads only its type.
  RemoveNamespace: (b, a) => b.removeNamespace(message(LinuxNamespace, a, 0).type),
  AddLinuxNetDevice: (b, a) => b.addNetDevice(str(a, 0), message(LinuxNetDevice, a, 1)),
  RemoveLinuxNetDevice: (b, a) => b.removeNetDevice(str(a, 0)),
  SetLinuxMemoryPolicy: (b, a) =>
    b.setMemoryPolicy(mpolModeFromJSON(str(a, 0)), str(a, 1), ...a.slice(2).map((flag) => mpolFlagFromJSON(flag))),
  SetLinuxRDTClosID: (b, a) => b.setRdtClosId(str(a, 0)),
  SetLinuxRDTSchemata: (b, a) => b.setRdtSchemata(strings(a, 0)),
  SetLinuxRDTEnableMonitoring: (b, a) => b.setRdtEnableMonitoring(bool(a, 0)),
  RemoveLinuxRDT: (b) => b.removeRdt(),
  SetLinuxCgroupsPath: (b, a) => b.setCgroupsPath(str(a, 0)),
  SetLinuxOomScoreAdj: (b, a) => b.setOomScoreAdj(int(a, 0)),
  SetLinuxIOPriority: (b, a) => b.setIoPriority(message(LinuxIOPriority, a, 0)),
  SetLinuxSeccompPolicy: (b, a) => b.setSeccompPolicy(message(LinuxSeccomp, a, 0)),
  SetLinuxSysctl: (b, a) => b.setSysctl(str(a, 0), str(a, 1)),
  SetLinuxScheduler: (b, a) => b.setScheduler(message(LinuxScheduler, a, 0)),
};

/** Each Go ContainerUpdate helper and the UpdateBuilder method that does its job. */
const UPDATE_STEPS: Record<string, Step<UpdateBuilder>> = {
  ...RESOURCE_STEPS,
  SetContainerId: () => {
    throw new Error("SetContainerId is UpdateBuilder's constructor argument: it must be the first call");
  },
  SetIgnoreFailure: (b) => b.setIgnoreFailure(),
};

function applyCalls<B>(steps: Record<string, Step<B>>, builder: B, calls: readonly Call[]): void {
  for (const { method, args } of calls) {
    const step = Object.hasOwn(steps, method) ? steps[method] : undefined;
    if (!step) throw new Error(`no TypeScript counterpart for Go's ${method}`);
    step(builder, args);
  }
}

function buildAdjustment(calls: readonly Call[]): Uint8Array {
  const builder = new AdjustmentBuilder();
  applyCalls(ADJUSTMENT_STEPS, builder, calls);
  return ContainerAdjustment.encode(builder.build()).finish();
}

function buildUpdate(calls: readonly Call[]): Uint8Array {
  const [first, ...rest] = calls;
  const withId = first?.method === "SetContainerId";
  const builder = new UpdateBuilder(withId ? str(first.args, 0) : "");
  applyCalls(UPDATE_STEPS, builder, withId ? rest : calls);
  return ContainerUpdate.encode(builder.build()).finish();
}

interface BuilderUnderTest {
  readonly kind: "adjustments" | "updates";
  readonly goType: "ContainerAdjustment" | "ContainerUpdate";
  /** Go's helper method names that we map. */
  readonly methods: readonly string[];
  /** Applies the calls to a fresh builder of ours and encodes the result. */
  build(calls: readonly Call[]): Uint8Array;
  /** Decodes strictly into the generated type. */
  decode(bytes: Uint8Array): unknown;
}

const BUILDERS: readonly BuilderUnderTest[] = [
  {
    kind: "adjustments",
    goType: "ContainerAdjustment",
    methods: Object.keys(ADJUSTMENT_STEPS),
    build: buildAdjustment,
    decode: (bytes) => decodeMessage(ContainerAdjustment, bytes),
  },
  {
    kind: "updates",
    goType: "ContainerUpdate",
    methods: Object.keys(UPDATE_STEPS),
    build: buildUpdate,
    decode: (bytes) => decodeMessage(ContainerUpdate, bytes),
  },
];

describe("Go's pkg/api helpers, as recorded in vectors/api-helpers.json", () => {
  it("were recorded with the pinned NRI module", async () => {
    expect(golden.module).toBe(await pinnedNriModule());
  });

  describe.each(BUILDERS)("$goType helpers and our builder", ({ kind, goType, methods, build, decode }) => {
    it("map one to one onto our methods", () => {
      expect([...methods].sort()).toEqual(golden.methods[goType]);
    });

    it("are each called by some case", () => {
      const called = new Set(golden[kind].flatMap((c) => c.calls.map((call) => call.method)));
      expect([...called].sort()).toEqual(golden.methods[goType]);
    });

    describe.each(golden[kind])("$name", (vector) => {
      if (vector.hasMaps) {
        // Map entries have no fixed order, and Go writes empty keys and
        // values out (`12 00`) where ts-proto leaves them out.
        it("gives the message Go gives", () => {
          expect(decode(build(vector.calls))).toStrictEqual(decode(fromHex(vector.hex)));
        });
      } else {
        it("gives Go's exact bytes", () => {
          expect(toHex(build(vector.calls))).toBe(vector.hex);
        });
      }
    });
  });
});

/** `{ mask, error }` the way Go's ParseEventMask reports it (0 on error). */
function parseOutcome(input: readonly string[]): { mask: number; error: string } {
  try {
    return { mask: parseEventMask(...input), error: "" };
  } catch (error) {
    if (!(error instanceof UnknownEventError)) throw error;
    return { mask: 0, error: error.message };
  }
}

/** The error text of a call, or "" when it returns. */
function errorText(call: () => unknown, type: new (...args: never[]) => Error): string {
  try {
    call();
    return "";
  } catch (error) {
    if (!(error instanceof type)) throw error;
    return error.message;
  }
}

const inputKey = (input: readonly string[]): string => JSON.stringify(input);

/**
 * Where parseEventMask knowingly differs from Go (see its doc comment and
 * packages/api/src/events.test.ts), with what it returns instead:
 * - the shorthands `all`, `pod`, `podsandbox` and `container` are trimmed
 *   like event names, where Go compares them untrimmed and rejects them;
 * - the error names the entry as given, trimmed, where Go quotes it
 *   lowercased and with its spaces.
 */
const DELIBERATE_PARSE_DIFFERENCES = new Map<string, { mask: number; error: string }>([
  [inputKey([" pod"]), { mask: 0x1807, error: "" }],
  [inputKey(["all "]), { mask: 0x3fff, error: "" }],
  [inputKey(["pod , container"]), { mask: 0x3fff, error: "" }],
  [inputKey(["\tcontainer"]), { mask: 0x27f8, error: "" }],
  [inputKey([" "]), { mask: 0, error: 'unknown event ""' }],
  [inputKey(["runpodsandbox, Bogus"]), { mask: 0, error: 'unknown event "Bogus"' }],
  [inputKey(["CreateContainer,Nope"]), { mask: 0, error: 'unknown event "Nope"' }],
  [inputKey([" bogus "]), { mask: 0, error: 'unknown event "bogus"' }],
]);

describe("event masks", () => {
  const parses = golden.eventMaskParses;
  const goParse = (key: string) => parses.find((p) => inputKey(p.input) === key);

  it("parse as Go's ParseEventMask parses them, error texts included", () => {
    const compared = parses.filter((p) => !DELIBERATE_PARSE_DIFFERENCES.has(inputKey(p.input)));
    expect(compared.map((p) => ({ input: p.input, ...parseOutcome(p.input) }))).toEqual(
      compared.map(({ input, mask, error }) => ({ input, mask, error })),
    );
  });

  it("differ from Go where documented, and there as documented", () => {
    for (const [key, ours] of DELIBERATE_PARSE_DIFFERENCES) {
      const go = goParse(key);
      expect(go, `no Go case for ${key}`).toBeDefined();
      expect({ mask: go?.mask, error: go?.error }).not.toEqual(ours);
      expect(parseOutcome(JSON.parse(key) as string[])).toEqual(ours);
    }
  });

  it("print as Go's EventMask.PrettyString prints them", () => {
    const texts = golden.eventMaskTexts;
    expect(texts.map(({ mask }) => ({ mask, text: formatEventMask(mask) }))).toEqual(texts);
  });

  it("name events as Go's Event.PrettyName names them", () => {
    const names = golden.eventNames;
    expect(names.map(({ event }) => ({ event, name: eventName(event) }))).toEqual(names);
  });
});

describe("plugin names", () => {
  const indexOutcome = (input: string) => ({
    input,
    error: errorText(() => checkPluginIndex(input), InvalidPluginIndexError),
  });
  const nameOutcome = (input: string) => ({
    input,
    error: errorText(() => checkPluginName(input), InvalidPluginNameError),
  });

  it("check indexes as Go's CheckPluginIndex does, error texts included", () => {
    const cases = golden.pluginIndexes;
    expect(cases.map(({ input }) => indexOutcome(input))).toEqual(cases);
  });

  it("check names as Go's CheckPluginName does, error texts included", () => {
    const cases = golden.pluginNames;
    expect(cases.map(({ input }) => nameOutcome(input))).toEqual(cases);
  });

  it("split full names as Go's ParsePluginName does, with typed errors", () => {
    const parsed = golden.parsedPluginNames;
    const ours = parsed.map(({ input, error }) => {
      // A bad index is an InvalidPluginIndexError, a missing dash an InvalidPluginNameError.
      const type = error.startsWith("invalid plugin index") ? InvalidPluginIndexError : InvalidPluginNameError;
      let result = { index: "", name: "" };
      const text = errorText(() => (result = parsePluginName(input)), type);
      return { input, ...result, error: text };
    });
    expect(ours).toEqual(parsed);
  });
});

describe("inferRuntimeNriVersion", () => {
  it("answers as Go's InferVersionFromRuntime does, over its whole table and beyond", () => {
    const versions = golden.runtimeVersions;
    const ours = versions.map(({ runtime, version }) => {
      let nri = UNKNOWN_NRI_VERSION;
      const error = errorText(() => (nri = inferRuntimeNriVersion(runtime, version)), VersionInferenceError);
      return { runtime, version, nri, error };
    });
    expect(ours).toEqual(versions);
  });
});

describe("formatDurationNs", () => {
  it("prints as Go's time.Duration.String prints", () => {
    const durations = golden.durations;
    expect(durations.map(({ ns }) => ({ ns, text: formatDurationNs(BigInt(ns)) }))).toEqual(durations);
  });
});

describeWithGo("Go's pkg/api helpers, live", () => {
  let bin: string;
  beforeAll(async () => {
    bin = await goCommand("api-helpers");
  });

  it("reproduce vectors/api-helpers.json (if not, run `npm run golden:helpers`)", async () => {
    const { stdout } = await run(bin, [], { maxBuffer: 64 << 20 });
    expect(parseHelperFile(stdout)).toEqual(golden);
    expect(stdout).toBe(await readFile(vectorsPath, "utf8"));
  });

  it("read our builders' encodings back as their own messages, maps included", async () => {
    const ours = Object.fromEntries(
      BUILDERS.map(({ kind, build }) => [
        kind,
        Object.fromEntries(golden[kind].map((c) => [c.name, toHex(build(c.calls))])),
      ]),
    );
    const report = await runWithInput(bin, ["-check"], JSON.stringify(ours));
    expect(JSON.parse(report)).toEqual([]);
  });
});
