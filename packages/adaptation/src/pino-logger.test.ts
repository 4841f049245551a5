/**
 * The logger contract is pino's, `(fields, message)`: a real pino logger
 * given to the adaptation and to a stub plugin writes every field they log,
 * errors under pino's `err` included.
 */
import { Stub } from "@nri-ts/stub";
import { pino } from "pino";
import { afterEach, expect, test } from "vitest";
import { container, pod, TestRuntime } from "./testing/runtime.js";

/** A pino logger writing JSON lines into `lines`, without time, pid and hostname. */
function pinoInto(lines: Record<string, unknown>[]) {
  const destination = { write: (line: string) => void lines.push(JSON.parse(line) as Record<string, unknown>) };
  return pino({ level: "debug", base: undefined, timestamp: false }, destination);
}

let runtime: TestRuntime | undefined;
let stub: Stub | undefined;

afterEach(async () => {
  await stub?.stop();
  await runtime?.close();
  stub = runtime = undefined;
});

test("a pino logger keeps the fields of what the adaptation and the stub log", async () => {
  const runtimeLines: Record<string, unknown>[] = [];
  const pluginLines: Record<string, unknown>[] = [];
  runtime = await TestRuntime.create({ logger: pinoInto(runtimeLines), registrationTimeoutMs: 60_000 });
  runtime.pods = [pod("pod0")];
  await runtime.adaptation.start();

  stub = new Stub(
    {
      createContainer: () => {
        throw new Error("no containers today");
      },
    },
    { index: "10", name: "pino", socketPath: runtime.socketPath, logger: pinoInto(pluginLines), env: {} },
  );
  await stub.start();
  await runtime.waitFor(() => runtime!.pluginNames.includes("10-pino"));
  await expect(
    runtime.adaptation.createContainer({ pod: pod("pod0"), container: container("ctr0", "pod0") }),
  ).rejects.toThrow("no containers today");

  expect(runtimeLines).toEqual(
    expect.arrayContaining([
      {
        level: 30,
        plugin: "10-pino",
        kind: "external",
        nriVersion: expect.any(String),
        msg: "plugin 10-pino registered",
      },
      { level: 30, plugin: "10-pino", msg: "synchronizing plugin 10-pino" },
      { level: 30, plugin: "10-pino", msg: 'plugin "10-pino" connected and synchronized' },
    ]),
  );
  expect(pluginLines).toEqual(
    expect.arrayContaining([
      {
        level: 30,
        plugin: "10-pino",
        program: expect.any(String),
        events: "CreateContainer",
        msg: "created plugin 10-pino",
      },
      { level: 30, plugin: "10-pino", events: "CreateContainer", msg: "started plugin 10-pino" },
      {
        level: 50,
        plugin: "10-pino",
        method: "createContainer",
        err: expect.objectContaining({ type: "Error", message: "no containers today" }),
        msg: "createContainer failed: no containers today",
      },
    ]),
  );
});
