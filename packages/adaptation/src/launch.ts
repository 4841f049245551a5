import { type ChildProcess, spawn } from "node:child_process";
import { once } from "node:events";
import type { Socket } from "node:net";
import { PLUGIN_IDX_ENV, PLUGIN_NAME_ENV, PLUGIN_SOCKET_ENV } from "@nri-ts/api";
import { socketPair } from "@nri-ts/mux";

/** A started plugin process and this side of its connection. */
export interface LaunchedProcess {
  child: ChildProcess;
  socket: Socket;
}

/**
 * Starts a plugin executable with its end of a fresh socket pair as fd 3 and
 * exactly three environment variables (nothing inherited, not even PATH):
 * `NRI_PLUGIN_NAME`, `NRI_PLUGIN_IDX` and `NRI_PLUGIN_SOCKET=3`. Its standard
 * streams go nowhere.
 *
 * @throws when the process cannot be started (ENOENT, EACCES, ...)
 */
export async function launchPlugin(path: string, index: string, name: string): Promise<LaunchedProcess> {
  const { local, peer } = await socketPair();
  try {
    const child = spawn(path, [], {
      env: { [PLUGIN_NAME_ENV]: name, [PLUGIN_IDX_ENV]: index, [PLUGIN_SOCKET_ENV]: "3" },
      stdio: ["ignore", "ignore", "ignore", peer],
    });
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
    return { child, socket: local };
  } catch (error) {
    local.destroy();
    throw error;
  } finally {
    peer.destroy();
  }
}

/** Kills a launched plugin (SIGKILL: there is no graceful path) and waits until it is gone. */
export async function killPlugin(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return;
  const exited = once(child, "exit");
  child.kill("SIGKILL");
  await exited;
}
