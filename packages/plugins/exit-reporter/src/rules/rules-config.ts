/**
 * The configuration's `rules:` list: each rule a mapping of `name`,
 * `image`, `command`, `namespace`, `exitCodes`, `meaning` and `reason`. A
 * glob or regular expression that cannot be read is a mistake of its own,
 * naming the rule by its index and quoting the pattern.
 */
import type { ConfigPath } from "../config-issues.js";
import { describe, FieldError, type Reader, text } from "../config-fields.js";
import { isReasonWord } from "../record/causes.js";
import { type ExitRule, RulePatternError, ruleGlob, ruleRegExp } from "./rules.js";

export const RULE_FIELDS = ["name", "image", "command", "namespace", "exitCodes", "meaning", "reason"] as const;

function pattern(value: unknown, path: ConfigPath, compile: (text: string) => RegExp): RegExp {
  const source = text(value, path);
  try {
    return compile(source);
  } catch (error) {
    if (error instanceof RulePatternError) throw new FieldError(path, error.message);
    throw error;
  }
}

function codes(value: unknown, path: ConfigPath): number[] {
  if (!Array.isArray(value)) throw new FieldError(path, `expected a list of exit codes, got ${describe(value)}`);
  return value.map((code, i) => {
    if (typeof code !== "number" || !Number.isInteger(code) || code < 1 || code > 255)
      throw new FieldError(
        [...path, i],
        `expected an exit code from 1 to 255 (0 is a clean end), got ${describe(code)}`,
      );
    return code;
  });
}

function rule(value: unknown, index: number, reader: Reader): ExitRule[] {
  const path = ["rules", index];
  const m = reader.mapping(value, path, RULE_FIELDS);
  if (!m) return [];
  const at = (field: string): ConfigPath => [...path, field];
  const read: ExitRule = {
    name: reader.field(m.name, (v) => text(v, at("name")), `rules[${index}]`),
    exitCodes: reader.field(m.exitCodes, (v) => codes(v, at("exitCodes")), []),
  };
  const image = reader.field(m.image, (v) => pattern(v, at("image"), ruleGlob), undefined);
  const command = reader.field(m.command, (v) => pattern(v, at("command"), ruleRegExp), undefined);
  const namespace = reader.field(m.namespace, (v) => pattern(v, at("namespace"), ruleGlob), undefined);
  const meaning = reader.field(
    m.meaning,
    (v) => {
      const words = text(v, at("meaning")).trim();
      if (words === "") throw new FieldError(at("meaning"), "expected the words saying what the end means");
      return words;
    },
    undefined,
  );
  const reason = reader.field(
    m.reason,
    (v) => {
      const word = text(v, at("reason"));
      if (!isReasonWord(word))
        throw new FieldError(
          at("reason"),
          `expected a short CamelCase word such as "InputMissing" (letters and digits, at most 64), got ${JSON.stringify(word)}`,
        );
      return word;
    },
    undefined,
  );
  if (m.meaning === undefined && m.reason === undefined)
    reader.issues.add(path, "a rule gives a meaning or a reason (or both)");
  return [
    {
      ...read,
      ...(image && { image }),
      ...(command && { command }),
      ...(namespace && { namespace }),
      ...(meaning !== undefined && { meaning }),
      ...(reason !== undefined && { reason }),
    },
  ];
}

/** The rules, in their order; each mistake is an issue of the reader. */
export function readRules(value: unknown, reader: Reader): ExitRule[] {
  if (!Array.isArray(value))
    throw new FieldError(
      ["rules"],
      `expected a list of rules (mappings with image, command, …), got ${describe(value)}`,
    );
  return value.flatMap((item, i) => rule(item, i, reader));
}
