/**
 * Making room for a unix socket to listen on: a socket file left behind by
 * a process that is gone is removed; one that a live process answers on,
 * or a file that is not a socket, is an error.
 */
import { lstat, rm } from "node:fs/promises";
import { connect } from "node:net";

function answers(path: string): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = connect(path);
    socket.once("connect", () => {
      socket.destroy();
      resolve(true);
    });
    socket.once("error", () => resolve(false));
  });
}

/** @throws Error naming the path when something is in the way */
export async function clearStaleSocket(path: string): Promise<void> {
  const stats = await lstat(path).catch((error: NodeJS.ErrnoException) => {
    if (error.code === "ENOENT") return undefined;
    throw error;
  });
  if (!stats) return;
  if (!stats.isSocket()) throw new Error(`${path} exists and is not a socket`);
  if (await answers(path)) throw new Error(`another process is listening on ${path}`);
  await rm(path, { force: true });
}
