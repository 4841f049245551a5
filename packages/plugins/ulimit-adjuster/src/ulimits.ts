/**
 * The ulimit-adjuster's rules: a container's rlimits come from a pod
 * annotation holding a YAML list of `{type, soft, hard}`; each type is
 * normalised (`nofile`, `rlimit_nofile`, `NOFILE` → `RLIMIT_NOFILE`) and each
 * limit must have `hard >= soft`. Error texts are those of the Go plugin.
 */
import { AdjustmentBuilder, type ContainerAdjustment } from "@nri-ts/api";
import { goQuote } from "@nri-ts/common";
import type { Logger } from "@nri-ts/stub";
import { goToUpper } from "./go-upper.js";
import { decodeSigsYaml, go } from "@nri-ts/sigs-yaml";

/** The annotation prefix: `ulimits.noderesource.dev/container.<container name>`. */
export const ULIMIT_KEY = "ulimits.noderesource.dev";
/** The older prefix, read when the current one is absent (deprecated upstream). */
export const LEGACY_ULIMIT_KEY = "ulimits.nri.containerd.io";
const RLIMIT_PREFIX = "RLIMIT_";

/** The resources an rlimit can be set for, without the `RLIMIT_` prefix. */
export const RLIMIT_TYPES: ReadonlySet<string> = new Set([
  "AS",
  "CORE",
  "CPU",
  "DATA",
  "FSIZE",
  "LOCKS",
  "MEMLOCK",
  "MSGQUEUE",
  "NICE",
  "NOFILE",
  "NPROC",
  "RSS",
  "RTPRIO",
  "RTTIME",
  "SIGPENDING",
  "STACK",
]);

/** One entry of the annotation; limits are unsigned 64-bit, 0 when left out. */
export interface Ulimit {
  type: string;
  hard: bigint;
  soft: bigint;
}

/** The annotation's value is not a valid list of ulimits; the message is the Go plugin's. */
export class UlimitError extends Error {
  override readonly name = "UlimitError";
}

const ULIMITS = go.slice(go.struct("main.ulimit", { type: go.string, hard: go.uint64, soft: go.uint64 }));

const quiet: Pick<Logger, "debug"> = { debug: () => {} };

/** The annotation keys read for a container, first present wins. */
export function annotationKeys(container: string): [string, string] {
  return [`${ULIMIT_KEY}/container.${container}`, `${LEGACY_ULIMIT_KEY}/container.${container}`];
}

/**
 * The ulimits the pod's annotations set for a container, types normalised;
 * empty when the first key present is empty or no key is present.
 * @throws UlimitError for bad YAML or an unknown type
 */
export function parseUlimits(
  container: string,
  annotations: Readonly<Record<string, string>>,
  logger: Pick<Logger, "debug"> = quiet,
): Ulimit[] {
  const keys = annotationKeys(container);
  const key = keys.find((k) => Object.hasOwn(annotations, k));
  const value = key === undefined ? "" : annotations[key];
  if (value === "") {
    logger.debug(`no annotations found with keys [${keys.join(" ")}]`);
    return [];
  }
  let ulimits: Ulimit[];
  try {
    ulimits = decodeSigsYaml(value, ULIMITS);
  } catch (error) {
    throw new UlimitError((error as Error).message, { cause: error });
  }
  return ulimits.map((ulimit) => {
    const upper = goToUpper(ulimit.type);
    const trimmed = upper.startsWith(RLIMIT_PREFIX) ? upper.slice(RLIMIT_PREFIX.length) : upper;
    if (!RLIMIT_TYPES.has(trimmed)) {
      logger.debug({ raw: ulimit.type, trimmed }, "failed to parse type");
      throw new UlimitError(`failed to parse type: ${goQuote(ulimit.type)}`);
    }
    return { ...ulimit, type: RLIMIT_PREFIX + trimmed };
  });
}

/**
 * The adjustment that sets these rlimits, in order (duplicates kept).
 * @throws UlimitError when a hard limit is below its soft limit
 */
export function adjustUlimits(ulimits: readonly Ulimit[], logger: Pick<Logger, "debug"> = quiet): ContainerAdjustment {
  const adjust = new AdjustmentBuilder();
  for (const { type, hard, soft } of ulimits) {
    if (hard < soft) {
      logger.debug({ type, hard, soft }, "failed to apply ulimit with hard < soft");
      throw new UlimitError(`ulimit ${goQuote(type)} must have hard limit >= soft limit`);
    }
    logger.debug({ type, hard, soft }, "adjust rlimit");
    adjust.addRlimit(type, hard, soft);
  }
  return adjust.build();
}
