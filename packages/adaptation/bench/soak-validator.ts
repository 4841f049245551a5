/**
 * The validating plugin of the soak (bench/soak.ts): a plugin program on
 * @nri-ts/stub, run in a process of its own and connected to the socket in
 * argv[2]. It rejects an adjustment that raises a container's open-file
 * hard limit above NOFILE_CEILING, naming the plugin that asked for it, and
 * accepts everything else.
 */
import { Field } from "@nri-ts/api";
import { runPlugin } from "@nri-ts/stub";

const NOFILE_CEILING = 1_048_576n;

const [socketPath] = process.argv.slice(2);
if (!socketPath) {
  process.stderr.write("usage: soak-validator.ts SOCKET\n");
  process.exit(2);
}

await runPlugin(
  {
    validateContainerAdjustment(request) {
      for (const rlimit of request.adjust?.rlimits ?? []) {
        if (rlimit.type === "RLIMIT_NOFILE" && rlimit.hard > NOFILE_CEILING) {
          const owner =
            request.owners?.owners[request.container?.id ?? ""]?.compound[Field.Rlimits]?.owners.RLIMIT_NOFILE;
          throw new Error(
            `RLIMIT_NOFILE hard limit ${rlimit.hard} (set by ${owner ?? "?"}) is above ${NOFILE_CEILING}`,
          );
        }
      }
    },
  },
  { name: "soak-validator", index: "90", socketPath },
);
