import { chmod, mkdir, mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { PLUGIN_TEXT_LIMIT } from "@nri-ts/adaptation";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { PluginSetupError } from "./plugins/plugin-setup.js";
import { pluginProgram } from "./plugins/program.js";
import type { SimReport } from "./report/report.js";
import { runCli } from "./run-cli.js";
import { simulate } from "./run/simulate.js";

const fixtures = join(import.meta.dirname, "fixtures");

async function cli(...argv: string[]): Promise<{ status: number; stdout: string; stderr: string }> {
  let stdout = "";
  let stderr = "";
  const status = await runCli(argv, {
    stdout: { isTTY: false, write: (text: string) => (stdout += text) },
    stderr: { isTTY: false, write: (text: string) => (stderr += text) },
    env: {},
  });
  return { status, stdout, stderr };
}

describe("nri-sim run", () => {
  it("runs a good scenario with a plugin module and exits 0", async () => {
    const { status, stdout, stderr } = await cli(
      "run",
      join(fixtures, "good.yaml"),
      "--plugin",
      join(fixtures, "annotate.ts"),
      "--clock",
      "virtual",
    );
    expect(stderr).toBe("");
    const lines = stdout.split("\n");
    expect(lines[0]).toBe(`nri-sim: a good scenario  (${join(fixtures, "good.yaml")})`);
    expect(lines[1]).toBe(`plugins: 10-annotate (module ${join(fixtures, "annotate.ts")})`);
    expect(stdout).toContain(
      [
        "✓  2 create app  line 10",
        "     10-annotate  CreateContainer",
        "     adjustment:",
        "       annotation fixture.nri-ts/seen=app  10-annotate",
        "     container app: created",
      ].join("\n"),
    );
    expect(stdout).toContain(
      [
        "✓  4 exit app  line 12",
        "     10-annotate  StopContainer",
        "     │ 10-annotate: saw app stop with exit code 137 (OOMKilled)",
      ].join("\n"),
    );
    expect(stdout).toContain("     container app: exited 137 (OOMKilled): out of memory");
    expect(lines.slice(-4)).toEqual([
      "✓ line 15, after step 2 (create app)",
      "✓ line 17, after step 4 (exit app)",
      "✓ 5 steps, 2/2 expectations met",
      "",
    ]);
    expect(status).toBe(0);
  });

  it("shows each step's trace with --trace", async () => {
    const { status, stdout } = await cli(
      "run",
      join(fixtures, "good.yaml"),
      "--plugin",
      join(fixtures, "annotate.ts"),
      "--trace",
    );
    const create = stdout.slice(stdout.indexOf("✓  2 create app"), stdout.indexOf("✓  3 "));
    expect(create).toMatch(/\n {5}trace [0-9a-f]{32}\n {7}create app +\d/);
    expect(create).toMatch(
      /\n {11}→ 10-annotate CreateContainer +\d+(\.\d+)? m?s {2}adjusted\n {13}10-annotate handler +\d/,
    );
    expect(status).toBe(0);
  });

  it("prints the report as JSON with --json", async () => {
    const { status, stdout } = await cli(
      "run",
      join(fixtures, "good.yaml"),
      "--plugin",
      join(fixtures, "annotate.ts"),
      "--json",
    );
    const report = JSON.parse(stdout) as SimReport;
    expect(status).toBe(0);
    expect(report.ok).toBe(true);
    expect(report.steps.map((s) => s.step)).toEqual([
      "run-pod web",
      "create app",
      "start app",
      "exit app",
      "remove app",
    ]);
    expect(report.steps[1].changes).toEqual([
      {
        field: "Annotations",
        key: "fixture.nri-ts/seen",
        remove: false,
        text: "annotation fixture.nri-ts/seen=app",
        owner: "10-annotate",
      },
    ]);
  });

  it("rejects a bad scenario file with every mistake and exits 2", async () => {
    const file = join(fixtures, "bad.yaml");
    const { status, stdout, stderr } = await cli("run", file);
    expect(stdout).toBe("");
    expect(stderr).toBe(
      [
        `${file}:5:13: pods[0].labels: expected a mapping of names to strings, got a list`,
        `${file}:9:33: containers[0].resources.memory.limit: expected a whole number (e.g. 512, 256Mi or -1), got "lots"`,
        `${file}:11:13: steps[0].create: no container "ap" is declared; declared: web/app`,
        `${file}:12:34: steps[1].exit.code: expected an exit code (a 32-bit integer), got 1.5`,
        "",
      ].join("\n"),
    );
    expect(status).toBe(2);
  });

  it("fails with status 1 when a plugin crashes, and goes on without it", async () => {
    const { status, stdout } = await cli(
      "run",
      join(fixtures, "good.yaml"),
      "--plugin",
      `10-crasher=${join(fixtures, "crasher.ts")}`,
    );
    expect(stdout).toContain("     plugin 10-crasher was dropped by the runtime");
    expect(stdout).toContain("     │ 10-crasher: crashing on purpose");
    expect(stdout).toContain("✓  3 start app");
    expect(stdout).toContain("  step 2 (create app): plugin 10-crasher was dropped by the runtime");
    expect(status).toBe(1);
  });

  it("fails with status 1 when an expectation does not hold, and says what differs", async () => {
    const { status, stdout } = await cli(
      "run",
      join(fixtures, "expect-fails.yaml"),
      "--plugin",
      join(fixtures, "annotate.ts"),
    );
    expect(stdout).toContain(
      [
        "✗ line 8, after step 2 (create app)",
        '    container web/app.annotations.fixture.nri-ts/seen: expected "somebody-else", got "app"',
      ].join("\n"),
    );
    expect(stdout.trimEnd().split("\n").slice(-2)).toEqual([
      "✗ 2 steps, 0/1 expectation met",
      "  expectation at line 8 after step 2 (create app) failed",
    ]);
    expect(status).toBe(1);
  });

  it("runs the runtime's default validator with --validator-config", async () => {
    const { status, stdout } = await cli(
      "run",
      join(fixtures, "good.yaml"),
      "--plugin",
      `10-hooker=${join(fixtures, "hooks.ts")}`,
      "--validator-config",
      join(fixtures, "validator.yaml"),
    );
    expect(stdout).toContain(
      [
        "✗  2 create app  line 10",
        '     error: validator "00-default-validator" rejected container adjustment, reason: validation error: plugin "10-hooker" attempted restricted OCI hook injection',
        "     10-hooker             CreateContainer",
        "     00-default-validator  ValidateContainerAdjustment",
        '     00-default-validator rejected the adjustment: validation error: plugin "10-hooker" attempted restricted OCI hook injection',
      ].join("\n"),
    );
    expect(stdout).toContain("plugins: 00-default-validator (builtin), 10-hooker (module");
    expect(status).toBe(1);
  });

  // Node and tsx start in seconds on a busy machine: a few launches need more than vitest's default.
  describe("with executables launched as the runtime launches them", { timeout: 120_000 }, () => {
    let dir: string;

    beforeAll(async () => {
      dir = await mkdtemp(join(tmpdir(), "nri-sim-cli-"));
      // Launched plugins get no PATH: the wrapper names node, the loader and the program in full.
      await pluginProgram(join(fixtures, "launched.ts")).install(dir, "20-launched");
      await writeFile(join(dir, "launched.conf"), "FROM_CONFIG_DIR\n");
      await writeFile(join(dir, "flag.conf"), "FROM_PLUGIN_CONFIG\n");
    });

    afterAll(() => rm(dir, { recursive: true, force: true }));

    it("launches a plugin directory with its config directory", async () => {
      const { stdout, stderr } = await cli(
        "run",
        join(fixtures, "good.yaml"),
        "--plugin-dir",
        dir,
        "--config-dir",
        dir,
        "--json",
      );
      expect(stderr).toBe("");
      const report = JSON.parse(stdout) as SimReport;
      expect(report.plugins).toEqual([{ name: "20-launched", source: "executable" }]);
      expect(report.steps[1].changes.map((c) => [c.text, c.owner])).toEqual([
        ["env FROM_CONFIG_DIR=launched", "20-launched"],
      ]);
    });

    it("launches --exec plugins with --plugin-config", async () => {
      const { stdout, stderr } = await cli(
        "run",
        join(fixtures, "good.yaml"),
        "--exec",
        `30-other=${join(dir, "20-launched")}`,
        "--plugin-config",
        `30-other=${join(dir, "flag.conf")}`,
        "--json",
      );
      expect(stderr).toBe("");
      const report = JSON.parse(stdout) as SimReport;
      expect(report.plugins).toEqual([{ name: "30-other", source: "executable", path: join(dir, "20-launched") }]);
      expect(report.steps[1].container).toMatchObject({ env: { FROM_PLUGIN_CONFIG: "launched" } });
    });
  });
});

describe("nri-sim command line", () => {
  it("checks a scenario without running it", async () => {
    const file = join(fixtures, "good.yaml");
    expect(await cli("check", file)).toEqual({
      status: 0,
      stdout: `${file}: 5 steps, 2 expectations, all well formed\n`,
      stderr: "",
    });
  });

  it("explains a bad command line and exits 2", async () => {
    const { status, stderr } = await cli("run");
    expect(stderr.split("\n")[0]).toBe("nri-sim: run: which scenario? (a YAML file)");
    expect(status).toBe(2);
    expect((await cli("frobnicate", "x")).stderr.split("\n")[0]).toBe('nri-sim: unknown command "frobnicate"');
    expect((await cli("run", "x.yaml", "--plugin", "plugin.so")).stderr.split("\n")[0]).toBe(
      "nri-sim: --plugin plugin.so: expected a .ts or .js module; use --exec for executables",
    );
    expect((await cli("run", "x.yaml", "--bogus")).stderr.split("\n")[0]).toBe("nri-sim: Unknown option '--bogus'");
    expect((await cli("run", "x.yaml", "--otlp", "localhost:4318")).stderr.split("\n")[0]).toBe(
      "nri-sim: --otlp localhost:4318: expected an http:// or https:// URL, e.g. http://localhost:4318",
    );
  });

  it("reports a missing scenario file", async () => {
    const { status, stderr } = await cli("run", join(fixtures, "missing.yaml"));
    expect(stderr).toBe(`nri-sim: ENOENT: no such file or directory, open '${join(fixtures, "missing.yaml")}'\n`);
    expect(status).toBe(2);
  });
});

/*
 * A plugin that did not run has been tested for nothing: whatever the way it
 * was given (--exec, --plugin, --plugin-dir, the library), nri-sim stops
 * before the first step with status 2, naming the plugin and why, with what
 * it printed last.
 */

const scenario = join(fixtures, "good.yaml");

let setupDir: string;

async function file(name: string, text: string, mode = 0o755): Promise<string> {
  const path = join(setupDir, name);
  await writeFile(path, text);
  await chmod(path, mode);
  return path;
}

beforeAll(async () => {
  setupDir = await mkdtemp(join(tmpdir(), "nri-sim-setup-"));
});

afterAll(() => rm(setupDir, { recursive: true, force: true }));

describe("nri-sim run exits 2 when a plugin did not run", () => {
  it("--exec a file that is not there", async () => {
    const missing = join(setupDir, "10-missing");
    expect(await cli("run", scenario, "--exec", missing)).toEqual({
      status: 2,
      stdout: "",
      stderr: `plugin 10-missing (${missing}) did not run: no such file\n`,
    });
  });

  it("--exec a file without an execute bit", async () => {
    const path = await file("20-notexec", "#!/bin/sh\nexit 0\n", 0o644);
    const { status, stderr } = await cli("run", scenario, "--exec", path);
    expect(stderr).toBe(
      `plugin 20-notexec (${path}) did not run: it is not executable (mode 0644): a runtime would not run it; chmod +x it\n`,
    );
    expect(status).toBe(2);
  });

  it("--exec a file that is not a program", async () => {
    const path = await file("30-text", "just some notes\n");
    const { status, stdout, stderr } = await cli("run", scenario, "--exec", path);
    expect(stdout).toBe("");
    expect(stderr.split("\n")[0]).toMatch(
      new RegExp(
        `^plugin 30-text \\(${path}\\) did not run: failed to start pre-installed NRI plugin "text": .*\\(the plugin exited with code 127\\); it is not a program \\(neither a #! script nor an ELF binary\\): a runtime fails to execute it$`,
      ),
    );
    expect(stderr).toContain(`  │ ${path}: 1: just: not found`);
    expect(status).toBe(2);
  });

  it("--exec a program that dies at launch, with its last stderr lines", async () => {
    const path = await file("40-dies", '#!/bin/sh\necho "reading config" >&2\necho "fatal: no config" >&2\nexit 3\n');
    const { status, stderr } = await cli("run", scenario, "--exec", `45-named=${path}`);
    expect(stderr.split("\n")).toEqual([
      expect.stringMatching(
        new RegExp(
          `^plugin 45-named \\(${path}\\) did not run: failed to start pre-installed NRI plugin "named": .*\\(the plugin exited with code 3\\)$`,
        ),
      ),
      "  │ reading config",
      "  │ fatal: no config",
      "",
    ]);
    expect(status).toBe(2);
  });

  it("--exec a program that never registers", async () => {
    const path = await file("50-silent", "#!/bin/sh\nexec /bin/sleep 30\n");
    const quick = await file("quick.yaml", "runtime: {registrationTimeout: 300ms}\nsteps: [{wait: 1ms}]\n", 0o644);
    const { status, stderr } = await cli("run", quick, "--exec", path);
    expect(stderr).toMatch(
      new RegExp(
        `^plugin 50-silent \\(${path}\\) did not run: failed to start pre-installed NRI plugin "silent": .*timed out`,
      ),
    );
    expect(status).toBe(2);
  });

  it("--plugin a module that is not there, or one that exits before it connects", async () => {
    const missing = join(setupDir, "60-gone.ts");
    expect((await cli("run", scenario, "--plugin", missing)).stderr).toBe(
      `plugin 60-gone (${missing}) did not run: no such file\n`,
    );
    const dies = join(fixtures, "dies-at-start.ts");
    const { status, stdout, stderr } = await cli("run", scenario, "--plugin", `70-dies=${dies}`);
    expect(stdout).toBe("");
    expect(stderr).toBe(
      [
        `plugin 70-dies (${dies}) did not run: its process exited with code 4 before it registered`,
        "  │ cannot read /etc/example/plugin.conf: no such file",
        "",
      ].join("\n"),
    );
    expect(status).toBe(2);
  });

  it("--plugin a module that registers, then fails Configure: says so, in the runtime's and the plugin's words", async () => {
    const fails = join(fixtures, "configure-fails.ts");
    const { status, stdout, stderr } = await cli("run", scenario, "--plugin", `70-busy=${fails}`);
    expect(stdout).toBe("");
    const cause = "cannot start the metrics server: listen EADDRINUSE: address already in use :::9309";
    expect(stderr.split("\n")[0]).toBe(
      `plugin 70-busy (${fails}) did not run: it registered, then failed Configure: rpc error: code = Unknown desc = ${cause}; ` +
        `its process then exited with code 1; it said: configure failed: ${cause}`,
    );
    // the plugin's log lines, readable
    expect(stderr).toContain(`  │ error: configure failed: ${cause} plugin=70-busy method=configure`);
    expect(status).toBe(2);
  });

  it("--wait-plugins: says how many external plugins it awaited, how many came, and within what time", async () => {
    const socket = join(setupDir, "wait.sock");
    const { status, stdout, stderr } = await cli(
      "run",
      scenario,
      "--socket",
      socket,
      "--wait-plugins",
      "1",
      "--wait-timeout",
      "200ms",
    );
    expect(stdout).toBe("");
    expect(stderr).toBe(
      `nri-sim: external plugins can connect to ${socket}\nexternal plugins: 1 awaited within 200 ms, 0 came\n`,
    );
    expect(status).toBe(2);
  });

  it("--plugin a program that calls runPlugin itself: says to run it with --exec", async () => {
    const program = join(fixtures, "runs-itself.ts");
    const { status, stdout, stderr } = await cli("run", scenario, "--plugin", `70-runs-itself=${program}`);
    expect(stdout).toBe("");
    expect(stderr.split("\n")[0]).toBe(
      `plugin 70-runs-itself (${program}) did not run: its process exited with code 2 before it registered; ` +
        "the module seems to call runPlugin itself: --plugin takes a module that exports its plugin, and runs it; " +
        "a program that runs itself runs with --exec, through an executable wrapper (see @nri-ts/sim's README, Plugins)",
    );
    expect(stderr).toContain("cannot tell the plugin's identity");
    expect(status).toBe(2);
  });

  it("--plugin-dir with a plugin that is not executable, and one that dies", async () => {
    const plugins = join(setupDir, "plugins");
    await mkdir(plugins);
    await writeFile(join(plugins, "README"), "not a plugin, and not executable: left alone, as a runtime does\n");
    await writeFile(join(plugins, "80-forgotten"), "#!/bin/sh\nexit 0\n");
    const first = await cli("run", scenario, "--plugin-dir", plugins);
    expect(first.stderr).toBe(
      `plugin 80-forgotten (${join(plugins, "80-forgotten")}) did not run: it is not executable (mode 0644): a runtime skips it; chmod +x it\n`,
    );
    expect(first.status).toBe(2);
    await chmod(join(plugins, "80-forgotten"), 0o755);
    const second = await cli("run", scenario, "--plugin-dir", plugins);
    expect(second.stderr).toMatch(
      new RegExp(
        `^plugin 80-forgotten \\(${join(plugins, "80-forgotten")}\\) did not run: failed to start pre-installed NRI plugin "forgotten": `,
      ),
    );
    expect(second.status).toBe(2);
  });

  it("a malformed NN-name=FILE", async () => {
    for (const [value, reason] of [
      ["1-x=a.js", "expected NN-name=FILE (a two-digit index, a dash, a name), or a file"],
      ["x=a.js", "expected NN-name=FILE (a two-digit index, a dash, a name), or a file"],
      ["10-x=", "expected NN-name=FILE (a two-digit index, a dash, a name), or a file"],
      ["10-a,b=a.js", `invalid plugin name "a,b": contains invalid character ','`],
    ]) {
      const { status, stderr } = await cli("run", scenario, "--plugin", value);
      expect(stderr.split("\n")[0]).toBe(`nri-sim: --plugin ${value}: ${reason}`);
      expect(status).toBe(2);
    }
    expect((await cli("run", scenario, "--exec", "7-x=/bin/true")).stderr.split("\n")[0]).toBe(
      "nri-sim: --exec 7-x=/bin/true: expected NN-name=FILE (a two-digit index, a dash, a name), or a file",
    );
  });

  it("says so in --help", async () => {
    const { stdout } = await cli("--help");
    expect(stdout).toContain("2 for a bad command line or scenario, or a\nplugin that did not run");
  });
});

describe("simulate() rejects with a PluginSetupError when a plugin did not run", () => {
  it("names each plugin, why, and what it printed last", async () => {
    const dies = join(fixtures, "dies-at-start.ts");
    const missing = join(setupDir, "90-missing");
    const failure = await simulate("steps: [{wait: 1ms}]", {
      plugins: [{ module: dies, index: "70", name: "dies" }],
    }).catch((error: unknown) => error);
    expect(failure).toBeInstanceOf(PluginSetupError);
    expect((failure as PluginSetupError).failures).toEqual([
      {
        plugin: "70-dies",
        path: dies,
        reason: "its process exited with code 4 before it registered",
        output: ["cannot read /etc/example/plugin.conf: no such file"],
      },
    ]);
    await expect(simulate("steps: [{wait: 1ms}]", { plugins: [{ executable: missing }] })).rejects.toMatchObject({
      name: "PluginSetupError",
      failures: [{ plugin: "90-missing", path: missing, reason: "no such file", output: [] }],
    });
  });

  it("keeps the head of a long line it printed, 64 KiB: 700 MB without a newline crashed nri-sim", async () => {
    const loud = join(setupDir, "70-loud");
    const size = 700_000_000;
    await writeFile(loud, `#!/bin/sh\necho starting >&2\nhead -c ${size} /dev/zero | tr '\\0' y >&2\nexit 4\n`);
    await chmod(loud, 0o755);
    // it exits on its own once it has written it all, which a busy machine may take long to do
    const scenario = "runtime: {registrationTimeout: 100s}\nsteps: [{wait: 1ms}]";
    await expect(simulate(scenario, { plugins: [{ executable: loud }] })).rejects.toMatchObject({
      name: "PluginSetupError",
      failures: [
        {
          plugin: "70-loud",
          reason: `failed to start pre-installed NRI plugin "loud": failed to register plugin, connection closed (the plugin exited with code 4)`,
          output: ["starting", `${"y".repeat(PLUGIN_TEXT_LIMIT)}… [${size - PLUGIN_TEXT_LIMIT} more bytes]`],
        },
      ],
    });
  }, 200_000);

  it("when external plugins it waits for do not come", async () => {
    await expect(simulate("steps: [{wait: 1ms}]", { waitPlugins: 2, waitTimeoutMs: 50 })).rejects.toMatchObject({
      name: "PluginSetupError",
      failures: [{ reason: "external plugins: 2 awaited within 50 ms, 0 came", output: [] }],
    });
  });
});
