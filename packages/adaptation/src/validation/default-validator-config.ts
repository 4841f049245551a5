import { MAX_YAML_NESTING, yamlMayNestDeeperThan } from "@nri-ts/sigs-yaml/nesting";
import { errorText } from "../error-text.js";
import { yaml } from "./yaml-module.js";

/** Configuration of the builtin default validator; every switch defaults to off. */
export interface DefaultValidatorConfig {
  /** Add the builtin validator `00-default-validator` at all. */
  enable: boolean;
  /** Reject when any plugin injected OCI hooks. */
  rejectOCIHookAdjustment: boolean;
  /** Reject a seccomp policy override of a container whose profile is RUNTIME_DEFAULT. */
  rejectRuntimeDefaultSeccompAdjustment: boolean;
  /** Reject a seccomp policy override of a container whose profile is UNCONFINED or absent. */
  rejectUnconfinedSeccompAdjustment: boolean;
  /** Reject a seccomp policy override of a container whose profile is LOCALHOST. */
  rejectCustomSeccompAdjustment: boolean;
  /** Reject when any plugin added, replaced or removed a namespace. */
  rejectNamespaceAdjustment: boolean;
  /** Reject when any plugin set a sysctl. */
  rejectSysctlAdjustment: boolean;
  /** Plugins (bare or full `<idx>-<name>` names) that must be present for every container. */
  requiredPlugins: string[];
  /** A pod annotation that, when true, lets a container skip the required-plugins check. */
  tolerateMissingPluginsAnnotation: string;
}

/** The configuration could not be read. */
export class DefaultValidatorConfigError extends Error {
  override readonly name = "DefaultValidatorConfigError";
}

type Key = keyof DefaultValidatorConfig;

/** Each setting's YAML key (the property name) and TOML key, as in the Go struct tags. */
const TOML_KEYS: Readonly<Record<Key, string>> = {
  enable: "enable",
  rejectOCIHookAdjustment: "reject_oci_hook_adjustment",
  rejectRuntimeDefaultSeccompAdjustment: "reject_runtime_default_seccomp_adjustment",
  rejectUnconfinedSeccompAdjustment: "reject_unconfined_seccomp_adjustment",
  rejectCustomSeccompAdjustment: "reject_custom_seccomp_adjustment",
  rejectNamespaceAdjustment: "reject_namespace_adjustment",
  rejectSysctlAdjustment: "reject_sysctl_adjustment",
  requiredPlugins: "required_plugins",
  tolerateMissingPluginsAnnotation: "tolerate_missing_plugins_annotation",
};

/** go-yaml also reads these YAML 1.1 words into a bool field. */
const YAML11_TRUE = new Set(["y", "Y", "yes", "Yes", "YES", "on", "On", "ON"]);
const YAML11_FALSE = new Set(["n", "N", "no", "No", "NO", "off", "Off", "OFF"]);

/** A configuration with every switch off and nothing required. */
export function defaultValidatorConfig(): DefaultValidatorConfig {
  return {
    enable: false,
    rejectOCIHookAdjustment: false,
    rejectRuntimeDefaultSeccompAdjustment: false,
    rejectUnconfinedSeccompAdjustment: false,
    rejectCustomSeccompAdjustment: false,
    rejectNamespaceAdjustment: false,
    rejectSysctlAdjustment: false,
    requiredPlugins: [],
    tolerateMissingPluginsAnnotation: "",
  };
}

function readBool(value: unknown, key: string, fromYaml: boolean): boolean {
  if (typeof value === "boolean") return value;
  if (fromYaml && typeof value === "string") {
    if (YAML11_TRUE.has(value)) return true;
    if (YAML11_FALSE.has(value)) return false;
  }
  throw new DefaultValidatorConfigError(
    `default validator config: ${key} must be a boolean, got ${JSON.stringify(value)}`,
  );
}

function readString(value: unknown, key: string): string {
  if (typeof value === "string") return value;
  throw new DefaultValidatorConfigError(
    `default validator config: ${key} must be a string, got ${JSON.stringify(value)}`,
  );
}

function readStrings(value: unknown, key: string): string[] {
  if (Array.isArray(value) && value.every((item) => typeof item === "string")) return [...value];
  throw new DefaultValidatorConfigError(
    `default validator config: ${key} must be a list of strings, got ${JSON.stringify(value)}`,
  );
}

/**
 * Read the default validator's configuration from YAML text or from an
 * object (for example a runtime's parsed TOML section). Keys are Go's: the
 * YAML names (`rejectOCIHookAdjustment`) or the TOML names
 * (`reject_oci_hook_adjustment`); unknown keys are ignored, as Go ignores
 * them; null means "not set". A value of the wrong type, or one setting
 * given under both names, throws DefaultValidatorConfigError.
 */
export function parseDefaultValidatorConfig(input: string | Readonly<Record<string, unknown>>): DefaultValidatorConfig {
  const fromYaml = typeof input === "string";
  let source: unknown;
  try {
    if (fromYaml && yamlMayNestDeeperThan(input)) throw new Error(`exceeded max depth of ${MAX_YAML_NESTING}`);
    source = fromYaml ? (yaml().parse(input) ?? {}) : input;
  } catch (error) {
    throw new DefaultValidatorConfigError(`default validator config: ${errorText(error)}`);
  }
  if (typeof source !== "object" || source === null || Array.isArray(source)) {
    throw new DefaultValidatorConfigError("default validator config: expected a mapping of settings");
  }
  const settings = source as Readonly<Record<string, unknown>>;

  const config = defaultValidatorConfig();
  for (const [yamlKey, tomlKey] of Object.entries(TOML_KEYS) as Array<[Key, string]>) {
    const names = yamlKey === tomlKey ? [yamlKey] : [yamlKey, tomlKey];
    const given = names.filter((name) => Object.hasOwn(settings, name) && settings[name] != null);
    if (given.length > 1) {
      throw new DefaultValidatorConfigError(
        `default validator config: ${yamlKey} is given twice, as ${given.join(" and ")}`,
      );
    }
    const name = given[0];
    if (name === undefined) continue;
    const value = settings[name];
    switch (yamlKey) {
      case "requiredPlugins":
        config.requiredPlugins = readStrings(value, name);
        break;
      case "tolerateMissingPluginsAnnotation":
        config.tolerateMissingPluginsAnnotation = readString(value, name);
        break;
      default:
        config[yamlKey] = readBool(value, name, fromYaml);
    }
  }
  return config;
}
