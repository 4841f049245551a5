/**
 * Network links of one network namespace, changed with iproute2's `ip`:
 * in the plugin's own namespace directly, in another one (a pod's, given by
 * the path of its namespace file) through util-linux's `nsenter --net`.
 * Node.js has no netlink socket, and both tools are on every Linux node
 * (the container image installs them), so this is the robust way; each
 * call is one short-lived process.
 */
import { execFile } from "node:child_process";
import { existsSync } from "node:fs";
import { join } from "node:path";

/** A link as the plugin needs to know it. */
export interface Link {
  index: number;
  name: string;
  /** Administratively up (IFF_UP). */
  up: boolean;
  /** Its alias (`ip link set ... alias`); "" without one. */
  alias: string;
}

/** A command failed; the message is the tool's own words. */
export class LinkError extends Error {
  override readonly name = "LinkError";
}

/** Where to look for the tools when PATH does not have them (a runtime launches plugins without PATH). */
const SYSTEM_DIRS = ["/usr/sbin", "/sbin", "/usr/bin", "/bin"];

/** The absolute path of a tool, from PATH or the system's directories. */
export function findTool(name: string, path = process.env.PATH ?? ""): string {
  for (const dir of [...path.split(":").filter(Boolean), ...SYSTEM_DIRS]) {
    const candidate = join(dir, name);
    if (existsSync(candidate)) return candidate;
  }
  throw new LinkError(
    `${name} not found (looked in PATH and ${SYSTEM_DIRS.join(", ")}): install ${name === "ip" ? "iproute2" : "util-linux"}`,
  );
}

function run(command: string, args: readonly string[]): Promise<string> {
  return new Promise((resolve, reject) => {
    execFile(command, args, { encoding: "utf8" }, (error, stdout, stderr) => {
      if (error) reject(new LinkError(stderr.trim() || error.message));
      else resolve(stdout);
    });
  });
}

/** The links of one network namespace. */
export class NetworkNamespace {
  /**
   * @param path the namespace file (`/var/run/netns/cni-...`); undefined
   *   for the plugin's own namespace
   */
  constructor(readonly path?: string) {}

  private ip(args: readonly string[]): Promise<string> {
    const ip = findTool("ip");
    return this.path === undefined ? run(ip, args) : run(findTool("nsenter"), [`--net=${this.path}`, ip, ...args]);
  }

  /** Whether the namespace can be entered (its file is a namespace this process may join). */
  async check(): Promise<void> {
    await this.ip(["-V"]);
  }

  /** The link called `name`; an empty name is no link (`ip` would otherwise list them all). */
  async link(name: string): Promise<Link> {
    if (name === "") throw new LinkError('Device "" does not exist.');
    const [link] = JSON.parse(await this.ip(["-json", "link", "show", "dev", name])) as {
      ifindex: number;
      ifname: string;
      flags?: string[];
      ifalias?: string;
    }[];
    if (!link) throw new LinkError(`Device "${name}" does not exist.`);
    return {
      index: link.ifindex,
      name: link.ifname,
      up: link.flags?.includes("UP") ?? false,
      alias: link.ifalias ?? "",
    };
  }

  async setDown(name: string): Promise<void> {
    await this.ip(["link", "set", "dev", name, "down"]);
  }

  async setUp(name: string): Promise<void> {
    await this.ip(["link", "set", "dev", name, "up"]);
  }

  /** Renames a link; to an empty name it fails (`ip` refuses it, as the kernel refuses netlink's empty name). */
  async rename(name: string, to: string): Promise<void> {
    await this.ip(["link", "set", "dev", name, "name", to]);
  }

  async setAlias(name: string, alias: string): Promise<void> {
    await this.ip(["link", "set", "dev", name, "alias", alias]);
  }

  /** Moves a link into another namespace. */
  async moveTo(name: string, target: NetworkNamespace): Promise<void> {
    // The plugin's own namespace by a path that means the same from inside another one.
    await this.ip(["link", "set", "dev", name, "netns", target.path ?? `/proc/${process.pid}/ns/net`]);
  }
}
