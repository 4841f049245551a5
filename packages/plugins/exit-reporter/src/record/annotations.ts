/**
 * What pods and plugins declare in annotations, for the reporter to use
 * when a container ends:
 *
 * - the pod says what its containers' own exit codes mean, for all its
 *   containers (`exit-codes.exit-reporter.nri-ts.dev/pod`) or one
 *   (`exit-codes.exit-reporter.nri-ts.dev/container.<name>`, which wins):
 *   a YAML mapping such as `{3: "the configuration file is missing"}`;
 * - the pod declares a cause for its containers' ends
 *   (`cause.exit-reporter.nri-ts.dev/container.<name>`, else `.../pod`);
 * - a plugin declares a cause on a container it creates, in its adjustment
 *   (container annotation `cause.exit-reporter.nri-ts.dev/plugin.<plugin>`).
 *
 * A cause is a YAML mapping: `reason` (short CamelCase, required),
 * `message`, and `exitCodes` (the codes it explains; default any but 0).
 * A bad annotation is reported as a problem of that record; it never stops
 * the record.
 */
import type { Container, PodSandbox } from "@nri-ts/api";
import { MAX_YAML_NESTING, yamlMayNestDeeperThan } from "@nri-ts/sigs-yaml/nesting";
import { parse } from "yaml";
import { causeProblem, type DeclaredCause } from "./causes.js";
import { Source } from "../gen/nri_ts/exit_reporter/v1/exit_reporter.js";

export const EXIT_CODES_ANNOTATION = "exit-codes.exit-reporter.nri-ts.dev";
export const CAUSE_ANNOTATION = "cause.exit-reporter.nri-ts.dev";
const PLUGIN_SCOPE = "plugin.";

export interface Declarations {
  /** Exit code meanings the pod declared for this container. */
  meanings: Map<number, string>;
  /** Declared causes, the most specific first: plugins', then the pod's for the container, then for the pod. */
  causes: DeclaredCause[];
  /** What could not be read, each naming its annotation. */
  problems: string[];
}

/** A declaration (annotation or table) that cannot be used, and why. */
export class DeclarationError extends Error {}

function parseYaml(text: string): unknown {
  if (yamlMayNestDeeperThan(text)) throw new DeclarationError(`nested deeper than ${MAX_YAML_NESTING} levels`);
  try {
    return parse(text);
  } catch (error) {
    throw new DeclarationError(`not YAML: ${(error as Error).message.split("\n")[0]}`);
  }
}

function isMapping(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

/** An exit-code table: the entries that can be used, and what is wrong with each of the others. */
export interface ExitCodeTable {
  meanings: Map<number, string>;
  /** Each bad entry, by its key as written; `atKey`: the key is what is wrong. */
  mistakes: { key: string; message: string; atKey: boolean }[];
}

/**
 * Reads an exit-code table: whole-number keys, text values. A bad entry is
 * named in `mistakes` and left out; the good ones are kept.
 * @throws DeclarationError when it is not a mapping at all
 */
export function parseExitCodeTable(value: unknown): ExitCodeTable {
  if (!isMapping(value))
    throw new DeclarationError(
      'expected a mapping of exit codes to texts, e.g. {3: "the configuration file is missing"}',
    );
  const table: ExitCodeTable = { meanings: new Map(), mistakes: [] };
  for (const [key, text] of Object.entries(value)) {
    const code = Number(key);
    if (!/^-?\d+$/.test(key.trim()) || !Number.isSafeInteger(code))
      table.mistakes.push({ key, message: "expected a whole number as exit code", atKey: true });
    else if (typeof text !== "string" || text.trim() === "")
      table.mistakes.push({ key, message: "expected a text saying what the code means", atKey: false });
    else table.meanings.set(code, text.trim());
  }
  return table;
}

function parseCause(value: unknown, declaredBy: string, source: DeclaredCause["source"]): DeclaredCause {
  if (!isMapping(value)) throw new DeclarationError("expected a mapping with reason, message and exitCodes");
  const unknown = Object.keys(value).filter((key) => !["reason", "message", "exitCodes"].includes(key));
  if (unknown.length > 0) throw new DeclarationError(`unknown field ${unknown[0]} (known: reason, message, exitCodes)`);
  const { reason = "", message = "", exitCodes = [] } = value;
  if (typeof reason !== "string") throw new DeclarationError("reason: expected a text");
  if (typeof message !== "string") throw new DeclarationError("message: expected a text");
  if (!Array.isArray(exitCodes) || exitCodes.some((code) => typeof code !== "number")) {
    throw new DeclarationError("exitCodes: expected a list of exit codes");
  }
  const cause: DeclaredCause = { declaredBy, source, reason, message, exitCodes: exitCodes as number[] };
  const problem = causeProblem(cause);
  if (problem) throw new DeclarationError(problem.replace(/^exit_codes/, "exitCodes"));
  return cause;
}

/** Reads every declaration that concerns the container; bad annotations become problems. */
export function readDeclarations(pod: PodSandbox, container: Container): Declarations {
  const declarations: Declarations = { meanings: new Map(), causes: [], problems: [] };
  const read = <T>(key: string, text: string | undefined, parse: (value: unknown) => T): T | undefined => {
    if (text === undefined) return undefined;
    try {
      return parse(parseYaml(text));
    } catch (error) {
      if (!(error instanceof DeclarationError)) throw error;
      declarations.problems.push(`annotation ${key}: ${error.message}`);
      return undefined;
    }
  };

  const podAnnotations = pod.annotations ?? {};
  for (const scope of ["pod", `container.${container.name}`]) {
    const key = `${EXIT_CODES_ANNOTATION}/${scope}`;
    const table = read(key, podAnnotations[key], parseExitCodeTable);
    for (const mistake of table?.mistakes ?? [])
      declarations.problems.push(`annotation ${key}: ${mistake.key}: ${mistake.message}`);
    for (const [code, text] of table?.meanings ?? []) declarations.meanings.set(code, text);
  }

  for (const [key, text] of Object.entries(container.annotations ?? {})) {
    if (!key.startsWith(`${CAUSE_ANNOTATION}/${PLUGIN_SCOPE}`)) continue;
    const plugin = key.slice(CAUSE_ANNOTATION.length + 1 + PLUGIN_SCOPE.length);
    const cause = read(key, text, (value) => parseCause(value, plugin, Source.SOURCE_PLUGIN));
    if (cause) declarations.causes.push(cause);
  }
  for (const scope of [`container.${container.name}`, "pod"]) {
    const key = `${CAUSE_ANNOTATION}/${scope}`;
    const cause = read(key, podAnnotations[key], (value) => parseCause(value, "pod", Source.SOURCE_POD));
    if (cause) declarations.causes.push(cause);
  }
  return declarations;
}
