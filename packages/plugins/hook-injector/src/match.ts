/**
 * Which hooks a container gets, decided as the hooks library's
 * `Manager.Hooks` decides: hook files in the order of their lower-cased
 * names, each hook's conditions checked in the library's order (always,
 * bind mounts, annotations, commands), and each matching hook added to its
 * stages in the order listed (`prestart` hooks run as `createRuntime`).
 * Patterns are RE2, unanchored, as Go's regexp.
 */
import type { Hook, Hooks } from "@nri-ts/api";
import { goQuote } from "@nri-ts/common";
import { RE2JS } from "re2js";
import type { HookSet } from "./hook-dirs.js";
import type { HookDefinition, HookWhen, OciHook } from "./hook-file.js";
import { goToLower } from "./go-lower.js";

/** What the conditions look at. */
export interface MatchInput {
  /** The container's annotations overlaid with the pod's (the pod's win). */
  annotations: Readonly<Record<string, string>>;
  /** The container's argv; commands match its first entry. */
  args: readonly string[];
  /** Whether the container has any mount. */
  hasBindMounts: boolean;
}

/** A hook's conditions cannot be decided; the message is the library's. */
export class HookMatchError extends Error {
  override readonly name = "HookMatchError";
}

const compiled = new Map<string, RE2JS>();

/** Go's regexp.MatchString with a pattern that was checked when its file was read. */
function matches(pattern: string, text: string): boolean {
  let re = compiled.get(pattern);
  if (re === undefined) {
    re = RE2JS.compile(pattern);
    compiled.set(pattern, re);
  }
  return re.matcher(text).find();
}

function annotationMatches(
  keyPattern: string,
  valuePattern: string,
  annotations: Readonly<Record<string, string>>,
): boolean {
  return Object.entries(annotations).some(([key, value]) => matches(keyPattern, key) && matches(valuePattern, value));
}

/**
 * Whether a hook applies. 1.0.0 hooks need every condition they name (and
 * at least one); 0.1.0 hooks any. Commands come last and decide alone
 * once reached.
 * @throws HookMatchError when commands are named and the container has no argv
 */
export function whenMatches(when: HookWhen, input: MatchInput): boolean {
  const conditions: (() => boolean)[] = [];
  if (when.always !== null) conditions.push(() => when.always === true);
  if (when.hasBindMounts !== null) conditions.push(() => when.hasBindMounts === true && input.hasBindMounts);
  for (const [key, value] of when.annotations ?? []) {
    conditions.push(() => annotationMatches(key, value, input.annotations));
  }
  let held = 0;
  for (const holds of conditions) {
    if (holds()) {
      if (when.or) return true;
      held++;
    } else if (!when.or) {
      return false;
    }
  }
  if (when.commands !== null && when.commands.length > 0) {
    if (input.args.length === 0) throw new HookMatchError("process.args must have at least one entry");
    return when.commands.some((pattern) => matches(pattern, input.args[0]));
  }
  return held > 0;
}

/** A hook of a file as the protocol carries it. */
function toHook(hook: OciHook): Hook {
  return {
    path: hook.path,
    args: [...(hook.args ?? [])],
    env: [...(hook.env ?? [])],
    ...(hook.timeout !== null && { timeout: { value: hook.timeout } }),
  };
}

/** The protocol's stage lists by hook stage (`prestart` joins `createRuntime`). */
const STAGE_FIELD: Readonly<Record<string, Exclude<keyof Hooks, "prestart">>> = {
  prestart: "createRuntime",
  createRuntime: "createRuntime",
  createContainer: "createContainer",
  startContainer: "startContainer",
  poststart: "poststart",
  poststop: "poststop",
};

function compareNames(a: string, b: string): number {
  return (
    Buffer.compare(Buffer.from(goToLower(a)), Buffer.from(goToLower(b))) ||
    Buffer.compare(Buffer.from(a), Buffer.from(b))
  );
}

/** Told about each hook file's verdict, for debug logs. */
export type MatchObserver = (name: string, hook: HookDefinition, matched: boolean) => void;

/**
 * The hooks a container gets, or undefined when no hook file matches (a
 * matching file whose stages are empty still gives empty lists).
 * @throws HookMatchError naming the file whose conditions cannot be decided
 */
export function matchingHooks(hooks: HookSet, input: MatchInput, observe?: MatchObserver): Hooks | undefined {
  let out: Hooks | undefined;
  for (const name of [...hooks.keys()].sort(compareNames)) {
    const hook = hooks.get(name) as HookDefinition;
    let matched: boolean;
    try {
      matched = whenMatches(hook.when, input);
    } catch (error) {
      throw new HookMatchError(`matching hook ${goQuote(name)}: ${(error as Error).message}`, { cause: error });
    }
    observe?.(name, hook, matched);
    if (!matched) continue;
    out ??= { prestart: [], createRuntime: [], createContainer: [], startContainer: [], poststart: [], poststop: [] };
    for (const stage of hook.stages ?? []) out[STAGE_FIELD[stage]].push(toHook(hook.hook));
  }
  return out;
}
