import { execFile, spawn } from "node:child_process";
import { mkdtemp, rm } from "node:fs/promises";
import { createRequire } from "node:module";
import { type AddressInfo, createServer } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createInterface } from "node:readline";
import { pathToFileURL } from "node:url";
import { promisify } from "node:util";
import { Container, ContainerState, PodSandbox } from "@nri-ts/api";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { runCli, USAGE } from "./cli.js";
import { decodeConfig } from "./config.js";
import { GrpcOutput } from "./outputs/grpc-output.js";
import { ExitReporter } from "./reporter.js";

const S = 1_000_000_000n;
const T0 = 1_796_138_500_000_000_000n; // 2026-12-01T15:21:40Z

function container(id: string, name: string, exitCode: number, fields: Partial<Container> = {}): Container {
  return Container.fromPartial({
    id,
    name,
    state: ContainerState.CONTAINER_STOPPED,
    args: ["sh", "-c", "work"],
    createdAt: T0,
    startedAt: T0 + S,
    finishedAt: T0 + 4n * S,
    exitCode,
    ...fields,
  });
}

interface Run {
  code: number;
  stdout: string;
  stderr: string;
}

/** Runs nri-exits; `printed` hears its output as it comes. */
async function cli(
  args: string[],
  signal = new AbortController().signal,
  printed?: (text: string) => void,
): Promise<Run> {
  let stdout = "";
  let stderr = "";
  const code = await runCli(args, {
    stdout: {
      write: (text: string) => {
        printed?.(text);
        return (stdout += text);
      },
    },
    stderr: { write: (text: string) => (stderr += text) },
    env: {},
    signal,
  });
  return { code, stdout, stderr };
}

describe("nri-exits against a running reporter", () => {
  let dir: string;
  let socket: string;
  let reporter: ExitReporter;

  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), "nri-exits-"));
    socket = join(dir, "exits.sock");
    reporter = new ExitReporter({ now: () => T0 + 5n * S });
    await reporter.configure(decodeConfig(`jsonLines: false\ngrpc: {listen: ${socket}}\noom: {check: false}\n`));
    const shop = PodSandbox.fromPartial({ name: "web", namespace: "shop", uid: "u1" });
    const ops = PodSandbox.fromPartial({ name: "backup", namespace: "ops", uid: "u2" });
    await reporter.containerEnded("StopContainer", shop, container("c1", "app", 0));
    await reporter.containerEnded("StopContainer", shop, container("c2", "migrate", 127, { statusReason: "Error" }));
    await reporter.containerEnded(
      "StopContainer",
      ops,
      container("c3", "dump", 137, { statusReason: "OOMKilled", finishedAt: T0 + 90n * S }),
    );
  });

  afterAll(async () => {
    await reporter.close();
    await rm(dir, { recursive: true, force: true });
  });

  it("recent prints a table", async () => {
    const run = await cli(["recent", "--address", socket]);
    expect(run).toMatchObject({ code: 0, stderr: "" });
    expect(run.stdout.split("\n")).toEqual([
      "FINISHED              POD         CONTAINER  EXIT         REASON     SOURCE    RAN    EXPLANATION",
      "2026-12-01T15:21:44Z  shop/web    app        0            Completed  inferred  3s     exited normally (code 0); ran for 3s",
      "2026-12-01T15:21:44Z  shop/web    migrate    127          Error      runtime   3s     exited with code 127 (command not found): the container couldn't find the command work (the first of its script) in its PATH (the container sets none, so the shell's default); command: sh -c work; ran for 3s",
      "2026-12-01T15:23:10Z  ops/backup  dump       137 SIGKILL  OOMKilled  runtime   1m29s  killed by the out-of-memory killer (exit 137, SIGKILL), as the runtime reports; ran for 1m29s",
      "",
    ]);
  });

  it("recent filters, limits and prints JSON lines", async () => {
    const run = await cli(["recent", "--address", `unix://${socket}`, "--non-zero", "-n", "1", "--json"]);
    expect(run.code).toBe(0);
    expect(JSON.parse(run.stdout)).toMatchObject({
      sequence: 3,
      pod: { namespace: "ops", name: "backup", uid: "u2" },
      container: { name: "dump", id: "c3" },
      exitCode: 137,
      reason: "OOMKilled",
      reasonSource: "runtime",
      finishedAt: "2026-12-01T15:23:10.000000000Z",
      runSeconds: 89,
    });
    expect((await cli(["recent", "--address", socket, "--namespace", "nowhere"])).stdout).toBe("no exits yet\n");
  });

  it("watch prints one line per exit as it happens, until interrupted", async () => {
    const stop = new AbortController();
    let printed = "";
    const watching = cli(
      ["watch", "--address", socket, "--namespace", "shop"],
      stop.signal,
      (text) => (printed += text),
    );
    const grpc = reporter.activeOutputs.find((output) => output.name === "grpc") as unknown as {
      hub: { watchers: number };
    };
    while (grpc.hub.watchers === 0) await new Promise((resolve) => setTimeout(resolve, 10));
    const shop = PodSandbox.fromPartial({ name: "web", namespace: "shop" });
    await reporter.containerEnded(
      "StopContainer",
      PodSandbox.fromPartial({ name: "x", namespace: "other" }),
      container("c4", "skip", 1),
    );
    await reporter.containerEnded("StopContainer", shop, container("c5", "sidecar", 143, { statusReason: "Error" }));
    await expect.poll(() => printed).toContain("shop/web/sidecar exit 143");
    stop.abort();
    expect(await watching).toEqual({
      code: 0,
      stdout:
        "2026-12-01T15:21:44Z shop/web/sidecar exit 143 SIGTERM Error (runtime): killed by SIGTERM (exit 143): asked to terminate, as a runtime does when it stops a container; ran for 3s\n",
      stderr: "",
    });
  });

  it("cause attaches a cause, and shows the reporter's refusal", async () => {
    expect(
      await cli([
        "cause",
        "--address",
        socket,
        "--container-id",
        "c9",
        "--by",
        "10-evictor",
        "--reason",
        "Evicted",
        "--codes",
        "137,143",
      ]),
    ).toEqual({
      code: 0,
      stdout: "cause Evicted attached to container c9\n",
      stderr: "",
    });
    expect(
      await cli(["cause", "--address", socket, "--container-id", "c1", "--by", "10-evictor", "--reason", "Evicted"]),
    ).toEqual({
      code: 1,
      stdout: "",
      stderr: "nri-exits: FAILED_PRECONDITION: container c1 has ended already and was reported (record 1)\n",
    });
  });
});

