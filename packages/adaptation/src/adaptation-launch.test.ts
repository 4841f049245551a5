import { chmod, mkdir, readFile, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { setTimeout as sleep } from "node:timers/promises";
import { Event, eventMask } from "@nri-ts/api";
import { afterEach, beforeEach, describe, expect, test } from "vitest";
import type { AdaptationOptions } from "./adaptation.js";
import { silentLogger } from "./observability.js";
import { PLUGIN_TEXT_LIMIT } from "@nri-ts/common";
import { createRequest, pod, TestRuntime } from "./testing/runtime.js";

/*
 * Plugins the adaptation launches from its plugin directory. The fixture is
 * a small program (a scripted plugin on the inherited socket) behind a shell
 * wrapper that starts Node on it, since the plugin gets no PATH. Node with
 * tsx takes seconds to start on a busy machine (over 10 s with a cold tsx
 * cache under a full CI run): every runtime here gives launched plugins
 * LAUNCH_MS to register, but for the one test about the registration timeout.
 */

const LAUNCH_MS = 60_000;
/** Room for a few launches in a row. */
const LAUNCHES_TEST_MS = 3 * LAUNCH_MS;

const scriptedPlugin = fileURLToPath(new URL("./testing/scripted-plugin.ts", import.meta.url));
const tsx = import.meta.resolve("tsx");

const FIXTURE = `
import { fstatSync, openSync, writeSync } from "node:fs";
import { Socket } from "node:net";
import { ScriptedPlugin } from ${JSON.stringify(scriptedPlugin)};

const [behaviour, pidFile] = process.argv.slice(2);
writeSync(openSync(pidFile, "w"), String(process.pid));
const env = JSON.stringify(process.env);
const fd3 = fstatSync(3).isSocket() ? "socket" : "not a socket";
if (behaviour === "hangup") {
  // close the connection, but stay around
  new Socket({ fd: 3 }).destroy();
  setInterval(() => {}, 1000);
}
let config = "";
const plugin = behaviour === "hangup" ? undefined : ScriptedPlugin.inherited({
  name: behaviour === "renamed" ? "other" : process.env.NRI_PLUGIN_NAME,
  index: behaviour === "renamed" ? "99" : process.env.NRI_PLUGIN_IDX,
  handlers: {
    configure: async (request) => {
      config = request.config;
      // a crashing validator would fail creation closed; this one only adjusts
      return { events: behaviour === "crashing" ? 8 : 0 };
    },
    createContainer: async () => {
      if (behaviour === "crashing") process.exit(3);
      const name = process.env.NRI_PLUGIN_NAME;
      return { adjust: { annotations: { [\`config.\${name}\`]: config, [\`env.\${name}\`]: env, [\`fd3.\${name}\`]: fd3 } } };
    },
  },
});
plugin?.closed.then(() => process.exit(0));
`;

let runtime: TestRuntime;

/** A runtime with the fixture program in its directory. */
async function fixtureRuntime(options: AdaptationOptions): Promise<TestRuntime> {
  const created = await TestRuntime.create(options);
  await writeFile(join(created.dir, "fixture.mts"), FIXTURE);
  await mkdir(join(created.dir, "pids"));
  return created;
}

beforeEach(async () => {
  runtime = await fixtureRuntime({ registrationTimeoutMs: LAUNCH_MS });
});

afterEach(async () => {
  await runtime.close();
});

/** Installs `<pluginPath>/<fileName>` running the fixture with a behaviour. */
async function install(fileName: string, behaviour = "normal"): Promise<void> {
  const wrapper = [
    "#!/bin/sh",
    // the shell adds PWD; the plugin is to see only what the adaptation set
    `exec /usr/bin/env -u PWD ${process.execPath} --conditions=@nri-ts/source --import ${tsx} ` +
      `${join(runtime.dir, "fixture.mts")} ${behaviour} ${pidFile(fileName)}`,
    "",
  ].join("\n");
  const path = join(runtime.pluginPath, fileName);
  await writeFile(path, wrapper);
  await chmod(path, 0o755);
}

function pidFile(fileName: string): string {
  return join(runtime.dir, "pids", fileName);
}

async function isRunning(fileName: string): Promise<boolean> {
  const pid = Number(await readFile(pidFile(fileName), "utf8"));
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

async function annotations(): Promise<Record<string, string>> {
  const response = await runtime.adaptation.createContainer(createRequest("pod0", "ctr0"));
  return response.adjust?.annotations ?? {};
}

describe("launched plugins", { timeout: LAUNCHES_TEST_MS }, () => {
  test("get fd 3 and exactly NRI_PLUGIN_NAME, NRI_PLUGIN_IDX and NRI_PLUGIN_SOCKET", async () => {
    await install("10-logger");
    await runtime.adaptation.start();
    expect(runtime.adaptation.plugins).toMatchObject([{ fullName: "10-logger", kind: "launched" }]);
    const { "env.logger": env, "fd3.logger": fd3 } = await annotations();
    expect(JSON.parse(env!)).toEqual({ NRI_PLUGIN_NAME: "logger", NRI_PLUGIN_IDX: "10", NRI_PLUGIN_SOCKET: "3" });
    expect(fd3).toBe("socket");
  });

  test("get <idx>-<name>.conf, else <name>.conf, else nothing", async () => {
    await install("10-first");
    await install("20-second");
    await install("30-third");
    await writeFile(join(runtime.configPath, "10-first.conf"), "indexed: yes\n");
    await writeFile(join(runtime.configPath, "first.conf"), "plain: ignored\n");
    await writeFile(join(runtime.configPath, "second.conf"), "plain: yes\n");
    await runtime.adaptation.start();
    expect(runtime.adaptation.plugins.map((p) => [p.fullName, p.kind])).toEqual([
      ["10-first", "launched"],
      ["20-second", "launched"],
      ["30-third", "launched"],
    ]);
    const found = await annotations();
    expect([found["config.first"], found["config.second"], found["config.third"]]).toEqual([
      "indexed: yes\n",
      "plain: yes\n",
      "",
    ]);
  });

  test("keep the name of their file, whatever they register with", async () => {
    await install("10-renamed", "renamed");
    await runtime.adaptation.start();
    expect(runtime.pluginNames).toEqual(["10-renamed"]);
  });

  test("are killed when they do not register in time; the others start", async () => {
    // The silent one is a shell that keeps the socket and never registers: it
    // starts at once, so a short timeout is enough for it. A timeout applies
    // to registrations from then on: once it has failed, the next one (Node
    // and tsx) gets the generous one.
    const warnings: string[] = [];
    await runtime.close();
    runtime = await fixtureRuntime({
      registrationTimeoutMs: 3000,
      logger: {
        ...silentLogger,
        warn: (_fields: object | string, message?: string) => {
          warnings.push(message ?? "");
          runtime.adaptation.registrationTimeoutMs = LAUNCH_MS;
        },
      },
    });
    const silent = join(runtime.pluginPath, "10-silent");
    await writeFile(silent, `#!/bin/sh\necho $$ > ${pidFile("10-silent")}\nexec /bin/sleep 600\n`);
    await chmod(silent, 0o755);
    await install("20-normal");
    await runtime.adaptation.start();
    expect(runtime.pluginNames).toEqual(["20-normal"]);
    expect(await isRunning("10-silent")).toBe(false);
    expect(warnings).toEqual([`failed to start pre-installed NRI plugin "silent": plugin registration timed out`]);
  });

  test("are killed when they hang up before registering, even if they live on", async () => {
    await install("10-hangup", "hangup");
    await runtime.adaptation.start();
    expect(runtime.pluginNames).toEqual([]);
    expect(runtime.log.find((line) => line.level === "warn")?.message).toBe(
      `failed to start pre-installed NRI plugin "hangup": failed to register plugin, connection closed`,
    );
    expect(await isRunning("10-hangup")).toBe(false);
  });

  test("that crash are dropped, the request goes on", async () => {
    await install("10-crashing", "crashing");
    await install("20-normal");
    await writeFile(join(runtime.configPath, "normal.conf"), "x");
    await runtime.adaptation.start();
    expect((await annotations())["config.normal"]).toBe("x");
    expect(runtime.pluginNames).toEqual(["20-normal"]);
    // a dropped plugin is killed in the background: it ends soon, not at once
    await expect.poll(() => isRunning("10-crashing"), { timeout: 30_000 }).toBe(false);
  });

  test("are killed by stop()", async () => {
    await install("10-normal");
    await runtime.adaptation.start();
    expect(await isRunning("10-normal")).toBe(true);
    await runtime.adaptation.stop();
    expect(await isRunning("10-normal")).toBe(false);
  });

  test("are killed when the runtime refuses their synchronization, and start fails", async () => {
    await install("10-normal");
    runtime.failSync = true;
    await expect(runtime.adaptation.start()).rejects.toThrow(
      "failed to synchronize pre-installed NRI Plugins: synchronization refused by the test runtime",
    );
    expect(await isRunning("10-normal")).toBe(false);
  });
});

describe("discovery", () => {
  test("a missing plugin directory means no plugins", async () => {
    await runtime.close();
    runtime = await TestRuntime.create({ pluginPath: "/nonexistent/nri/plugins" });
    await runtime.adaptation.start();
    expect(runtime.pluginNames).toEqual([]);
  });

  test("directories and files without an execute bit are skipped", async () => {
    await mkdir(join(runtime.pluginPath, "10-directory"));
    await writeFile(join(runtime.pluginPath, "20-data"), "not a program");
    await writeFile(join(runtime.pluginPath, "README"), "no index either");
    await runtime.adaptation.start();
    expect(runtime.pluginNames).toEqual([]);
  });

  test.each([
    ["nodash", `invalid plugin name "nodash", idx-pluginname expected`],
    ["1a-foo", `invalid plugin index "1a" (not [0-9][0-9])`],
    ["100-foo", `invalid plugin index "100", must be 2 digits`],
  ])("one executable named %s fails start", async (fileName, reason) => {
    await install("10-normal");
    await install(fileName);
    await expect(runtime.adaptation.start()).rejects.toThrow(
      `failed to discover plugins in ${runtime.pluginPath}: ${reason}`,
    );
    expect(runtime.pluginNames).toEqual([]);
  });

  test("an unreadable configuration fails start", async () => {
    await install("10-normal");
    await mkdir(join(runtime.configPath, "10-normal.conf"));
    await expect(runtime.adaptation.start()).rejects.toThrow(
      `failed to discover plugins in ${runtime.pluginPath}: failed to read configuration for plugin "10-normal": EISDIR: illegal operation on a directory, read`,
    );
  });

  test("a plugin that dies at launch is logged with how it ended; launchedStderr hears what it wrote", async () => {
    const heard: Array<[string, string]> = [];
    const own = await TestRuntime.create({ launchedStderr: (plugin, line) => heard.push([plugin, line]) });
    try {
      await writeFile(
        join(own.pluginPath, "30-broken"),
        '#!/bin/sh\necho "no config at /etc/broken.conf" >&2\nexit 3\n',
      );
      await chmod(join(own.pluginPath, "30-broken"), 0o755);
      await own.adaptation.start();
      expect(own.pluginNames).toEqual([]);
      expect(own.log.filter((line) => line.level === "warn").map((line) => line.message)).toEqual([
        `failed to start pre-installed NRI plugin "broken": failed to register plugin, connection closed (the plugin exited with code 3)`,
      ]);
      expect(heard).toEqual([["30-broken", "no config at /etc/broken.conf"]]);
    } finally {
      await own.close();
    }
  });

  test(
    "a plugin writing 700 MB to stderr without a newline: launchedStderr hears its first 64 KiB and how much more there was",
    async () => {
      const heard: Array<[string, string]> = [];
      const own = await TestRuntime.create({
        registrationTimeoutMs: LAUNCH_MS,
        launchedStderr: (plugin, line) => heard.push([plugin, line]),
      });
      try {
        // readline built the line until it was longer than a string can be, and threw (the runtime died)
        const size = 700_000_000;
        await writeFile(
          join(own.pluginPath, "30-loud"),
          `#!/bin/sh\nhead -c ${size} /dev/zero | tr '\\0' x >&2\necho >&2\necho "then this" >&2\nexit 3\n`,
        );
        await chmod(join(own.pluginPath, "30-loud"), 0o755);
        await own.adaptation.start();
        expect(own.pluginNames).toEqual([]);
        expect(heard).toEqual([
          ["30-loud", `${"x".repeat(PLUGIN_TEXT_LIMIT)}… [${size - PLUGIN_TEXT_LIMIT} more bytes]`],
          ["30-loud", "then this"],
        ]);
      } finally {
        await own.close();
      }
    },
    LAUNCHES_TEST_MS,
  );

  test("a module that does not compile and files that do not run as plugins are skipped with a warning", async () => {
    await writeFile(
      join(runtime.pluginPath, "10-wasm"),
      Buffer.from([0x00, 0x61, 0x73, 0x6d, 0x01, 0x00, 0x00, 0x00, 0x01]),
    );
    await chmod(join(runtime.pluginPath, "10-wasm"), 0o755);
    await writeFile(join(runtime.pluginPath, "20-garbage"), Buffer.from([0xde, 0xad, 0xbe, 0xef]));
    await chmod(join(runtime.pluginPath, "20-garbage"), 0o755);
    await runtime.adaptation.start();
    expect(runtime.pluginNames).toEqual([]);
    expect(runtime.log.filter((line) => line.level === "warn").map((line) => line.message)).toEqual([
      expect.stringMatching(
        new RegExp(
          `^failed to initialize pre-installed NRI plugin "wasm": load WASM plugin ${join(runtime.pluginPath, "10-wasm")}: WebAssembly\\.compile\\(\\): `,
        ),
      ),
      // libuv's exec falls back to /bin/sh for a file that is no executable format (Go's fails with
      // ENOEXEC): the "script" ends at once, and the plugin with it
      `failed to start pre-installed NRI plugin "garbage": failed to register plugin, connection closed (the plugin exited with code 127)`,
    ]);
  });
});

describe("builtin plugins", () => {
  test("take part in order with the others", async () => {
    await runtime.close();
    const order: string[] = [];
    runtime = await TestRuntime.create({
      builtinPlugins: [
        {
          index: "50",
          name: "inside",
          handlers: {
            startContainer: () => {
              order.push("50-inside");
            },
            createContainer: async () => ({ adjust: { annotations: { inside: "yes" } } }),
          },
        },
      ],
    });
    await runtime.adaptation.start();
    await runtime.attach({
      index: "10",
      name: "outside",
      events: eventMask(Event.START_CONTAINER),
      handlers: {
        startContainer: async () => {
          order.push("10-outside");
          return {};
        },
      },
    });
    expect(runtime.adaptation.plugins).toMatchObject([
      { fullName: "10-outside", kind: "external" },
      { fullName: "50-inside", kind: "builtin", events: eventMask(Event.CREATE_CONTAINER, Event.START_CONTAINER) },
    ]);
    await runtime.adaptation.startContainer({ pod: pod("pod0"), container: undefined });
    expect(order).toEqual(["10-outside", "50-inside"]);
    expect(await annotations()).toEqual({ inside: "yes" });
  });

  test("without index or name fail start", async () => {
    await runtime.close();
    runtime = await TestRuntime.create({ builtinPlugins: [{ index: "", name: "anonymous", handlers: {} }] });
    await expect(runtime.adaptation.start()).rejects.toThrow(
      `failed to initialize builtin NRI plugin "anonymous": builtin plugin without index or name ("", "anonymous")`,
    );
  });

  test("that fail Configure fail start", async () => {
    await runtime.close();
    runtime = await TestRuntime.create({
      builtinPlugins: [
        {
          index: "10",
          name: "broken",
          handlers: {
            configure: () => {
              throw new Error("no config");
            },
          },
        },
      ],
    });
    await expect(runtime.adaptation.start()).rejects.toThrow(
      `failed to start builtin NRI plugin "broken": failed to configure plugin: no config`,
    );
  });

  test("that throw fail the request; that outlive the timeout are dropped", async () => {
    await runtime.close();
    runtime = await TestRuntime.create({
      requestTimeoutMs: 100,
      builtinPlugins: [
        {
          index: "10",
          name: "thrower",
          handlers: {
            runPodSandbox: () => {
              throw new Error("not today");
            },
          },
        },
        {
          index: "20",
          name: "sleeper",
          handlers: {
            startContainer: async (_request, signal) => {
              await sleep(10_000, undefined, { signal });
            },
          },
        },
      ],
    });
    await runtime.adaptation.start();
    await expect(runtime.adaptation.runPodSandbox({ pod: pod("pod0") })).rejects.toThrow("not today");
    await runtime.adaptation.startContainer({ pod: pod("pod0"), container: undefined });
    expect(runtime.pluginNames).toEqual(["10-thrower"]);
  });
});
