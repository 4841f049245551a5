/**
 * The logger's settings: from its command-line flags, then from the
 * configuration the runtime hands a plugin it launched (the YAML of
 * `/etc/nri/conf.d/NN-logger.conf`), decoded on top of the flags as the Go
 * logger decodes it: keys match whatever their case, unknown keys are
 * ignored, numbers and booleans given for text become text.
 */
import { decodeSigsYaml, go, SigsYamlError } from "@nri-ts/sigs-yaml";

export interface LoggerConfig {
  /** Append the log to this file instead of writing to stderr. */
  logFile: string;
  /** Events to subscribe to; each entry may itself be a comma-separated list. Empty means all. */
  events: string[];
  /** Add this annotation (value `logger-pid-<pid>`) to every container created. */
  addAnnotation: string;
  /** Remove, then add, this annotation: takes it over from other plugins. */
  setAnnotation: string;
  /** Add this environment variable to every container created. */
  addEnv: string;
  /** Remove, then add, this environment variable. */
  setEnv: string;
}

export function defaultConfig(): LoggerConfig {
  return { logFile: "", events: [], addAnnotation: "", setAnnotation: "", addEnv: "", setEnv: "" };
}

/** The configuration could not be decoded. */
export class LoggerConfigError extends Error {
  override readonly name = "LoggerConfigError";
}

/** The Go logger's config type, for the decoder and its error texts. */
const CONFIG = go.struct("main.config", {
  logFile: go.string,
  events: go.slice(go.string),
  addAnnotation: go.string,
  setAnnotation: go.string,
  addEnv: go.string,
  setEnv: go.string,
});

/**
 * `config` (YAML) decoded over `base`, as sigs.k8s.io/yaml decodes it.
 * @throws LoggerConfigError with the Go logger's text
 */
export function decodeConfig(config: string, base: LoggerConfig): LoggerConfig {
  try {
    return decodeSigsYaml(config, CONFIG, { base: { ...base, events: [...base.events] } });
  } catch (error) {
    if (!(error instanceof SigsYamlError)) throw error;
    throw new LoggerConfigError(`failed to parse provided configuration: ${error.message}`, { cause: error });
  }
}