describe("nri-exits mistakes", () => {
  it("says when the reporter cannot be reached, and why, in words", async () => {
    expect(await cli(["watch", "--address", "unix:///nonexistent/exits.sock"])).toEqual({
      code: 1,
      stdout: "",
      stderr:
        "nri-exits: cannot reach the exit reporter at unix:///nonexistent/exits.sock: there is no socket there " +
        "(is nri-exit-reporter running, with its gRPC output on?)\n",
    });
    // a port nothing listens on: the one of a server just closed
    const server = createServer();
    await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
    const { port } = server.address() as AddressInfo;
    await new Promise((resolve) => server.close(resolve));
    expect((await cli(["recent", "--address", `127.0.0.1:${port}`])).stderr).toBe(
      `nri-exits: cannot reach the exit reporter at 127.0.0.1:${port}: nothing listens there (connection refused) ` +
        "(is nri-exit-reporter running, with its gRPC output on?)\n",
    );
  });

  it.each([
    [[], "nri-exits: a command is needed\nRun nri-exits --help for the usage.\n"],
    [["tail"], "nri-exits: unknown command tail\nRun nri-exits --help for the usage.\n"],
    [
      ["recent", "-n", "many"],
      'nri-exits: -n: expected a whole number, got "many"\nRun nri-exits --help for the usage.\n',
    ],
    [
      ["recent", "--limit=many"],
      'nri-exits: --limit: expected a whole number, got "many"\nRun nri-exits --help for the usage.\n',
    ],
    [
      ["recent", "--address", "relative.sock"],
      'nri-exits: expected unix:///path/to.sock, an absolute socket path, or [host]:port, got "relative.sock"\nRun nri-exits --help for the usage.\n',
    ],
    [
      ["cause", "--container-id", "c1"],
      "nri-exits: cause needs --container-id, --by and --reason\nRun nri-exits --help for the usage.\n",
    ],
  ])("%j", async (args, stderr) => {
    expect(await cli(args)).toEqual({ code: 2, stdout: "", stderr });
  });

  it("refuses unknown options with the usage, and prints the usage for --help", async () => {
    const unknown = await cli(["watch", "--follow"]);
    expect(unknown.code).toBe(2);
    expect(unknown.stderr.split("\n")[0]).toBe(
      "nri-exits: Unknown option '--follow'. To specify a positional argument starting with a '-', place it at the end of the command after '--', as in '-- \"--follow\"",
    );
    expect(await cli(["--help"])).toEqual({ code: 0, stdout: USAGE, stderr: "" });
  });
});

