/**
 * One hook file (`hooks.d/*.json`), read and checked as the containers
 * hooks library (go.podman.io/common/pkg/hooks v0.66.1) reads it. Two
 * schemas exist:
 *
 * - 1.0.0: `{version: "1.0.0", hook: {path, args, env, timeout}, when:
 *   {always, annotations, commands, hasBindMounts}, stages: [...]}`; every
 *   condition given must hold;
 * - 0.1.0, also used when `version` is missing: `{hook: "/path",
 *   arguments, stages | stage, cmds | cmd, annotations | annotation,
 *   hasbindmounts}`; any condition given is enough.
 *
 * Both become a {@link HookDefinition}. Error texts are the library's.
 */
import { accessSync, constants } from "node:fs";
import { goPathError, goQuote } from "@nri-ts/common";
import { RE2JS } from "re2js";
import { go, type GoType } from "@nri-ts/sigs-yaml";
import { type GoValue, unmarshalGoJson } from "./go-json.js";

/** The schema every hook file is turned into. */
export const HOOK_VERSION = "1.0.0";
/** The older schema, also assumed when a file has no `version`. */
export const LEGACY_HOOK_VERSION = "0.1.0";

/** The stages a hook may be run at; `prestart` is run as `createRuntime`. */
export const HOOK_STAGES: ReadonlySet<string> = new Set([
  "createContainer",
  "createRuntime",
  "prestart",
  "poststart",
  "poststop",
  "startContainer",
]);

/** The OCI hook to run: the program, its argv, its environment, a timeout in seconds. */
export interface OciHook {
  path: string;
  args: string[] | null;
  env: string[] | null;
  timeout: bigint | null;
}

/** When a hook applies. Absent conditions are null; `or` marks a 0.1.0 file (any condition suffices). */
export interface HookWhen {
  always: boolean | null;
  /** Key pattern → value pattern (RE2, unanchored). */
  annotations: Map<string, string> | null;
  /** Patterns for the container's first argument. */
  commands: string[] | null;
  hasBindMounts: boolean | null;
  or: boolean;
}

export interface HookDefinition {
  version: string;
  hook: OciHook;
  when: HookWhen;
  stages: string[] | null;
}

/** A hook file that cannot be used; the message is the hooks library's. */
export class HookFileError extends Error {
  override readonly name = "HookFileError";
}

const STRINGS = go.slice(go.string);
const BOOL = go.pointer(go.bool);

const VERSION_CHECK = go.struct("hooks.version", { version: go.string });

const CURRENT = go.struct("hook.Hook", {
  version: go.string,
  hook: go.struct("specs.Hook", { path: go.string, args: STRINGS, env: STRINGS, timeout: go.pointer(go.int) }),
  when: go.struct("hook.When", {
    always: BOOL,
    annotations: go.map(go.string),
    commands: STRINGS,
    hasBindMounts: BOOL,
  }),
  stages: STRINGS,
});

const LEGACY = go.struct("hook.Hook", {
  hook: go.pointer(go.string),
  arguments: STRINGS,
  stages: STRINGS,
  stage: STRINGS,
  cmds: STRINGS,
  cmd: STRINGS,
  annotations: STRINGS,
  annotation: STRINGS,
  hasbindmounts: BOOL,
});

type Fields = Record<string, GoValue>;

function decode(content: Uint8Array, type: GoType): GoValue {
  try {
    return unmarshalGoJson(content, type);
  } catch (error) {
    throw new HookFileError((error as Error).message, { cause: error });
  }
}

/** A file whose version is 1.0.0 is an object, so the hook is never nil. */
function readCurrent(content: Uint8Array): HookDefinition {
  const raw = decode(content, CURRENT) as Fields;
  const hook = raw.hook as Fields;
  const when = raw.when as Fields;
  return {
    version: raw.version as string,
    hook: {
      path: hook.path as string,
      args: hook.args as string[] | null,
      env: hook.env as string[] | null,
      timeout: hook.timeout as bigint | null,
    },
    when: {
      always: when.always as boolean | null,
      annotations: when.annotations as Map<string, string> | null,
      commands: when.commands as string[] | null,
      hasBindMounts: when.hasBindMounts as boolean | null,
      or: false,
    },
    stages: raw.stages as string[] | null,
  };
}

