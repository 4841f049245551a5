import { socketFlags } from "@nri-ts/stub";

/** Where the plugin reads the host's mount table: a DaemonSet mounts the host's `/proc/1/mountinfo` there. */
export const DEFAULT_HOST_MOUNT_FILE = "/host/proc/1/mountinfo";

/** The command line of `nri-writable-cgroups`: the Go plugin's flags, with its help texts, and `-socket` as an alias of `-socket-path`. */
export const WRITABLE_CGROUPS_FLAGS = [
  { name: "idx", kind: "string", usage: "plugin index to register to NRI" },
  ...socketFlags("socket-path", "path of the NRI socket file"),
  {
    name: "host-mount-file",
    kind: "string",
    usage: `path to the host mountinfo file to check for nsdelegate (default "${DEFAULT_HOST_MOUNT_FILE}")`,
  },
  { name: "verbose", kind: "bool", usage: "enable (more) verbose logging" },
] as const;
