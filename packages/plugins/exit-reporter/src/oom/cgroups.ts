/**
 * Where a container's memory cgroup is, on cgroup v1 (a `memory` hierarchy
 * of its own) and v2 (one unified hierarchy), and how to turn the cgroup
 * path a runtime sends (`linux.cgroups_path`) into a directory: either a
 * path (`/k8s.io/<id>`, the cgroupfs driver) or systemd's
 * `slice:prefix:name` (`kubepods-pod1.slice:cri-containerd:<id>`).
 */
import { readFile, stat } from "node:fs/promises";
import { release } from "node:os";
import { join, posix } from "node:path";

/** A mounted memory hierarchy: where it is mounted and which cgroup its mount point shows. */
export interface CgroupLayout {
  version: 1 | 2;
  mountPoint: string;
  /** The cgroup at the mount point, `/` unless the mount shows a subtree (e.g. in a cgroup namespace). */
  mountRoot: string;
  /**
   * Why a v2 cgroup's memory.events counts only its own OOM kills, not its
   * subtree's, when it does (the `memory_localevents` mount option, or a
   * kernel before 5.2); on v1 they are always its own.
   */
  localEvents?: string;
}

/** mountinfo escapes spaces, tabs, newlines and backslashes as octal. */
function unescapeMountField(field: string): string {
  return field.replace(/\\([0-7]{3})/g, (_, octal: string) => String.fromCharCode(Number.parseInt(octal, 8)));
}

/**
 * The memory hierarchy in `/proc/self/mountinfo` text: a cgroup v1 mount
 * with the memory controller if there is one (hybrid hosts have both; v1
 * then holds the memory controller), else the cgroup2 mount.
 */
export function memoryCgroupFromMountinfo(mountinfo: string): CgroupLayout | undefined {
  let v2: CgroupLayout | undefined;
  for (const line of mountinfo.split("\n")) {
    const fields = line.split(" ");
    const separator = fields.indexOf("-");
    if (separator < 6) continue;
    const [fsType, , superOptions = ""] = fields.slice(separator + 1);
    const mount = { mountPoint: unescapeMountField(fields[4]), mountRoot: unescapeMountField(fields[3]) };
    if (fsType === "cgroup" && superOptions.split(",").includes("memory")) return { version: 1, ...mount };
    if (fsType === "cgroup2") v2 ??= { version: 2, ...mount };
  }
  return v2;
}

/**
 * Why memory.events counts no subtree's kills on this machine, if it does
 * not: kernels from 5.2 count them in every ancestor, unless cgroup2 is
 * mounted with `memory_localevents` (a system-wide option: every cgroup2
 * mount shows it).
 */
export function localEventsOn(mountinfo: string, kernelRelease: string): string | undefined {
  const [major = 0, minor = 0] = kernelRelease.split(/[.-]/).map(Number);
  if (major < 5 || (major === 5 && minor < 2)) return `kernel ${kernelRelease} (before 5.2)`;
  for (const line of mountinfo.split("\n")) {
    const fields = line.split(" ");
    const separator = fields.indexOf("-");
    const superOptions = separator >= 6 && fields[separator + 1] === "cgroup2" ? fields[separator + 3] : undefined;
    if (superOptions?.split(",").includes("memory_localevents")) return "the cgroup2 mount option memory_localevents";
  }
  return undefined;
}

/**
 * The memory hierarchy under an explicitly configured root (e.g. the host's
 * `/sys/fs/cgroup` mounted into the reporter's container): v1 when it has a
 * `memory` directory, else v2.
 */
export async function memoryCgroupUnder(root: string): Promise<CgroupLayout> {
  const v1 = await stat(join(root, "memory")).then(
    (s) => s.isDirectory(),
    () => false,
  );
  return v1
    ? { version: 1, mountPoint: join(root, "memory"), mountRoot: "/" }
    : { version: 2, mountPoint: root, mountRoot: "/" };
}

/** Finds the memory hierarchy: under `root` if given, else from this process's mounts. */
export async function findMemoryCgroup(root?: string): Promise<CgroupLayout | undefined> {
  const mountinfo = await readFile("/proc/self/mountinfo", "utf8").catch(() => "");
  const layout = root ? await memoryCgroupUnder(root) : memoryCgroupFromMountinfo(mountinfo);
  if (layout?.version !== 2) return layout;
  const why = localEventsOn(mountinfo, release());
  return why ? { ...layout, localEvents: why } : layout;
}

/** `a-b-c.slice` as systemd nests it: `/a.slice/a-b.slice/a-b-c.slice`; `-.slice` is the root. */
export function expandSlice(slice: string): string {
  const name = slice.replace(/\.slice$/, "");
  if (name === "-" || name === "") return "/";
  const parts = name.split("-");
  return parts.map((_, i) => `/${parts.slice(0, i + 1).join("-")}.slice`).join("");
}

/** The cgroup directory, inside the hierarchy, of a runtime's cgroup path; undefined for none. */
export function cgroupDirectory(cgroupsPath: string): string | undefined {
  if (cgroupsPath === "") return undefined;
  if (cgroupsPath.startsWith("/")) return cgroupsPath;
  const [parent, prefix, name] = cgroupsPath.split(":");
  if (name === undefined) return `/${cgroupsPath}`;
  const unit = name.endsWith(".slice") ? name : prefix ? `${prefix}-${name}.scope` : `${name}.scope`;
  const base = expandSlice(parent || "system.slice");
  return `${base === "/" ? "" : base}/${unit}`;
}

/**
 * The cgroup path with `.` and `..` resolved, or undefined when a `..`
 * climbs above the hierarchy's root: a runtime never sends one, and
 * resolved later (by a join) it would lead out of the mount.
 */
export function resolveCgroup(cgroup: string): string | undefined {
  const parts: string[] = [];
  for (const part of cgroup.split("/")) {
    if (part === "" || part === ".") continue;
    if (part !== "..") parts.push(part);
    else if (parts.pop() === undefined) return undefined;
  }
  return `/${parts.join("/")}`;
}

/** The parent of a cgroup (resolved), or undefined for the hierarchy's root, or a path that leaves it. */
export function parentCgroup(cgroup: string): string | undefined {
  const resolved = resolveCgroup(cgroup);
  return resolved === undefined || resolved === "/" ? undefined : posix.dirname(resolved);
}

/** The directory of `cgroup` on disk, or undefined when it lies outside what the mount shows. */
export function cgroupPathOnDisk(layout: CgroupLayout, cgroup: string): string | undefined {
  const resolved = resolveCgroup(cgroup);
  const root = layout.mountRoot.replace(/\/+$/, "");
  if (resolved === undefined || (root !== "" && resolved !== root && !resolved.startsWith(`${root}/`)))
    return undefined;
  return join(layout.mountPoint, resolved.slice(root.length));
}
