import type { Plugin } from "@nri-ts/stub";
import { DEFAULT_HOST_MOUNT_FILE } from "./flags.js";
import { hostHasNsDelegate } from "./mountinfo.js";
import { createWritableCgroups } from "./plugin.js";

export { DEFAULT_HOST_MOUNT_FILE } from "./flags.js";
export { findCgroup2Mount, hostHasNsDelegate, type MountInfo, MountInfoError } from "./mountinfo.js";
export { createWritableCgroups, type WritableCgroupsOptions } from "./plugin.js";
export {
  CGROUPS_MOUNT,
  CgroupMountError,
  readWriteOptions,
  WRITABLE_CGROUPS_ANNOTATION,
  type WritableCgroupsInput,
  writableCgroupsAdjustment,
  writableCgroupsWanted,
} from "./writable-cgroups.js";

/**
 * The writable-cgroups plugin for `nri-sim --plugin`. Its configuration, if
 * any, is the path of the host's mount table to check for `nsdelegate`
 * (default `/host/proc/1/mountinfo`); a table that cannot be read leaves it
 * disabled, as in the Go plugin.
 */
export async function plugin(config = ""): Promise<Plugin> {
  const hostNsDelegate = await hostHasNsDelegate(config.trim() || DEFAULT_HOST_MOUNT_FILE).catch(() => false);
  return createWritableCgroups({ hostNsDelegate });
}
