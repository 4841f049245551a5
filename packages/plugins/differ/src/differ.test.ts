import { simulate } from "@nri-ts/sim";
import type { Logger, Plugin } from "@nri-ts/stub";
import { describe, expect, it } from "vitest";
import { createDiffer, type DifferOptions } from "./differ.js";

const scenario = `
pods: [{name: web, namespace: shop, labels: {app: web}}]
containers:
  - {name: app, pod: web, env: {MODE: prod}, resources: {memory: {limit: 256Mi}}}
steps:
  - run-pod: web
  - create: app
  - update: {container: app, resources: {memory: {limit: 512Mi}}}
  - remove: app
`;

/** A logger keeping the messages of each level. */
function capture(): { log: Logger; info: string[]; debug: string[] } {
  const info: string[] = [];
  const debug: string[] = [];
  const at = (into: string[]) => (first: object | string, msg?: string) =>
    void into.push(typeof first === "string" ? first : (msg ?? ""));
  return { log: { debug: at(debug), info: at(info), warn: at(info), error: at(info) }, info, debug };
}

/** Stamps each new container, as the plugins the differ watches do. */
const stamper = (key: string): Plugin => ({
  createContainer: () => ({ annotations: { [key]: "yes" }, env: [{ key: key.toUpperCase(), value: "yes" }] }),
});

async function run(options: Omit<DifferOptions, "log">, between: Record<string, Plugin>) {
  const { log, info, debug } = capture();
  const differs = createDiffer({ ...options, log }).map(({ registeredIndex, plugin }) => ({
    plugin,
    index: registeredIndex,
    name: "differ",
  }));
  const others = Object.entries(between).map(([at, plugin]) => ({ plugin, index: at, name: "stamper" }));
  const report = await simulate(scenario, { plugins: [...differs, ...others], clock: "virtual" });
  return { report, info, debug };
}

describe("the differ under nri-sim", () => {
  it("shows, at each index, what the plugins since the index before it changed", async () => {
    const { report, info } = await run({ indices: [0, 15, 99] }, { "10": stamper("ten"), "20": stamper("twenty") });
    expect(report.failures).toEqual([]);
    expect(info).toEqual([
      "[15] RunPodSandbox: pod: <no changes>",
      "[99] RunPodSandbox: pod: <no changes>",
      "[15] CreateContainer: pod: <no changes>",
      "[15] CreateContainer: container: create: [Annotations ten]: From: <nil> -> To: yes",
      "[15] CreateContainer: container: create: [Env 1]: From: <nil> -> To: TEN=yes",
      "[99] CreateContainer: pod: <no changes>",
      "[99] CreateContainer: container: create: [Annotations twenty]: From: <nil> -> To: yes",
      "[99] CreateContainer: container: create: [Env 2]: From: <nil> -> To: TWENTY=yes",
      ...["PostCreateContainer", "UpdateContainer", "PostUpdateContainer", "StopContainer", "RemoveContainer"].flatMap(
        (event) =>
          [15, 99].flatMap((index) => [
            `[${index}] ${event}: pod: <no changes>`,
            `[${index}] ${event}: container: <no changes>`,
          ]),
      ),
    ]);
  });

  it("dumps what the first index receives from level 1, the objects around each change from level 2, Synchronize at 3", async () => {
    const level = async (verboseLevel: number) =>
      (await run({ indices: [0, 99], verboseLevel }, { "10": stamper("ten") })).info;
    const one = await level(1);
    expect(one.slice(0, 2)).toEqual([
      "[00] RunPodSandbox: pod:",
      expect.stringMatching(/^\[00\] RunPodSandbox: {4}id: [0-9a-f]{64}$/),
    ]);
    expect(one).toContain("[00] CreateContainer: container:");
    expect(one).toContain("[00] CreateContainer:    name: app");
    expect(one.filter((line) => line.startsWith("[99]") && !line.includes("<no changes>"))).toEqual([
      "[99] CreateContainer: container: create: [Annotations ten]: From: <nil> -> To: yes",
      "[99] CreateContainer: container: create: [Env 1]: From: <nil> -> To: TEN=yes",
    ]);
    const two = await level(2);
    const create = two.indexOf("[99] CreateContainer: container: create: [Annotations ten]: From: <nil> -> To: yes");
    const original = two.lastIndexOf("[99] Original values for container", create);
    expect(two.slice(original, original + 3)).toEqual([
      "[99] Original values for container",
      "[99] CreateContainer: container:",
      "[99] CreateContainer:    created_at: 1767225602000000000",
    ]);
    expect(two.slice(create + 2, create + 4)).toEqual([
      "[99] Values after changes for container",
      "[99] CreateContainer: container:",
    ]);
    expect(two).toContain('[99] CreateContainer:      ten: "yes"');
    // no changes: no values after them
    expect(two.filter((line) => line.startsWith("[99] Values after changes for"))).toEqual([
      "[99] Values after changes for container",
    ]);
    expect(two.some((line) => line.includes("Synchronize"))).toBe(false);
    expect((await level(3)).filter((line) => line.includes("Synchronize"))).toEqual([
      "[00] Synchronize: pods:",
      "[00] Synchronize:    null",
      "[00] Synchronize: containers:",
      "[00] Synchronize:    null",
      "[99] Synchronize: pods:",
      "[99] Synchronize:    null",
      "[99] Synchronize: containers:",
      "[99] Synchronize:    null",
    ]);
  });

  it("diffs the objects' YAML with -yaml", async () => {
    const { info } = await run({ indices: [0, 99], yaml: true }, { "10": stamper("ten") });
    expect(info[0]).toBe("[99] RunPodSandbox: pod: <no changes>");
    const create = info.find((line) => line.startsWith("[99] CreateContainer: container: "));
    expect(create?.split("\n").slice(0, 2)).toEqual([
      "[99] CreateContainer: container:   map[String]any{",
      '+ \t"annotations": map[String]any{"ten": String("yes")},',
    ]);
  });

  it("pairs by queue order and skips an event whose predecessor saw none", async () => {
    const { log, info, debug } = capture();
    const [first, second] = createDiffer({ indices: [5, 7], log }).map((p) => p.plugin);
    const pod = { id: "p", name: "web" } as never;
    await second.runPodSandbox?.(pod, {} as never);
    await first.runPodSandbox?.(pod, {} as never);
    await first.stopPodSandbox?.({ id: "p", name: "web", uid: "u" } as never, {} as never);
    await second.runPodSandbox?.(pod, {} as never);
    expect(debug).toEqual(["[7] RunPodSandbox: skipping nil element, plugin startup not yet finished"]);
    expect(info).toEqual(["[7] RunPodSandbox: pod: <no changes>"]);
  });

  it("builds the chain from the list as Go does, repeats included", () => {
    const { log } = capture();
    expect(createDiffer({ indices: [0, 5, -3, 100], log }).map((p) => p.registeredIndex)).toEqual([
      "00",
      "05",
      "-3",
      "100",
    ]);
  });
});
