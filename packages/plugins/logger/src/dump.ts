/**
 * The Go logger's dumps: each object marshalled with sigs.k8s.io/yaml (Go's
 * encoding/json, then go-yaml v2), logged one line per YAML line under a
 * `<prefix>: <tag>:` header, the same lines Go logs for the same object.
 */
import { goTrimSpace } from "@nri-ts/api";
import { encodeSigsYaml, SigsYamlError } from "@nri-ts/sigs-yaml";
import { goJsonArgument } from "./go-json.js";
import type { TextLog } from "./text-log.js";

/** A handler argument: a message, a list of them, or none. */
export type Dumped = object | readonly object[] | undefined;

/** The YAML the Go logger writes for `object`. @throws SigsYamlError with Go's text where Go cannot marshal it */
export function dumpYaml(object: Dumped): string {
  return encodeSigsYaml(goJsonArgument(object));
}

/** Logs `objects` (pairs of tag and object) under `prefix`; nothing without objects. */
export function dump(log: TextLog, prefix: string, ...objects: [string, Dumped][]): void {
  for (const [tag, object] of objects) {
    let yaml: string;
    try {
      yaml = dumpYaml(object);
    } catch (error) {
      if (!(error instanceof SigsYamlError)) throw error;
      log.info(`${prefix}: ${tag}: failed to dump object: ${(error as Error).message}`);
      continue;
    }
    log.info(`${prefix}: ${tag}:`);
    for (const line of goTrimSpace(yaml).split("\n")) log.info(`${prefix}:    ${line}`);
  }
}
