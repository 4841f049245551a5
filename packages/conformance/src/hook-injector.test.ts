/*
 * The hook-injector against Go's.
 *
 * The Go plugin (cmd/plugin-hook-injector: the upstream plugin restated on
 * the upstream stub and the hooks library of go.podman.io/common v0.66.1,
 * see its main.go) and ours (@nri-ts/plugin-hook-injector's
 * nri-hook-injector) each run, as a runtime launches them, through the same
 * nri-sim scenarios over the same hook directories: the merged adjustments
 * and the error texts must be the same, step by step. While hook files are
 * added, replaced, broken and removed under the running plugins, both must
 * come to the same hooks after each change (a runtime creates containers
 * until they do, the watchers taking as long as the machine makes them). Then
 * the Go program's oracle mode and our library read the same generated
 * hook directories (both schemas, good and bad files, two directories) for
 * the same containers and must give the same start-up error, or the same
 * hooks or error for each container.
 */
import { readFileSync, unlinkSync, writeFileSync } from "node:fs";
import { mkdir, mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { Adaptation } from "@nri-ts/adaptation";
import { Container, CreateContainerRequest, type DeepPartial, Hooks, PodSandbox } from "@nri-ts/api";
import { createHookInjector, readHooksDirs, startupError } from "@nri-ts/plugin-hook-injector";
import { type SimReport, simulate } from "@nri-ts/sim";
import { type HandlerContext, silentLogger } from "@nri-ts/stub";
import fc from "fast-check";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { LAUNCHES_MS, writeLauncher } from "../fixtures/stub/harness.js";
import { describeWithGo, goCommand, goJsonLines, moduleDir, pinnedNriModule } from "./go.js";
import { ourPluginCommand } from "./plugin-process.js";

/** Our program, run from source the way the fixture plugin is. */
const ourHookInjector = ourPluginCommand("hook-injector");

/** What the runtime saw of each step. */
function outcome(report: SimReport) {
  return report.steps.map((s) => ({
    step: s.step,
    ok: s.ok,
    error: s.error,
    adjustment: s.adjustment,
    changes: s.changes,
  }));
}

const json = (value: unknown) => JSON.stringify(value);

const scenario = `
name: hook-injector
runtime: {registrationTimeout: 60s}  # our plugin is launched with Node and tsx: seconds on a busy machine
pods:
  - {name: web, annotations: {example.com/trace: "on", tier: frontend}}
  - {name: db}
containers:
  - {name: box, pod: db, args: [/bin/busybox, sh]}
  - {name: traced, pod: db, args: [nginx], annotations: {example.com/trace: "on"}}
  - {name: overridden, pod: web, args: [nginx], annotations: {example.com/trace: "off"}}
  - {name: mounted, pod: db, args: [app], mounts: [{destination: /data, source: /srv, type: bind}]}
  - {name: legacy, pod: web, args: [Worker]}
  - {name: plain, pod: db, args: [app]}
  - {name: bare, pod: db}
steps:
  - run-pod: web
  - run-pod: db
  - create: box
  - create: traced
  - create: overridden
  - create: mounted
  - create: legacy
  - create: plain
  - create: bare
`;

/** The hook files of the scenario: [directory (0 lower, 1 higher), name, content]. */
const FILES: [number, string, object][] = [
  [
    0,
    "10-busybox.json",
    {
      version: "1.0.0",
      hook: { path: "/bin/true", args: ["busybox-hook"], timeout: 5 },
      when: { commands: ["busybox$"] },
      stages: ["prestart", "poststop"],
    },
  ],
  [
    0,
    "20-trace.json",
    {
      version: "1.0.0",
      hook: { path: "/bin/sh", env: ["LOW=1"] },
      when: { annotations: { "^example\\.com/trace$": "^on$" } },
      stages: ["poststart"],
    },
  ],
  [
    1,
    "20-trace.json",
    {
      version: "1.0.0",
      hook: { path: "/bin/true", env: ["TRACE=1"] },
      when: { annotations: { "^example\\.com/trace$": "^on$" } },
      stages: ["poststart"],
    },
  ],
  [
    1,
    "30-legacy.json",
    { hook: "/bin/true", arguments: ["mounted"], stage: ["poststop"], hasbindmounts: true, cmds: ["(?i)^worker"] },
  ],
  [
    1,
    "Always.json",
    {
      version: "1.0.0",
      hook: { path: "/bin/true" },
      when: { always: true, annotations: { tier: "front" } },
      stages: ["createContainer", "startContainer"],
    },
  ],
  [
    0,
    "99-missing.json",
    { version: "1.0.0", hook: { path: "/does/not/exist" }, when: { always: true }, stages: ["poststop"] },
  ],
  [0, "readme.txt", { not: "a hook" }],
];

describe("the hook-injector's Go twin", () => {
  it("is a module of its own, on the NRI version the conformance module pins", async () => {
    const own = readFileSync(join(moduleDir, "cmd", "plugin-hook-injector", "go.mod"), "utf8");
    expect(own).toContain(`\t${await pinnedNriModule()}\n`);
  });
});

describeWithGo("hook-injector: ours and Go's", () => {
  let goBin: string;
  let dir: string;

  beforeAll(async () => {
    goBin = await goCommand("plugin-hook-injector");
    dir = await mkdtemp(join(tmpdir(), "nri-hook-injector-conformance-"));
  }, 300_000);

  afterAll(() => rm(dir, { recursive: true, force: true }));

  /** Two hook directories with `files` in them. */
  async function hookDirs(files: readonly [number, string, object | string][]): Promise<string[]> {
    const base = await mkdtemp(join(dir, "hooks-"));
    const dirs = [join(base, "usr"), join(base, "etc")];
    await Promise.all(dirs.map((d) => mkdir(d)));
    for (const [at, name, content] of files)
      await writeFile(join(dirs[at], name), typeof content === "string" ? content : json(content));
    return dirs;
  }

  /** One run of `scenario` with each plugin, launched by the runtime with -hooks-dirs. */
  async function both(text: string, files: readonly [number, string, object | string][]) {
    const runWith = async (command: string[]) => {
      const dirs = await hookDirs(files);
      const plugins = await mkdtemp(join(dir, "plugins-"));
      await writeLauncher(plugins, "10-hook-injector", [...command, "-hooks-dirs", dirs.join(",")]);
      return simulate(text, { pluginDir: plugins, clock: "virtual" });
    };
    return [await runWith([goBin]), await runWith(ourHookInjector)];
  }

  it("inject the same hooks and fail the same containers with the same errors, under nri-sim", {
    timeout: LAUNCHES_MS,
  }, async () => {
    const [go, ts] = await both(scenario, FILES);
    expect(outcome(ts)).toEqual(outcome(go));

    // What the comparison covered, spelled out.
    expect(go.steps.map((s) => s.ok)).toEqual([true, true, true, true, true, true, true, true, false]);
    const always = [{ path: "/bin/true" }];
    expect(go.steps[2].adjustment).toEqual({
      hooks: {
        createRuntime: [{ path: "/bin/true", args: ["busybox-hook"], timeout: 5 }],
        poststop: [{ path: "/bin/true", args: ["busybox-hook"], timeout: 5 }],
      },
    });
    expect(go.steps[3].adjustment).toEqual({ hooks: { poststart: [{ path: "/bin/true", env: ["TRACE=1"] }] } });
    expect(go.steps[4].adjustment).toEqual({
      hooks: { createContainer: always, startContainer: always, poststart: [{ path: "/bin/true", env: ["TRACE=1"] }] },
    });
    expect(go.steps[5].adjustment).toEqual({
      hooks: { poststop: [{ path: "/bin/true", args: ["/bin/true", "mounted"] }] },
    });
    expect(go.steps[6].adjustment).toEqual({
      hooks: {
        createContainer: always,
        startContainer: always,
        poststart: [{ path: "/bin/true", env: ["TRACE=1"] }],
        poststop: [{ path: "/bin/true", args: ["/bin/true", "mounted"] }],
      },
    });
    expect(go.steps[7].adjustment).toEqual({});
    expect(go.steps[8].error).toContain(
      'hook generation failed: matching hook "10-busybox.json": process.args must have at least one entry',
    );
  });

  it("follow the same changes to the hook files while they run", { timeout: 2 * LAUNCHES_MS }, async () => {
    const hook = (path: string) =>
      json({ version: "1.0.0", hook: { path }, when: { always: true }, stages: ["poststop"] });
    // each change, then the hooks a new container gets once the plugin has reloaded
    const changes: Array<[(dirs: string[]) => void, Record<string, unknown>]> = [
      [(dirs) => writeFileSync(join(dirs[0], "a.json"), hook("/bin/true")), { poststop: [{ path: "/bin/true" }] }],
      [(dirs) => writeFileSync(join(dirs[1], "a.json"), hook("/bin/sh")), { poststop: [{ path: "/bin/sh" }] }],
      [(dirs) => writeFileSync(join(dirs[1], "a.json"), "{ broken"), { poststop: [{ path: "/bin/true" }] }],
      [
        (dirs) => {
          unlinkSync(join(dirs[1], "a.json"));
          unlinkSync(join(dirs[0], "a.json"));
        },
        {},
      ],
    ];
    // A runtime of our own rather than nri-sim: after each change, containers
    // are created until the plugin's watcher has reloaded, which takes the
    // plugin as long as the machine makes it (seconds when busy).
    const follow = async (command: string[]) => {
      const dirs = await hookDirs([]);
      const plugins = await mkdtemp(join(dir, "plugins-"));
      await writeLauncher(plugins, "10-hook-injector", [...command, "-hooks-dirs", dirs.join(",")]);
      const nri = new Adaptation(
        "conformance",
        "v0.0.0",
        async (synchronize) => void (await synchronize([], [])),
        async () => [],
        {
          pluginPath: plugins,
          externalConnections: false,
          registrationTimeoutMs: 60_000, // our plugin is launched with Node and tsx: seconds on a busy machine
          requestTimeoutMs: 60_000, // nothing here is to time out
        },
      );
      await nri.start();
      try {
        expect(nri.plugins.map((p) => p.fullName)).toEqual(["10-hook-injector"]);
        let created = 0;
        const hooks = async () => {
          const name = `c${created++}`;
          const request = CreateContainerRequest.fromPartial({
            pod: { id: "web", name: "web" },
            container: { id: name, podSandboxId: "web", name, args: ["sh"] },
          });
          const { adjust } = await nri.createContainer(request);
          return adjust?.hooks ? Hooks.toJSON(adjust.hooks) : {};
        };
        expect(await hooks()).toEqual({});
        for (const [change, expected] of changes) {
          change(dirs);
          await expect.poll(hooks, { timeout: 60_000, interval: 50 }).toEqual(expected);
        }
      } finally {
        await nri.stop();
      }
    };
    await follow([goBin]);
    await follow(ourHookInjector);
  });

  interface Answer {
    setupError?: string;
    hooks?: unknown;
    error?: string;
  }
  interface Case {
    dirs: string[];
    pod: DeepPartial<PodSandbox>;
    container: DeepPartial<Container>;
  }

  const goAnswers = (cases: readonly Case[]) =>
    goJsonLines<Answer>(
      goBin,
      ["-oracle"],
      cases.map((c) => ({
        dirs: c.dirs,
        pod: PodSandbox.toJSON(PodSandbox.fromPartial(c.pod)),
        container: Container.toJSON(Container.fromPartial(c.container)),
      })),
    );

  async function ourAnswer(c: Case): Promise<Answer> {
    const read = await readHooksDirs(c.dirs);
    const setup = startupError(read);
    if (setup !== undefined) return { setupError: setup.message };
    const plugin = createHookInjector({ hooks: read, logger: silentLogger });
    try {
      const result = (await plugin.createContainer?.(
        PodSandbox.fromPartial(c.pod),
        Container.fromPartial(c.container),
        {} as HandlerContext,
      )) as { hooks: Hooks } | undefined;
      return { hooks: result === undefined ? null : Hooks.toJSON(result.hooks) };
    } catch (error) {
      return { error: (error as Error).message };
    }
  }

  it("read the same generated hook directories alike, for the same containers", async () => {
    const pattern = fc.constantFrom(
      "^a$",
      "b",
      ".*",
      "(?i)^C",
      "^$",
      "yes|no",
      "\\d+",
      "sh$",
      "^/bin/busybox$",
      "[[:upper:]]",
    );
    const badPattern = fc.constantFrom("(", "a**", "x{2,1}", "(?=x)", "\\8");
    const stages = fc.array(
      fc.constantFrom("prestart", "createRuntime", "createContainer", "startContainer", "poststart", "poststop"),
      { maxLength: 3 },
    );
    const path = fc.oneof(
      { weight: 12, arbitrary: fc.constantFrom("/bin/true", "/bin/sh") },
      { weight: 1, arbitrary: fc.constantFrom("/does/not/exist", "", "/etc/passwd/x") },
    );
    const current = fc
      .record(
        {
          version: fc.constant("1.0.0"),
          hook: fc.record(
            {
              path,
              args: fc.array(fc.constantFrom("a", "b"), { maxLength: 2 }),
              env: fc.array(fc.constant("X=1"), { maxLength: 1 }),
              timeout: fc.integer({ min: -1, max: 60 }),
            },
            { requiredKeys: ["path"] },
          ),
          when: fc.record(
            {
              always: fc.boolean(),
              annotations: fc.dictionary(pattern, pattern, { maxKeys: 2 }),
              commands: fc.array(pattern, { maxLength: 2 }),
              hasBindMounts: fc.boolean(),
            },
            { requiredKeys: [] },
          ),
          stages: fc.oneof({ weight: 19, arbitrary: stages }, { weight: 1, arbitrary: fc.constant(["bogus"]) }),
        },
        { requiredKeys: ["version", "hook", "stages"] },
      )
      .map((value) => json(value));
    // the stages under either name, now and then under both or neither
    const legacyStages = fc.oneof(
      {
        weight: 8,
        arbitrary: fc.tuple(fc.constantFrom("stages", "stage"), stages).map(([key, list]) => ({ [key]: list })),
      },
      { weight: 1, arbitrary: fc.constantFrom({}, { stages: [], stage: [] }) },
    );
    const legacy = fc
      .tuple(
        fc.record(
          {
            version: fc.constantFrom("0.1.0", undefined),
            hook: path,
            arguments: fc.array(fc.constantFrom("x", "y"), { maxLength: 2 }),
            cmds: fc.array(pattern, { maxLength: 2 }),
            annotations: fc.array(pattern, { maxLength: 2 }),
            hasbindmounts: fc.boolean(),
          },
          { requiredKeys: ["hook"] },
        ),
        legacyStages,
      )
      .map(([value, withStages]) => json({ ...value, ...withStages }));
    const broken = fc.oneof(
      fc.constantFrom(
        "{",
        "[]",
        "null",
        '{"version": 2}',
        '{"version": "3"}',
        '{"version": "1.0.0", "hook": "x"}',
        '{"version": "1.0.0", "hook": {"timeout": 1.5}}',
        "\u00e9",
      ),
      badPattern.map((p) =>
        json({ version: "1.0.0", hook: { path: "/bin/true" }, when: { commands: [p] }, stages: [] }),
      ),
      badPattern.map((p) => json({ hook: "/bin/true", stages: [], annotations: [p] })),
    );
    const content = fc.oneof(
      { weight: 12, arbitrary: current },
      { weight: 6, arbitrary: legacy },
      { weight: 1, arbitrary: broken },
    );
    const name = fc.constantFrom("a.json", "B.json", "c.json", "D.json", "10-x.json", "9-y.json", "e.txt");
    const layout = fc.array(fc.tuple(fc.integer({ min: 0, max: 1 }), name, content), { maxLength: 5 });
    const annotations = fc.dictionary(
      fc.constantFrom("a", "b", "C", "c", "tier"),
      fc.constantFrom("1", "yes", "no", "", "Sh"),
      { maxKeys: 3 },
    );
    const container = fc.record({
      name: fc.constant("c"),
      annotations,
      args: fc.constantFrom<string[][]>([], ["/bin/sh"], ["/bin/busybox", "x"], ["sh"], ["C"]),
      mounts: fc.constantFrom<{ destination: string }[][]>([], [{ destination: "/data" }]),
    });
    const layouts = fc.sample(layout, { numRuns: 400, seed: 20261201 });
    const cases: Case[] = [];
    for (const [i, files] of layouts.entries()) {
      const dirs = await hookDirs(files);
      for (const [j, ctr] of fc.sample(container, { numRuns: 4, seed: i }).entries()) {
        cases.push({
          dirs,
          pod: { name: "p", annotations: fc.sample(annotations, { numRuns: 1, seed: 1000 * i + j })[0] },
          container: ctr,
        });
      }
    }
    const answers = await goAnswers(cases);
    const ours = await Promise.all(cases.map(ourAnswer));
    const mismatches = cases
      .map((c, i) => ({ case: c, go: answers[i], ours: ours[i] }))
      .filter(({ go, ours }) => json(go) !== json(ours));
    expect(mismatches.slice(0, 3)).toEqual([]);
    // What the comparison covered, with these seeds: of the 1600 containers, 300 get hooks, 30 fail,
    // 870 match nothing, and 400 meet a directory the plugin refuses to start with.
    const count = (test: (a: Answer) => boolean) => answers.filter(test).length;
    expect({
      injected: count((a) => a.hooks !== undefined && a.hooks !== null),
      failed: count((a) => a.error !== undefined),
      refused: count((a) => a.setupError !== undefined),
    }).toEqual({ injected: 300, failed: 30, refused: 400 });
  });
});
