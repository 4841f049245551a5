/**
 * `nri-writable-cgroups`: the writable-cgroups plugin as a program, with
 * the Go plugin's flags (`-idx`, `-socket-path`, `-host-mount-file`,
 * `-verbose`). It checks the host's cgroup mount for `nsdelegate` once (and
 * changes nothing without it), logs in the Go plugins' text format, and
 * exits 1 when the runtime goes away.
 */
import { createLogger, flagsOrExit, parseGoFlags, runPlugin } from "@nri-ts/stub";
import { DEFAULT_HOST_MOUNT_FILE, WRITABLE_CGROUPS_FLAGS } from "./flags.js";
import { hostHasNsDelegate } from "./mountinfo.js";
import { createWritableCgroups } from "./plugin.js";

async function main(): Promise<void> {
  const flags = flagsOrExit(() => parseGoFlags(WRITABLE_CGROUPS_FLAGS, process.argv.slice(2), "nri-writable-cgroups"));
  const logger = createLogger({ format: "text", level: flags.verbose ? "debug" : "info" });
  let hostNsDelegate = false;
  try {
    hostNsDelegate = await hostHasNsDelegate(flags["host-mount-file"] || DEFAULT_HOST_MOUNT_FILE);
    if (hostNsDelegate) logger.info("Host cgroup mount has 'nsdelegate' option, enabling writable cgroups support");
    else logger.warn("Host cgroup mount does not have 'nsdelegate' option, disabling writable cgroups");
  } catch (error) {
    logger.warn({ error }, "Failed to check for nsdelegate option on host cgroup mount, disabling writable cgroups");
  }
  await runPlugin(createWritableCgroups({ hostNsDelegate, logger }), {
    ...(flags.idx && { index: flags.idx }),
    ...(flags["socket-path"] && { socketPath: flags["socket-path"] }),
    defaultName: "writable-cgroups",
    logger,
  });
}

await main();
