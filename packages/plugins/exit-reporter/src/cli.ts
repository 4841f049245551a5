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
import { STOPPING } from "./outputs/grpc-output.js";
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

/** `option`'s value as a whole number; `typed` is the option as the user wrote it (`-n` or `--limit`). */
function wholeNumber(text: string, typed: string): number {
  if (!/^\d+$/.test(text)) throw new UsageError(`${typed}: expected a whole number, got ${JSON.stringify(text)}`);
  return Number(text);
}

/** What the system said when the connection failed, in words (grpc-js wraps it in its own). */
const CONNECT_ERRORS: Readonly<Record<string, string>> = {
  ENOENT: "there is no socket there",
  ECONNREFUSED: "nothing listens there (connection refused)",
  EACCES: "permission denied",
  EPERM: "permission denied",
  ENOTSOCK: "that file is no socket",
  ETIMEDOUT: "the connection timed out",
  EHOSTUNREACH: "the host cannot be reached",
  ENETUNREACH: "the network cannot be reached",
};

/** gRPC's details of an unavailable channel, without its own wording around the cause. */
function whyUnavailable(details: string): string {
  const code = /\bconnect (E[A-Z]+)\b/.exec(details)?.[1];
  if (code) return CONNECT_ERRORS[code] ?? code;
  if (/Name resolution failed/i.test(details)) return "the host name does not resolve";
  const cause = /Last error: (?:Error: )?(.*?)\.? Resolution note:/.exec(details)?.[1];
  return (cause ?? details).replace(/^No connection established\.\s*/, "") || "no connection";
}

/** The error in the user's terms: a reporter that is not there, one that went away, or what it answered. */
function describeClientError(error: ClientError, address: string, wasConnected: boolean): string {
  if (error.code !== Status.UNAVAILABLE) return `${Status[error.code]}: ${error.details}`;
  if (error.details === STOPPING) return `the exit reporter at ${address} is stopping`;
  if (wasConnected) return `lost the connection to the exit reporter at ${address} (did it stop or restart?)`;
  return `cannot reach the exit reporter at ${address}: ${whyUnavailable(error.details)} (is nri-exit-reporter running, with its gRPC output on?)`;
}

/** The options as the user wrote them, by name: `{limit: "-n"}`. */
function typedNames(tokens: readonly { kind: string; name?: string; rawName?: string }[]): Map<string, string> {
  const typed = new Map<string, string>();
  for (const token of tokens)
    if (token.kind === "option" && token.name && token.rawName) typed.set(token.name, token.rawName);
  return typed;
}

/** Runs the command line; resolves with the exit code. */
export async function runCli(argv: readonly string[], io: CliIo): Promise<number> {
  let parsed;
  try {
    parsed = parseArgs({ args: [...argv], options: OPTIONS, allowPositionals: true, strict: true, tokens: true });
  } catch (error) {
    io.stderr.write(`nri-exits: ${(error as Error).message}\n${USAGE}`);
    return 2;
  }
  const { values, positionals } = parsed;
  const typed = typedNames(parsed.tokens);
  const option = (name: string) => typed.get(name) ?? `--${name}`;
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
      const limit = values.limit === undefined ? 20 : wholeNumber(values.limit, option("limit"));
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
        ttlSeconds: values.ttl === undefined ? 0 : wholeNumber(values.ttl, option("ttl")),
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
      io.stderr.write(`nri-exits: ${describeClientError(error, address, connection?.wasConnected ?? false)}\n`);
      return 1;
    }
    throw error;
  } finally {
    connection?.close();
  }
}