/** One of two spellings of a 0.1.0 list, refused when both are given. */
function either(raw: Fields, plural: string, singular: string): string[] | null {
  const [many, one] = [raw[plural] as string[] | null, raw[singular] as string[] | null];
  if (many !== null && one !== null) throw new HookFileError(`cannot set both '${singular}' and '${plural}'`);
  return many ?? one;
}

function readLegacy(content: Uint8Array): HookDefinition {
  const raw = decode(content, LEGACY) as Fields;
  const path = raw.hook as string | null;
  if (path === null) throw new HookFileError("missing required property: hook");
  const stages = either(raw, "stages", "stage");
  if (stages === null) throw new HookFileError("missing required property: stages");
  const commands = either(raw, "cmds", "cmd");
  const annotations = either(raw, "annotations", "annotation");
  const args = raw.arguments as string[] | null;
  return {
    version: HOOK_VERSION,
    hook: { path, args: args === null ? null : [path, ...args], env: null, timeout: null },
    when: {
      always: null,
      annotations: annotations === null ? null : new Map([[".*", annotations.join("|")]]),
      commands,
      hasBindMounts: raw.hasbindmounts as boolean | null,
      or: true,
    },
    stages,
  };
}

/** The schema's reader; the error says which schema it was read as (`1.0.0: ...`, `: ...` without a version). */
function readContent(content: Uint8Array): HookDefinition {
  let version: string;
  try {
    version = (unmarshalGoJson(content, VERSION_CHECK) as Fields).version as string;
  } catch (error) {
    throw new HookFileError(`version check: ${(error as Error).message}`, { cause: error });
  }
  if (version !== HOOK_VERSION && version !== LEGACY_HOOK_VERSION && version !== "") {
    throw new HookFileError(`unrecognized hook version: ${goQuote(version)}`);
  }
  try {
    return version === HOOK_VERSION ? readCurrent(content) : readLegacy(content);
  } catch (error) {
    // the library formats this one with %v: the cause is not kept
    throw new HookFileError(`${version}: ${(error as Error).message}`);
  }
}

function compiles(pattern: string, what: string): void {
  try {
    RE2JS.compile(pattern);
  } catch (error) {
    throw new HookFileError(`invalid ${what} ${goQuote(pattern)}: ${(error as Error).message}`, { cause: error });
  }
}

/**
 * The checks the library makes before it uses a hook: the schema, a path
 * that exists here (symbolic links followed), patterns that compile, stages
 * it knows.
 * @throws HookFileError, or the path error when the program is missing
 */
export function validateHook(hook: HookDefinition): void {
  if (hook.version !== HOOK_VERSION) {
    throw new HookFileError(`unexpected hook version ${goQuote(hook.version)} (expecting ${HOOK_VERSION})`);
  }
  if (hook.hook.path === "") throw new HookFileError("missing required property: hook.path");
  try {
    accessSync(hook.hook.path, constants.F_OK);
  } catch (error) {
    throw goPathError("faccessat", hook.hook.path, error);
  }
  for (const [key, value] of hook.when.annotations ?? []) {
    compiles(key, "annotation key");
    compiles(value, "annotation value");
  }
  for (const command of hook.when.commands ?? []) compiles(command, "command");
  if (hook.stages === null) throw new HookFileError("missing required property: stages");
  for (const stage of hook.stages) {
    if (!HOOK_STAGES.has(stage)) throw new HookFileError(`unknown stage ${goQuote(stage)}`);
  }
}

/**
 * A hook file's content read and checked as the library's `Read` does.
 * @throws HookFileError (`parsing hook "<path>": ...` when it cannot be read as JSON of either schema)
 */
export function parseHookFile(path: string, content: Uint8Array): HookDefinition {
  let hook: HookDefinition;
  try {
    hook = readContent(content);
  } catch (error) {
    throw new HookFileError(`parsing hook ${goQuote(path)}: ${(error as Error).message}`, { cause: error });
  }
  validateHook(hook);
  return hook;
}
