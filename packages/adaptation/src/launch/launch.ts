import { type ChildProcess, spawn } from "node:child_process";
import { once } from "node:events";
import type { Socket } from "node:net";
import { PLUGIN_IDX_ENV, PLUGIN_NAME_ENV, PLUGIN_SOCKET_ENV } from "@nri-ts/api";
import { socketPair } from "@nri-ts/mux";
import { readPluginLines } from "./plugin-lines.js";

/** A started plugin process and this side of its connection. */
export interface LaunchedProcess {
  child: ChildProcess;
  socket: Socket;
  /** Resolves once the process is gone and its output is all read. */
  closed: Promise<void>;
}

/**
 * Starts a plugin executable with its end of a fresh socket pair as fd 3 and
 * exactly three environment variables (nothing inherited, not even PATH):
 * `NRI_PLUGIN_NAME`, `NRI_PLUGIN_IDX` and `NRI_PLUGIN_SOCKET=3`. Its standard
 * streams go nowhere, but for the lines of its stderr when `stderr` hears them
 * (each bounded to 64 KiB, the rest of a longer one counted).
 *
 * @throws when the process cannot be started (ENOENT, EACCES, ...)
 */
export async function launchPlugin(
  path: string,
  index: string,
  name: string,
  stderr?: (line: string) => void,
): Promise<LaunchedProcess> {
  const { local, peer } = await socketPair();
  try {
    const child = spawn(path, [], {
      env: { [PLUGIN_NAME_ENV]: name, [PLUGIN_IDX_ENV]: index, [PLUGIN_SOCKET_ENV]: "3" },
      stdio: ["ignore", "ignore", stderr ? "pipe" : "ignore", peer],
    });
    if (stderr && child.stderr) readPluginLines(child.stderr, stderr);
    await new Promise<void>((resolve, reject) => {
      const spawned = () => {
        child.off("error", failed);
        resolve();
      };
      const failed = (error: Error) => {
        child.off("spawn", spawned);
        reject(error);
      };
      child.once("spawn", spawned);
      child.once("error", failed);
    });
    // A failure to signal the process later is no reason to crash the runtime.
    child.on("error", () => {});
    const closed = new Promise<void>((resolve) => child.once("close", () => resolve()));
    return { child, socket: local, closed };
  } catch (error) {
    local.destroy();
    throw error;
  } finally {
    peer.destroy();
  }
}

/**
 * Resolves once the process is gone and its output all read, or after `ms`
 * (a process it started may keep the output open).
 */
export function closedWithin(launched: LaunchedProcess, ms: number): Promise<void> {
  return new Promise((resolve) => {
    const timer = setTimeout(resolve, ms);
    void launched.closed.then(() => {
      clearTimeout(timer);
      resolve();
    });
  });
}

/** Plugins this adaptation killed itself: their end says nothing about them. */
const killed = new WeakSet<ChildProcess>();

/** How a launched plugin's process ended on its own, e.g. `exited with code 3`; undefined while it runs or when killed here. */
export function exitText(child: ChildProcess): string | undefined {
  if (child.signalCode === "SIGKILL" && killed.has(child)) return undefined;
  if (child.signalCode !== null) return `killed by ${child.signalCode}`;
  if (child.exitCode !== null) return `exited with code ${child.exitCode}`;
  return undefined;
}

/** Kills a launched plugin (SIGKILL: there is no graceful path) and waits until it is gone. */
export async function killPlugin(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return;
  killed.add(child);
  const exited = once(child, "exit");
  child.kill("SIGKILL");
  await exited;
}