describe("nri-exits when the reporter goes away while it watches", { timeout: 120_000 }, () => {
  let dir: string;
  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), "nri-exits-lost-"));
  });
  afterAll(() => rm(dir, { recursive: true, force: true }));

  /** A reporter's gRPC output in a process of its own, listening on `socket`. */
  async function reporterProcess(socket: string) {
    const loader = pathToFileURL(createRequire(import.meta.url).resolve("tsx")).href;
    const child = spawn(
      process.execPath,
      ["--conditions=@nri-ts/source", "--import", loader, join(import.meta.dirname, "fixtures/grpc-only.ts"), socket],
      { stdio: ["ignore", "pipe", "inherit"] },
    );
    const lines = createInterface({ input: child.stdout });
    const said = (line: string) => new Promise<void>((resolve) => lines.on("line", (l) => l === line && resolve()));
    await said("listening");
    return { child, watched: said("watched") };
  }

  it("says the connection was lost, not that the reporter cannot be reached", async () => {
    const socket = join(dir, "killed.sock");
    const reporter = await reporterProcess(socket);
    const watching = cli(["watch", "--address", socket]);
    await reporter.watched;
    reporter.child.kill("SIGKILL");
    expect(await watching).toEqual({
      code: 1,
      stdout: "",
      stderr: `nri-exits: lost the connection to the exit reporter at ${socket} (did it stop or restart?)\n`,
    });
  });

  it("says so when the reporter stops", async () => {
    const socket = join(dir, "stopping.sock");
    const output = await GrpcOutput.start({
      address: { kind: "unix", path: socket },
      onSubscriberDropped: () => {},
      attachCause: () => ({ replaced: false }),
    });
    const watching = cli(["watch", "--address", socket]);
    await expect.poll(() => output.hub.watchers).toBe(1);
    await output.close();
    expect(await watching).toEqual({
      code: 1,
      stdout: "",
      stderr: `nri-exits: the exit reporter at ${socket} is stopping\n`,
    });
  });
});

// Each run starts Node with tsx, which takes seconds on a busy machine (two runs took 5.7 s at load 17-23).
describe("nri-exits on a terminal", { timeout: 120_000 }, () => {
  let dir: string;
  let reporter: ExitReporter;
  const run = promisify(execFile);

  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), "nri-exits-tty-"));
    reporter = new ExitReporter();
    await reporter.configure(
      decodeConfig(`jsonLines: false\ngrpc: {listen: ${join(dir, "exits.sock")}}\noom: {check: false}\n`),
    );
    await reporter.containerEnded(
      "StopContainer",
      PodSandbox.fromPartial({ name: "web", namespace: "shop" }),
      container("c1", "app", 1),
    );
  });

  afterAll(async () => {
    await reporter.close();
    await rm(dir, { recursive: true, force: true });
  });

  /** The program's output as a terminal shows it: run under script(1), which gives it a pseudo-terminal. */
  async function onTerminal(env: Record<string, string>): Promise<string> {
    const loader = pathToFileURL(createRequire(import.meta.url).resolve("tsx")).href;
    const main = join(import.meta.dirname, "cli-main.ts");
    const command = `${process.execPath} --conditions=@nri-ts/source --import ${loader} ${main} recent --address ${join(dir, "exits.sock")}`;
    // Test runners set FORCE_COLOR for their children, and Node's hasColors() says no under CI=true
    // (as CI logs want it); the terminal alone decides here.
    const { FORCE_COLOR: _force, NO_COLOR: _no, CI: _ci, ...inherited } = process.env;
    const { stdout } = await run("script", ["-qec", command, "/dev/null"], {
      env: { ...inherited, TERM: "xterm", ...env },
    });
    return stdout;
  }

  it("is in colour, unless NO_COLOR says otherwise", async () => {
    const colored = await onTerminal({});
    // biome-ignore lint/suspicious/noControlCharactersInRegex: the terminal's escape sequences are what it checks
    expect(colored).toMatch(/\x1b\[31m1 +\x1b\[39m/); // the exit code in red
    // biome-ignore lint/suspicious/noControlCharactersInRegex: the terminal's escape sequences are what it checks
    expect(colored).toMatch(/\x1b\[1mFINISHED/);
    const plain = await onTerminal({ NO_COLOR: "1" });
    expect(plain).not.toContain("\x1b[");
    expect(plain).toContain("shop/web  app");
  });
});
