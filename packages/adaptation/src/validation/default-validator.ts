import type { ValidateContainerAdjustmentRequest, ValidateContainerAdjustmentResponse } from "@nri-ts/api";
import { effectiveAnnotation, Field, REQUIRED_PLUGINS_ANNOTATION, SecurityProfile_ProfileType } from "@nri-ts/api";
import { goQuote, ParseBoolError, parseGoBool } from "@nri-ts/common";
import type { DefaultValidatorConfig } from "./default-validator-config.js";
import { compoundOwner, compoundOwners, simpleOwner } from "../merge/owners.js";
import { pluginMap } from "./validation.js";
import { parseYamlStringList, YamlListError } from "./yaml-string-list.js";

/** The builtin validator's name and index: it takes part as `00-default-validator`. */
export const DEFAULT_VALIDATOR_NAME = "default-validator";
export const DEFAULT_VALIDATOR_INDEX = "00";

/** A rule of the default validator rejected the adjustment. */
export class DefaultValidationError extends Error {
  override readonly name = "DefaultValidationError";
  constructor(detail: string) {
    super(`validation error: ${detail}`);
  }
}

/** A pod annotation the default validator reads cannot be parsed. */
export class AnnotationValueError extends Error {
  override readonly name = "AnnotationValueError";
  constructor(
    readonly annotation: string,
    readonly value: string,
    override readonly cause: Error,
  ) {
    super(`invalid ${annotation} annotation ${goQuote(value)}: ${cause.message}`);
  }
}

function containerId(request: ValidateContainerAdjustmentRequest): string {
  return request.container?.id ?? "";
}

function checkOciHooks(config: DefaultValidatorConfig, request: ValidateContainerAdjustmentRequest): void {
  if (request.adjust === undefined || !config.rejectOCIHookAdjustment) return;
  const owners = simpleOwner(request.owners, containerId(request), Field.OciHooks);
  if (owners === undefined) return;
  const offender = owners.includes(",") ? `plugins ${goQuote(owners)}` : `plugin ${goQuote(owners)}`;
  throw new DefaultValidationError(`${offender} attempted restricted OCI hook injection`);
}

/**
 * Seccomp: only the container's own profile (before any plugin) decides
 * which switch applies. Two of Go's texts have a double space; kept.
 */
function checkSeccompPolicy(config: DefaultValidatorConfig, request: ValidateContainerAdjustmentRequest): void {
  if (request.adjust === undefined) return;
  const owner = simpleOwner(request.owners, containerId(request), Field.SeccompPolicy);
  if (owner === undefined) return;
  const profile = request.container?.linux?.seccompProfile;
  if (profile === undefined || profile.profileType === SecurityProfile_ProfileType.UNCONFINED) {
    if (config.rejectUnconfinedSeccompAdjustment) {
      throw new DefaultValidationError(`plugin ${owner} attempted restricted  unconfined seccomp policy adjustment`);
    }
  } else if (profile.profileType === SecurityProfile_ProfileType.RUNTIME_DEFAULT) {
    if (config.rejectRuntimeDefaultSeccompAdjustment) {
      throw new DefaultValidationError(
        `plugin ${owner} attempted restricted runtime default seccomp policy adjustment`,
      );
    }
  } else if (profile.profileType === SecurityProfile_ProfileType.LOCALHOST) {
    if (config.rejectCustomSeccompAdjustment) {
      throw new DefaultValidationError(`plugin ${owner} attempted restricted  custom seccomp policy adjustment`);
    }
  }
}

function checkNamespaces(config: DefaultValidatorConfig, request: ValidateContainerAdjustmentRequest): void {
  if (request.adjust === undefined || !config.rejectNamespaceAdjustment) return;
  const owners = compoundOwners(request.owners, containerId(request), Field.Namespace);
  if (owners === undefined) return;
  const offenders = Object.entries(owners)
    .map(([namespace, plugin]) => `${goQuote(plugin)} (namespace ${goQuote(namespace)})`)
    .join(", ");
  throw new DefaultValidationError(`attempted restricted namespace adjustment by plugin(s) ${offenders}`);
}

