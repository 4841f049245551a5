/**
 * Rules: what an operator knows about the images they run. Each rule
 * matches on the image (a glob), the command (a regular expression, on the
 * command without its wrapper, its words joined by spaces), the pod's
 * namespace (a glob) and the exit codes, and gives the end a meaning (the
 * words for its code) or a reason (short CamelCase), or both. The first
 * rule that matches, in the order of the list, is the one used.
 */
import { compileGlob } from "./glob.js";

export interface ExitRule {
  /** How the record names it: the rule's `name`, else `rules[<index>]`. */
  name: string;
  image?: RegExp;
  command?: RegExp;
  namespace?: RegExp;
  /** The codes it is for; empty means any end but a clean one. */
  exitCodes: readonly number[];
  meaning?: string;
  reason?: string;
}

/** What a rule is matched against. */
export interface RuleSubject {
  /** The image as the runtime names it, e.g. `registry.example.com/batch/loader:1.2`. */
  image: string;
  /** The command without its wrapper. */
  command: readonly string[];
  namespace: string;
  exitCode: number | undefined;
}

/** `registry:5000/batch/loader:1.2@sha256:…` without its digest and tag: `registry:5000/batch/loader`. */
export function imageRepository(image: string): string {
  const name = image.split("@")[0] as string;
  const slash = name.lastIndexOf("/");
  const colon = name.lastIndexOf(":");
  return colon > slash ? name.slice(0, colon) : name;
}

/** Whether an image glob matches the image, with its tag and digest or without them. */
export function imageMatches(glob: RegExp, image: string): boolean {
  return image !== "" && (glob.test(image) || glob.test(imageRepository(image)));
}

function applies(rule: ExitRule, subject: RuleSubject): boolean {
  const code = subject.exitCode;
  if (code === 0 || (rule.exitCodes.length > 0 && (code === undefined || !rule.exitCodes.includes(code)))) return false;
  if (rule.image && !imageMatches(rule.image, subject.image)) return false;
  if (rule.namespace && !rule.namespace.test(subject.namespace)) return false;
  return !rule.command || rule.command.test(subject.command.join(" "));
}

/** The first rule that matches the end, if any; a clean end (code 0) matches none. */
export function matchRule(rules: readonly ExitRule[], subject: RuleSubject): ExitRule | undefined {
  return rules.find((rule) => applies(rule, subject));
}

/** A rule's pattern that cannot be used, with what is wrong. */
export class RulePatternError extends Error {
  override readonly name = "RulePatternError";
}

/** The glob as a regular expression; a bad one is a RulePatternError that quotes it. */
export function ruleGlob(text: string): RegExp {
  try {
    return compileGlob(text);
  } catch (error) {
    throw new RulePatternError(`invalid glob ${JSON.stringify(text)}: ${(error as Error).message}`);
  }
}

/** The regular expression; a bad one is a RulePatternError that quotes it. */
export function ruleRegExp(text: string): RegExp {
  try {
    return new RegExp(text, "u");
  } catch (error) {
    const why = (error as Error).message.replace(/^Invalid regular expression: \/.*\/u?: /s, "");
    throw new RulePatternError(`invalid regular expression ${JSON.stringify(text)}: ${why}`);
  }
}
