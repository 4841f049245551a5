import { type ChildProcess, spawn } from "node:child_process";
import { once } from "node:events";
import { createRequire } from "node:module";
import { dirname, join } from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";
import { socketPair } from "@nri-ts/mux";
import { afterEach, describe, expect, it } from "vitest";
import { UpdateBuilder } from "@nri-ts/api";
import { silentLogger } from "./logger.js";
import { runPlugin } from "./run-plugin.js";
import type { Stub } from "./stub.js";
import { ScriptedRuntime } from "./harness/scripted-runtime.js";

const packageDir = join(dirname(fileURLToPath(import.meta.url)), "..");
const tsx = pathToFileURL(createRequire(import.meta.url).resolve("tsx")).href;
const children: ChildProcess[] = [];

afterEach(() => {
  for (const child of children.splice(0)) child.kill("SIGKILL");
});

/**
 * Starts a plugin program (by default fixtures/child-plugin.ts) as a runtime
 * launches a plugin: the socket as fd 3 and only the three NRI variables in
 * its environment.
 */
async function launch(env: Record<string, string>, args: string[] = [], program = "fixtures/child-plugin.ts") {
  const { local, peer } = await socketPair();
  const child = spawn(
    process.execPath,
    ["--conditions=@nri-ts/source", "--import", tsx, join(packageDir, program), ...args],
    { cwd: packageDir, env: { NRI_PLUGIN_SOCKET: "3", ...env }, stdio: ["ignore", "ignore", "pipe", peer] },
  );
  children.push(child);
  peer.destroy();
  let stderr = "";
  child.stderr?.on("data", (chunk: Buffer) => (stderr += chunk.toString()));
  // "close", not "exit": by then every line it wrote on stderr has been read
  const exited = once(child, "close").then(([code, signal]) => ({ code, signal, stderr }));
  return { runtime: new ScriptedRuntime(local), child, exited };
}

// Each test starts Node with tsx, which takes seconds on a busy machine.
describe("runPlugin in a plugin program", { timeout: 120_000 }, () => {
  it("registers under the name the launching runtime gave, and serves", async () => {
    const { runtime, child } = await launch({ NRI_PLUGIN_NAME: "child", NRI_PLUGIN_IDX: "42" });
    await runtime.handshake();
    expect(runtime.registrations.map((r) => [r.pluginIdx, r.pluginName])).toEqual([["42", "child"]]);
    const reply = await runtime.plugin.createContainer({ container: { id: "c1" } });
    expect(reply.adjust?.annotations).toEqual({ "seen-by": `pid-${child.pid}` });
  });

  it("exits 0 on SIGTERM, closing the connection", async () => {
    const { runtime, child, exited } = await launch({ NRI_PLUGIN_NAME: "child", NRI_PLUGIN_IDX: "42" });
    await runtime.handshake();
    child.kill("SIGTERM");
    expect(await exited).toMatchObject({ code: 0, signal: null });
    await runtime.closed;
  });

  it("exits 1 when the runtime goes away, logging why", async () => {
    const { runtime, exited } = await launch({ NRI_PLUGIN_NAME: "child", NRI_PLUGIN_IDX: "42" });
    await runtime.handshake();
    runtime.close();
    const { code, stderr } = await exited;
    expect(code).toBe(1);
    const last = JSON.parse(stderr.trim().split("\n").at(-1)!);
    expect(last).toMatchObject({ level: "error", plugin: "42-child", err: { code: "ERR_STUB_CONNECTION_LOST" } });
  });

  it("exits with the exit code it was given when the runtime goes away", async () => {
    const { runtime, exited } = await launch({ NRI_PLUGIN_NAME: "child", NRI_PLUGIN_IDX: "42" }, ["--exit-code", "3"]);
    await runtime.handshake();
    runtime.close();
    expect((await exited).code).toBe(3);
  });

  it("does not try to reconnect the inherited connection", async () => {
    const { runtime, exited } = await launch({ NRI_PLUGIN_NAME: "child", NRI_PLUGIN_IDX: "42" }, ["--reconnect"]);
    await runtime.handshake();
    runtime.close();
    const { code, stderr } = await exited;
    expect(code).toBe(1);
    expect(stderr).toContain("was launched by the runtime and cannot reconnect");
  });

  it("says why on stderr, in words, and exits 2 before connecting when its identity is bad", async () => {
    const { runtime, exited } = await launch({ NRI_PLUGIN_NAME: "child", NRI_PLUGIN_IDX: "4x" });
    expect(await exited).toMatchObject({
      code: 2,
      stderr:
        'cannot tell the plugin\'s identity: invalid plugin index "4x" (not [0-9][0-9]) ' +
        "(set NRI_PLUGIN_IDX and NRI_PLUGIN_NAME, pass index and name, or name the program NN-name)\n",
    });
    expect(runtime.registrations).toEqual([]);
  });

  it("started by hand with a name and no index, says the index is missing, and exits 2", async () => {
    // as `node dist/main.js -name tini` does: the program's file name is no NN-name to fall back on
    const { exited } = await launch({}, ["--name", "tini"]);
    expect(await exited).toMatchObject({
      code: 2,
      stderr:
        `cannot tell the plugin's identity: the name "tini" has no index to go with it (a plugin registers as NN-name): ` +
        "give one with -idx (as in -idx 10 -name tini), NRI_PLUGIN_IDX or runPlugin's index option, or name the program 10-tini\n",
    });
  });

  it("runs the README's example plugin", async () => {
    const { runtime } = await launch(
      { NRI_PLUGIN_NAME: "annotate", NRI_PLUGIN_IDX: "10" },
      [],
      "examples/10-annotate.ts",
    );
    const configured = await runtime.handshake();
    expect(configured.events).toBe(0x248); // CreateContainer, PostStartContainer, StopContainer
    const reply = await runtime.plugin.createContainer({ pod: { name: "web" }, container: { id: "c1" } });
    expect(reply.adjust?.annotations).toEqual({ "example.com/seen-by": "annotate" });
    expect(reply.adjust?.env).toEqual([{ key: "POD_NAME", value: "web" }]);
  });
});

describe("runPlugin's onStub", () => {
  it("gives the plugin its Stub, to push updates from outside a handler and to stop it", async () => {
    const { runtime, connection } = await ScriptedRuntime.pair();
    let stub: Stub | undefined;
    const exitCodes: number[] = [];
    const running = runPlugin(
      { stopContainer: () => {} },
      {
        index: "10",
        name: "pusher",
        env: {},
        logger: silentLogger,
        connection,
        signals: [],
        exit: (code) => void exitCodes.push(code),
        onStub: (given) => (stub = given),
      },
    );
    await runtime.handshake();
    expect(stub?.name).toBe("10-pusher");
    expect(stub?.connected).toBe(true);
    await stub?.updateContainers([new UpdateBuilder("ctr-1").setCpuShares(256)]);
    expect(
      runtime.updateRequests.map((r) => r.update.map((u) => [u.containerId, u.linux?.resources?.cpu?.shares?.value])),
    ).toEqual([[["ctr-1", 256n]]]);
    await stub?.stop();
    await running;
    expect(exitCodes).toEqual([0]);
  });

  it("ends the program as a failed start does when it throws", async () => {
    const exitCodes: number[] = [];
    await runPlugin(
      { stopContainer: () => {} },
      {
        index: "10",
        name: "pusher",
        env: {},
        logger: silentLogger,
        signals: [],
        exit: (code) => void exitCodes.push(code),
        onStub: () => {
          throw new Error("no config");
        },
      },
    );
    expect(exitCodes).toEqual([1]);
  });
});
