// Helpers shared by this package's tests (not part of the build): scratch
// network namespaces, made with iproute2 as root, and what their links look like.
import { execFile, execFileSync } from "node:child_process";
import { promisify } from "node:util";
import { NetworkNamespace } from "../links.js";

const run = promisify(execFile);

/**
 * A network namespace of its own for a test, under /var/run/netns, named as
 * containerd names a pod's (`cni-<uid>`): an nri-sim pod with uid `uid`
 * has it as its network namespace.
 */
export interface ScratchNetns {
  name: string;
  uid: string;
  path: string;
  ns: NetworkNamespace;
  /** Runs `ip <args>` in it. */
  ip(...args: string[]): Promise<string>;
  remove(): Promise<void>;
}

let made = 0;

export async function scratchNetns(label: string): Promise<ScratchNetns> {
  const uid = `nrits-ndi-${process.pid}-${++made}-${label}`;
  const name = `cni-${uid}`;
  await run("ip", ["netns", "add", name]);
  const path = `/var/run/netns/${name}`;
  return {
    name,
    uid,
    path,
    ns: new NetworkNamespace(path),
    ip: async (...args) => (await run("ip", ["-n", name, ...args])).stdout,
    remove: async () => void (await run("ip", ["netns", "del", name])),
  };
}

/** Why scratch namespaces cannot be made here (not root, no iproute2, no CAP_SYS_ADMIN), or undefined where they can. */
export const noNetns: string | undefined = await (async () => {
  if (process.getuid?.() !== 0) return "not root";
  try {
    const probe = await scratchNetns("probe");
    await probe.ip("link", "add", "v0", "type", "veth", "peer", "name", "v1");
    await probe.remove();
    return undefined;
  } catch (error) {
    return (error as Error).message.split("\n")[0];
  }
})();

/** A namespace's links but lo, as `name[@alias]:up|down`, by name (synchronously, so that nri-sim's step observer can look). */
export function links(netns: ScratchNetns): string[] {
  const all = JSON.parse(execFileSync("ip", ["-n", netns.name, "-json", "link", "show"], { encoding: "utf8" })) as {
    ifname: string;
    flags: string[];
    ifalias?: string;
  }[];
  return all
    .filter((link) => link.ifname !== "lo")
    .map(
      (link) => `${link.ifname}${link.ifalias ? `@${link.ifalias}` : ""}:${link.flags.includes("UP") ? "up" : "down"}`,
    )
    .sort();
}
