/**
 * The template's configuration: the YAML a runtime hands a plugin it
 * launched (`/etc/nri/conf.d/NN-template.conf`). Like the Go template it has
 * one example setting, `cfgParam1`; keys match in any case, unknown keys are
 * ignored, and a number or bool given for text becomes text.
 *
 * `updates` is ours: absent, the plugin behaves as the Go template (it
 * answers with empty update lists); present, it shows the ways a plugin can
 * update containers (see README).
 */
import { MAX_YAML_NESTING, yamlMayNestDeeperThan } from "@nri-ts/api";
import { isMap, isScalar, isSeq, type Node, parseDocument } from "yaml";

export interface UpdateDemo {
  /** CPU shares given, in update lists, to the other live containers of the pod of the container at hand. */
  cpuShares: bigint;
  /** Also push that update, unsolicited, to each container that starts. */
  unsolicited: boolean;
}

export interface TemplateConfig {
  /** The Go template's example setting; it is only logged. */
  cfgParam1: string;
  /** Show container updates; off (undefined) by default. */
  updates?: UpdateDemo;
}

/** The configuration could not be decoded; configuration, and so the plugin's start, fails. */
export class TemplateConfigError extends Error {
  override readonly name = "TemplateConfigError";
}

const UINT64_MAX = (1n << 64n) - 1n;
const PREFIX = "failed to parse configuration: ";

function isNull(node: Node | null): boolean {
  return node === null || (isScalar(node) && node.value === null);
}

/** A value's kind as Go's JSON errors name it. */
function kind(node: Node): string {
  if (isSeq(node)) return "array";
  if (isMap(node)) return "object";
  const value = isScalar(node) ? node.value : undefined;
  if (typeof value === "boolean") return "bool";
  return typeof value === "number" || typeof value === "bigint" ? "number" : "string";
}

function entries(node: Node): [string, Node | null][] {
  if (!isMap(node)) return [];
  return node.items.map((pair) => [isScalar(pair.key) ? String(pair.key.value) : "", pair.value as Node | null]);
}

function text(node: Node | null, field: string): string | undefined {
  if (isNull(node)) return undefined;
  if (isScalar(node as Node)) return String((node as { value: unknown }).value);
  throw new TemplateConfigError(
    `${PREFIX}error unmarshaling JSON: while decoding JSON: json: cannot unmarshal ${kind(node as Node)} into Go struct field config.${field} of type string`,
  );
}

function updates(node: Node | null): UpdateDemo | undefined {
  if (isNull(node)) return undefined;
  if (!isMap(node as Node)) throw new TemplateConfigError(`${PREFIX}updates: expected a mapping`);
  const demo: UpdateDemo = { cpuShares: 0n, unsolicited: false };
  for (const [key, value] of entries(node as Node)) {
    const scalar = isScalar(value) ? value.value : undefined;
    if (key.toLowerCase() === "cpushares") {
      if (typeof scalar !== "bigint" || scalar < 0n || scalar > UINT64_MAX) {
        throw new TemplateConfigError(`${PREFIX}updates.cpuShares: expected a whole number of CPU shares`);
      }
      demo.cpuShares = scalar;
    } else if (key.toLowerCase() === "unsolicited") {
      if (typeof scalar !== "boolean") throw new TemplateConfigError(`${PREFIX}updates.unsolicited: expected true or false`);
      demo.unsolicited = scalar;
    }
  }
  return demo.cpuShares > 0n ? demo : undefined;
}

/** Decodes the configuration YAML (YAML 1.1 scalars, as Go's sigs.k8s.io/yaml reads them). */
export function decodeTemplateConfig(config: string): TemplateConfig {
  if (yamlMayNestDeeperThan(config)) throw new TemplateConfigError(`${PREFIX}exceeded max depth of ${MAX_YAML_NESTING}`);
  const doc = parseDocument(config, { version: "1.1", intAsBigInt: true, uniqueKeys: false });
  if (doc.errors.length > 0) throw new TemplateConfigError(`${PREFIX}${doc.errors[0].message.split("\n")[0]}`);
  const root = doc.contents as Node | null;
  const result: TemplateConfig = { cfgParam1: "" };
  if (isNull(root)) return result;
  if (!isMap(root as Node)) {
    throw new TemplateConfigError(
      `${PREFIX}error unmarshaling JSON: while decoding JSON: json: cannot unmarshal ${kind(root as Node)} into Go value of type main.config`,
    );
  }
  for (const [key, value] of entries(root as Node)) {
    if (key.toLowerCase() === "cfgparam1") result.cfgParam1 = text(value, "cfgParam1") ?? result.cfgParam1;
    else if (key.toLowerCase() === "updates") {
      const demo = updates(value);
      if (demo) result.updates = demo;
      else delete result.updates;
    }
  }
  return result;
}