/** Required plugins: the global list plus the pod's annotation, unless the toleration annotation is true. */
function checkRequiredPlugins(config: DefaultValidatorConfig, request: ValidateContainerAdjustmentRequest): void {
  const container = request.container?.name ?? "";
  const required = [...config.requiredPlugins];

  const toleration = config.tolerateMissingPluginsAnnotation;
  if (toleration !== "") {
    const value = effectiveAnnotation(request.pod, toleration, container);
    if (value !== undefined) {
      let tolerate: boolean;
      try {
        tolerate = parseGoBool(value);
      } catch (error) {
        if (!(error instanceof ParseBoolError)) throw error;
        throw new AnnotationValueError(toleration, value, error);
      }
      if (tolerate) return;
    }
  }

  const annotated = effectiveAnnotation(request.pod, REQUIRED_PLUGINS_ANNOTATION, container);
  if (annotated !== undefined) {
    try {
      required.push(...parseYamlStringList(annotated));
    } catch (error) {
      if (!(error instanceof YamlListError)) throw error;
      throw new AnnotationValueError(REQUIRED_PLUGINS_ANNOTATION, annotated, error);
    }
  }
  if (required.length === 0) return;

  const present = pluginMap(request);
  const missing = required.filter((name) => !present.has(name));
  if (missing.length === 0) return;
  const offender =
    missing.length === 1 ? `required plugin ${goQuote(missing[0])}` : `required plugins ${goQuote(missing.join(","))}`;
  throw new DefaultValidationError(`${offender} not present`);
}

/** QUIRK (reproduced): marker keys have no owner and pure removals claim nothing, so removals pass. */
function checkSysctl(config: DefaultValidatorConfig, request: ValidateContainerAdjustmentRequest): void {
  const linux = request.adjust?.linux;
  if (linux === undefined || !config.rejectSysctlAdjustment) return;
  const id = containerId(request);
  const owners = Object.keys(linux.sysctl)
    .map((key) => compoundOwner(request.owners, id, Field.Sysctl, key))
    .filter((owner): owner is string => owner !== undefined);
  if (owners.length === 0) return;
  throw new DefaultValidationError(`attempted restricted sysctl adjustment by plugin(s) ${owners.join(", ")}`);
}

/**
 * Run the default validator's rules in Go's order (OCI hooks, seccomp,
 * namespaces, required plugins, sysctl); the first failure throws a
 * DefaultValidationError or an AnnotationValueError with Go's text.
 */
export function checkDefaultValidation(
  config: DefaultValidatorConfig,
  request: ValidateContainerAdjustmentRequest,
): void {
  checkOciHooks(config, request);
  checkSeccompPolicy(config, request);
  checkNamespaces(config, request);
  checkRequiredPlugins(config, request);
  checkSysctl(config, request);
}

/** The builtin validator as the adaptation runs it. */
export interface BuiltinValidator {
  readonly name: string;
  readonly index: string;
  /** Answers like a validator plugin: a failed rule becomes `{reject: true, reason}`. */
  validate(request: ValidateContainerAdjustmentRequest): ValidateContainerAdjustmentResponse;
}

/**
 * The default validator for a configuration, or undefined when it is not
 * enabled (then the adaptation adds no builtin validator at all).
 */
export function defaultValidator(config: DefaultValidatorConfig | undefined): BuiltinValidator | undefined {
  if (config === undefined || !config.enable) return undefined;
  const settings: DefaultValidatorConfig = { ...config, requiredPlugins: [...config.requiredPlugins] };
  return {
    name: DEFAULT_VALIDATOR_NAME,
    index: DEFAULT_VALIDATOR_INDEX,
    validate(request) {
      try {
        checkDefaultValidation(settings, request);
        return { reject: false, reason: "" };
      } catch (error) {
        if (error instanceof DefaultValidationError || error instanceof AnnotationValueError) {
          return { reject: true, reason: error.message };
        }
        throw error;
      }
    },
  };
}
