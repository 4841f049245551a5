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
import { decodeSigsYaml, go, SigsYamlError } from "@nri-ts/sigs-yaml";

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

/** The Go template's config type, with our `updates` added. */
const CONFIG = go.struct("main.config", {
  cfgParam1: go.string,
  updates: go.pointer(go.struct("main.updateDemo", { cpuShares: go.uint64, unsolicited: go.bool })),
});

/**
 * Decodes the configuration YAML as sigs.k8s.io/yaml decodes it.
 * @throws TemplateConfigError with the Go template's text
 */
export function decodeTemplateConfig(config: string): TemplateConfig {
  let decoded;
  try {
    decoded = decodeSigsYaml(config, CONFIG);
  } catch (error) {
    if (!(error instanceof SigsYamlError)) throw error;
    throw new TemplateConfigError(`failed to parse configuration: ${error.message}`, { cause: error });
  }
  const { cfgParam1, updates } = decoded;
  return updates !== null && updates.cpuShares > 0n ? { cfgParam1, updates } : { cfgParam1 };
}
