import { readFileSync } from "node:fs";

/** Node's own default, used where the kernel's limit cannot be read. */
const NODE_DEFAULT_BACKLOG = 511;

let backlog: number | undefined;

/**
 * The backlog for a listening socket, as Go's net package chooses it: the
 * kernel's limit (`/proc/sys/net/core/somaxconn`, 4096 by default since
 * Linux 5.4) instead of Node's fixed 511. Connections that arrive faster
 * than they are accepted wait in this queue; once it is full, a connect to
 * a unix socket fails with EAGAIN, so a burst of clients that a Go server
 * takes would otherwise be refused.
 */
export function listenBacklog(): number {
  if (backlog === undefined) {
    let limit = Number.NaN;
    try {
      limit = Number.parseInt(readFileSync("/proc/sys/net/core/somaxconn", "utf8"), 10);
    } catch {
      // not Linux, or no /proc: keep Node's default
    }
    backlog = limit > 0 ? limit : NODE_DEFAULT_BACKLOG;
  }
  return backlog;
}
