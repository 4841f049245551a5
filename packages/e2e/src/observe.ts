/**
 * What a container saw, from the inside: `observing()` gives a container a
 * busybox script that prints the container's environment, rlimits, mounts and
 * cgroups and any files asked for, in sections; `observed()` reads them
 * back from the container's output. A check for a new plugin runs a pod
 * whose container runs this script and asserts on the result.
 *
 * ```ts
 * const { containers } = await runtime.runPod({
 *   annotations: { "ulimits.noderesource.dev/container.app": "- {type: nofile, soft: 1024, hard: 4096}" },
 *   containers: [{ name: "app", ...observing() }],
 * });
 * expect(observed(containers.app).limits["Max open files"]).toEqual({ soft: "1024", hard: "4096" });
 * ```
 */
import type { ContainerResult, ContainerSpec } from "./pod.js";

export interface ObserveOptions {
  /** Files to print (a missing one reads as `undefined`). */
  files?: readonly string[];
  /** More shell to run after the report (its output comes after the sections). */
  andThen?: string;
}

const MARK = "=== e2e:";
const END = `${MARK} end`;

/** The container's script, and its last line (its output is read once the log has it). It exits with the status of `andThen`, else 0. */
export function observing({
  files = [],
  andThen,
}: ObserveOptions = {}): Required<Pick<ContainerSpec, "script" | "outputEnd">> {
  const section = (name: string, command: string) => `echo '${MARK} ${name}'; ${command}`;
  const script = [
    section("env", "env"),
    section("limits", "cat /proc/self/limits"),
    section("mounts", "cat /proc/self/mountinfo"),
    section("cgroups", "cat /proc/self/cgroup"),
    ...files.map((file) =>
      section(`file ${file}`, `if [ -e '${file}' ]; then cat '${file}'; echo; else echo '${MARK} missing'; fi`),
    ),
    `echo '${END}'`,
    ...(andThen ? [andThen] : []),
  ].join("\n");
  return { script, outputEnd: END };
}

export interface Rlimit {
  soft: string;
  hard: string;
}

export interface MountSeen {
  /** Where it is mounted in the container. */
  path: string;
  /** The mounted file system's root (for a bind mount, the host directory below its file system). */
  root: string;
  fsType: string;
  /** Per-mount options, e.g. `ro`. */
  options: string[];
}

export interface Observed {
  env: Record<string, string>;
  /** By /proc/self/limits row name (`Max open files`, `Max processes`, ...). */
  limits: Record<string, Rlimit>;
  mounts: MountSeen[];
  /** /proc/self/cgroup, as printed. */
  cgroups: string;
  files: Record<string, string | undefined>;
}

function sections(output: string): Map<string, string[]> {
  const found = new Map<string, string[]>();
  let current: string[] | undefined;
  for (const line of output.split("\n")) {
    if (line.startsWith(`${MARK} `)) {
      const name = line.slice(MARK.length + 1);
      if (line === END) current = undefined;
      else if (name === "missing" && current) current.push(line);
      else found.set(name, (current = []));
    } else current?.push(line);
  }
  return found;
}

/** Reads back what {@link observing} printed. */
export function observed(container: Pick<ContainerResult, "stdout" | "name">): Observed {
  const found = sections(container.stdout);
  if (!found.has("env")) throw new Error(`container ${container.name} printed no report:\n${container.stdout}`);
  const env: Record<string, string> = {};
  for (const line of found.get("env") ?? []) {
    const at = line.indexOf("=");
    if (at > 0) env[line.slice(0, at)] = line.slice(at + 1);
  }
  const limits: Record<string, Rlimit> = {};
  for (const line of (found.get("limits") ?? []).slice(1)) {
    const match = /^(.+?)\s{2,}(\S+)\s+(\S+)/.exec(line);
    if (match) limits[match[1]] = { soft: match[2], hard: match[3] };
  }
  const mounts = (found.get("mounts") ?? []).flatMap((line): MountSeen[] => {
    const [before, after] = line.split(" - ");
    const fields = before?.split(" ") ?? [];
    if (fields.length < 6 || after === undefined) return [];
    return [{ path: fields[4], root: fields[3], fsType: after.split(" ")[0], options: fields[5].split(",") }];
  });
  const files: Record<string, string | undefined> = {};
  for (const [name, lines] of found) {
    if (!name.startsWith("file ")) continue;
    files[name.slice(5)] = lines[0] === `${MARK} missing` ? undefined : lines.join("\n").replace(/\n$/, "");
  }
  return { env, limits, mounts, cgroups: (found.get("cgroups") ?? []).join("\n"), files };
}
