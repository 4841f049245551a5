/**
 * `nri-exits`: the operator's way into the exit reporter, over its gRPC
 * service. `watch` prints exits as they happen, `recent` the last ones the
 * reporter kept, `cause` declares why a container is about to end.
 */
import { parseArgs } from "node:util";
import { ClientError, Status } from "nice-grpc-common";
import { AddressError } from "./outputs/address.js";
import { connectExitReporter, DEFAULT_ADDRESS } from "./client.js";
import type { ExitFilter } from "./gen/nri_ts/exit_reporter/v1/exit_reporter.js";
import { exitRecordToJson } from "./outputs/json-record.js";
import { exitLine, exitTable, styleFor } from "./render.js";

export const USAGE = `Usage: nri-exits <command> [options]

Commands:
  watch    print exits as they happen, one line each, until interrupted
  recent   print the last exits the reporter kept, as a table
  cause    declare why a container is about to end

Options:
  --address ADDR        the reporter's gRPC service: unix:///path, a socket path or host:port
                        (default $NRI_EXITS_ADDRESS, else ${DEFAULT_ADDRESS})
  --namespace NS        only exits of pods in this namespace (watch, recent)
  --pod NAME            only exits of this pod (watch, recent)
  --container NAME      only exits of containers with this name (watch, recent)
  --non-zero            only exits with a code other than 0 (watch, recent)
  --json                one JSON object per exit and line (watch, recent)
  -n, --limit N         recent: the newest N exits (default 20; 0 for all)
  --container-id ID     cause: the container
  --by NAME             cause: who declares it (your plugin's name)
  --reason REASON       cause: short CamelCase, e.g. Evicted
  --message TEXT        cause: what happened
  --codes 137,143       cause: only for exits with these codes (default: any but 0)
  --ttl SECONDS         cause: forget it after this long (default: the reporter's)
  -h, --help            this text
`;

const OPTIONS = {
  address: { type: "string" },
  namespace: { type: "string" },
  pod: { type: "string" },
  container: { type: "string" },
  "non-zero": { type: "boolean" },
  json: { type: "boolean" },
  limit: { type: "string", short: "n" },
  "container-id": { type: "string" },
  by: { type: "string" },
  reason: { type: "string" },
  message: { type: "string" },
  codes: { type: "string" },
  ttl: { type: "string" },
  help: { type: "boolean", short: "h" },
} as const;

/** A mistake on the command line: printed with a pointer to the usage, exit code 2. */
class UsageError extends Error {}

export interface CliIo {
  stdout: { write(text: string): unknown; isTTY?: boolean; hasColors?: () => boolean };
  stderr: { write(text: string): unknown };
  env: Readonly<Record<string, string | undefined>>;
  /** Aborted to stop `watch` (SIGINT, SIGTERM). */
  signal: AbortSignal;
}

function wholeNumber(text: string, option: string): number {
  if (!/^\d+$/.test(text)) throw new UsageError(`--${option}: expected a whole number, got ${JSON.stringify(text)}`);
  return Number(text);
}

function describeClientError(error: ClientError, address: string): string {
  if (error.code === Status.UNAVAILABLE) {
    return `cannot reach the exit reporter at ${address}: ${error.details} (is nri-exit-reporter running, with its gRPC output on?)`;
  }
  return `${Status[error.code]}: ${error.details}`;
}

/** Runs the command line; resolves with the exit code. */
export async function runCli(argv: readonly string[], io: CliIo): Promise<number> {
  let parsed;
  try {
    parsed = parseArgs({ args: [...argv], options: OPTIONS, allowPositionals: true, strict: true });
  } catch (error) {
    io.stderr.write(`nri-exits: ${(error as Error).message}\n${USAGE}`);
    return 2;
  }
  const { values, positionals } = parsed;
  if (values.help) {
    io.stdout.write(USAGE);
    return 0;
  }
  const [command, ...extra] = positionals;
  const address = values.address ?? io.env.NRI_EXITS_ADDRESS ?? DEFAULT_ADDRESS;
  let connection;
  try {
    if (!command || !["watch", "recent", "cause"].includes(command) || extra.length > 0) {
      throw new UsageError(command ? `unknown command ${[command, ...extra].join(" ")}` : "a command is needed");
    }
    connection = connectExitReporter(address);
    const filter: ExitFilter = {
      namespace: values.namespace ?? "",
      pod: values.pod ?? "",
      container: values.container ?? "",
      nonZeroOnly: values["non-zero"] ?? false,
    };
    const style = styleFor(io.stdout);
    const print = (text: string) => io.stdout.write(`${text}\n`);
    if (command === "recent") {
      const limit = values.limit === undefined ? 20 : wholeNumber(values.limit, "limit");
      const { exits } = await connection.client.listRecentExits({ filter, limit });
      if (values.json) for (const exit of exits) print(JSON.stringify(exitRecordToJson(exit)));
      else print(exits.length === 0 ? "no exits yet" : exitTable(exits, style));
      return 0;
    }
    if (command === "cause") {
      const id = values["container-id"];
      if (!id || !values.by || !values.reason) throw new UsageError("cause needs --container-id, --by and --reason");
      const codes = values.codes
        ? values.codes.split(",").map((code) => {
            if (!/^-?\d+$/.test(code.trim()))
              throw new UsageError(`--codes: expected exit codes such as 137,143, got ${JSON.stringify(values.codes)}`);
            return Number(code);
          })
        : [];
      const { replaced } = await connection.client.attachCause({
        containerId: id,
        declaredBy: values.by,
        reason: values.reason,
        message: values.message ?? "",
        exitCodes: codes,
        ttlSeconds: values.ttl === undefined ? 0 : wholeNumber(values.ttl, "ttl"),
      });
      print(
        `cause ${values.reason} attached to container ${id}${replaced ? " (replacing the earlier one from the same declarer)" : ""}`,
      );
      return 0;
    }
    for await (const { exit } of connection.client.watchExits({ filter }, { signal: io.signal })) {
      if (exit) print(values.json ? JSON.stringify(exitRecordToJson(exit)) : exitLine(exit, style));
    }
    io.stderr.write("nri-exits: the exit reporter ended the stream\n");
    return 1;
  } catch (error) {
    if (io.signal.aborted) return 0;
    if (error instanceof UsageError || error instanceof AddressError) {
      io.stderr.write(`nri-exits: ${error.message}\nRun nri-exits --help for the usage.\n`);
      return 2;
    }
    if (error instanceof ClientError) {
      io.stderr.write(`nri-exits: ${describeClientError(error, address)}\n`);
      return 1;
    }
    throw error;
  } finally {
    connection?.close();
  }
}
