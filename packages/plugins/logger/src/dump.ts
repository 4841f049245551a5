/**
 * The Go logger's dumps: each object marshalled with sigs.k8s.io/yaml (Go's
 * encoding/json, then go-yaml v2), logged one line per YAML line under a
 * `<prefix>: <tag>:` header, the same lines Go logs for the same object.
 */
import { goTrimSpace } from "@nri-ts/common";
import { type MessageArgument, marshalMessageYaml, SigsYamlError } from "@nri-ts/sigs-yaml";
import type { TextLog } from "./text-log.js";

/** Logs `objects` (pairs of tag and object) under `prefix`; nothing without objects. */
export function dump(log: TextLog, prefix: string, ...objects: [string, MessageArgument][]): void {
  for (const [tag, object] of objects) {
    let yaml: string;
    try {
      yaml = marshalMessageYaml(object);
    } catch (error) {
      if (!(error instanceof SigsYamlError)) throw error;
      log.info(`${prefix}: ${tag}: failed to dump object: ${(error as Error).message}`);
      continue;
    }
    log.info(`${prefix}: ${tag}:`);
    for (const line of goTrimSpace(yaml).split("\n")) log.info(`${prefix}:    ${line}`);
  }
}
