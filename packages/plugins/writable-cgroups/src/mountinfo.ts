/**
 * The host's cgroup mount, as the writable-cgroups plugin checks it at
 * start-up: the mount table (`/proc/<pid>/mountinfo`) read as
 * github.com/moby/sys/mountinfo reads it, and the first cgroup v2 mount on
 * `/sys/fs/cgroup` or `/sys/fs/cgroup/unified` asked whether its super
 * block options have `nsdelegate`. Error texts are the Go library's.
 */
import { readFile } from "node:fs/promises";
import { codeOf, goPathError, goQuote } from "@nri-ts/common";

/** One line of a mount table, the fields the check needs. */
export interface MountInfo {
  mountpoint: string;
  fstype: string;
  source: string;
  /** The super block options, as written (`rw,nsdelegate`). */
  vfsOptions: string;
}

/** A mount table (or the file holding it) that cannot be read; the message is the Go plugin's. */
export class MountInfoError extends Error {
  override readonly name = "MountInfoError";
}

/** What bufio.Scanner refuses: a line of 64 KiB or more. */
const MAX_LINE = 64 * 1024;

/** The bytes of a text read as latin1, shown as Go shows them (UTF-8). */
const shown = (latin1: string) => Buffer.from(latin1, "latin1").toString("utf8");

/** mountinfo's octal escapes (`\040` for a space), decoded byte by byte as the Go library does. */
function unescapeField(field: string): string {
  if (!field.includes("\\")) return field;
  let out = "";
  for (let i = 0; i < field.length; i++) {
    if (field[i] !== "\\") {
      out += field[i];
      continue;
    }
    const rest = field.slice(i);
    if (rest.length < 4) throw new Error(`bad escape sequence ${goQuote(shown(rest))}: too short`);
    const digits = rest.slice(1, 4);
    // the library's own formats lack an argument for this one
    if (!/^[0-7]/.test(digits))
      throw new Error(`bad escape sequence %!q(MISSING): not a digit${shown(rest.slice(0, 3))}`);
    if (!/^[0-7]{3}$/.test(digits))
      throw new Error(`bad escape sequence ${goQuote(shown(rest.slice(0, 3)))}: not a digit`);
    // a byte: \777 wraps around as Go's byte arithmetic does
    out += String.fromCharCode(Number.parseInt(digits, 8) & 0xff);
    i += 3;
  }
  return out;
}

/** Go's strings.SplitN(text, ":", 3). */
function splitN3(text: string): string[] {
  const parts = text.split(":");
  return parts.length <= 3 ? parts : [...parts.slice(0, 2), parts.slice(2).join(":")];
}

function parseLine(text: string): MountInfo {
  const fields = text.split(" ");
  if (fields.length < 10) throw new Error(`parsing '${shown(text)}' failed: not enough fields (${fields.length})`);
  let sep = fields.length - 4;
  while (fields[sep] !== "-") {
    sep--;
    if (sep === 5) throw new Error(`parsing '${shown(text)}' failed: missing - separator`);
  }
  const field = (index: number, what: string) => {
    try {
      return unescapeField(fields[index]);
    } catch (error) {
      throw new Error(`parsing '${shown(fields[index])}' failed: ${what}: ${(error as Error).message}`);
    }
  };
  const info = {
    mountpoint: field(4, "mount point"),
    fstype: field(sep + 1, "fstype"),
    source: field(sep + 2, "source"),
    vfsOptions: fields[sep + 3],
  };
  const majorMinor = splitN3(fields[2]);
  if (majorMinor.length !== 2)
    throw new Error(`parsing '${shown(text)}' failed: unexpected major:minor pair [${shown(majorMinor.join(" "))}]`);
  field(3, "root");
  return info;
}

/** Whether a mount is the host's cgroup v2 hierarchy. */
function isCgroup2Root(info: MountInfo): boolean {
  return (
    info.fstype === "cgroup2" && (info.mountpoint === "/sys/fs/cgroup" || info.mountpoint === "/sys/fs/cgroup/unified")
  );
}

/**
 * The first cgroup v2 mount on `/sys/fs/cgroup` or `/sys/fs/cgroup/unified`
 * in a mount table, or undefined; lines after it are not read.
 * @throws Error as the Go library words it, for a line it cannot parse before that mount
 */
export function findCgroup2Mount(table: string): MountInfo | undefined {
  const lines = table.split("\n");
  if (lines.at(-1) === "") lines.pop();
  for (const raw of lines) {
    if (raw.length >= MAX_LINE) throw new Error("bufio.Scanner: token too long");
    const info = parseLine(raw.endsWith("\r") ? raw.slice(0, -1) : raw);
    if (isCgroup2Root(info)) return info;
  }
  return undefined;
}

/**
 * Whether the host's cgroup v2 mount, in the mount table at `path`, has the
 * `nsdelegate` option (false when there is no such mount).
 * @throws MountInfoError when the file cannot be read or parsed
 */
export async function hostHasNsDelegate(path: string): Promise<boolean> {
  let table: string;
  try {
    table = await readFile(path, "latin1");
  } catch (error) {
    // Go opens the file, then reads it: a directory opens, and fails to read
    if (codeOf(error) === "EISDIR")
      throw new MountInfoError(`error scanning mount file: ${goPathError("read", path, error).message}`, {
        cause: error,
      });
    throw new MountInfoError(
      `failed to open mount file ${goQuote(path)}: ${goPathError("open", path, error).message}`,
      { cause: error },
    );
  }
  let mount: MountInfo | undefined;
  try {
    mount = findCgroup2Mount(table);
  } catch (error) {
    throw new MountInfoError(`error scanning mount file: ${(error as Error).message}`, { cause: error });
  }
  return mount?.vfsOptions.split(",").includes("nsdelegate") === true;
}
