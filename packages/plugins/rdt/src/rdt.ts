/**
 * The rdt plugin's rules: a container's Intel RDT settings
 * (`linux.intelRdt` of its OCI spec) come from pod annotations
 * `<field>.rdt.noderesource.dev/container.<container name>`, one per field:
 *
 * - `closid`: the class of service (`closID`), as written;
 * - `schemata`: the schemata lines, separated by commas (not trimmed);
 * - `enablemonitoring`: a Go boolean (`true`, `1`, `T`, `false`, ...).
 *
 * Other fields are logged and ignored; there is no pod-wide form.
 */
import { AdjustmentBuilder, type ContainerAdjustment } from "@nri-ts/api";
import { ParseBoolError, parseGoBool } from "@nri-ts/common";
import type { Logger } from "@nri-ts/stub";

/** What an annotation key ends with, before the container's name. */
export const RDT_KEY_SUFFIX = ".rdt.noderesource.dev/container.";

/** The fields the plugin sets. */
export const RDT_FIELDS = ["closid", "schemata", "enablemonitoring"] as const;

/** An annotation's value cannot be used; the message names the annotation, then gives Go's error. */
export class RdtAnnotationError extends Error {
  override readonly name = "RdtAnnotationError";

  constructor(
    readonly annotation: string,
    readonly reason: string,
  ) {
    super(`${annotation}: ${reason}`);
  }
}

const quiet: Pick<Logger, "info"> = { info: () => {} };

/**
 * The adjustment setting the container's RDT fields from the pod's
 * annotations (empty when none is set).
 * @throws RdtAnnotationError for an `enablemonitoring` value that is not a Go boolean
 */
export function adjustRdt(
  container: string,
  annotations: Readonly<Record<string, string>>,
  logger: Pick<Logger, "info"> = quiet,
): ContainerAdjustment {
  const suffix = RDT_KEY_SUFFIX + container;
  const adjust = new AdjustmentBuilder();
  for (const [key, value] of Object.entries(annotations)) {
    if (!key.endsWith(suffix)) continue;
    const field = key.slice(0, -suffix.length);
    switch (field) {
      case "closid":
        logger.info({ closid: value }, "Adjust closid");
        adjust.setRdtClosId(value);
        break;
      case "schemata": {
        const schemata = value.split(",");
        logger.info({ schemata }, "Adjust schemata");
        adjust.setRdtSchemata(schemata);
        break;
      }
      case "enablemonitoring": {
        let enable: boolean;
        try {
          enable = parseGoBool(value);
        } catch (error) {
          if (!(error instanceof ParseBoolError)) throw error;
          throw new RdtAnnotationError(key, error.message);
        }
        logger.info({ enablemonitoring: enable }, "Adjust enablemonitoring");
        adjust.setRdtEnableMonitoring(enable);
        break;
      }
      default:
        logger.info({ field_name: field }, "Unknown rdt field");
    }
  }
  return adjust.build();
}
