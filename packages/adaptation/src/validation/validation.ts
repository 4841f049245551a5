import type {
  Container,
  CreateContainerResponse,
  OwningPlugins,
  PluginInstance,
  PodSandbox,
  ValidateContainerAdjustmentRequest,
  ValidateContainerAdjustmentResponse,
} from "@nri-ts/api";
import { boundedText, goQuote } from "@nri-ts/common";
import { errorText } from "../error-text.js";

/**
 * Collects a ValidateContainerAdjustmentRequest while a container is
 * created. Start it before the first plugin response is merged (the
 * container it holds is the filled request's container as it was then),
 * add every active plugin in invocation order before calling it, and build
 * the request once every response is merged.
 */
export class ValidationRequestBuilder {
  private readonly plugins: PluginInstance[] = [];

  constructor(
    private readonly pod: PodSandbox | undefined,
    /** A deep copy of the container before any plugin changed it. */
    private readonly container: Container,
  ) {}

  /** Record a plugin (`name` without the index), whether or not it takes part in creation. */
  addPlugin(name: string, index: string): void {
    this.plugins.push({ name, index });
  }

  /** The request validators get: the merged reply and the request's whole ownership record. */
  build(response: CreateContainerResponse, owners: OwningPlugins): ValidateContainerAdjustmentRequest {
    return {
      pod: this.pod,
      container: this.container,
      adjust: response.adjust,
      update: response.update,
      owners,
      plugins: [...this.plugins],
    };
  }
}

/**
 * The plugins of a validation request by name: each plugin under its full
 * name `<idx>-<name>`, and under its bare name (then with an empty index),
 * so a required plugin can be named either way.
 */
export function pluginMap(request: ValidateContainerAdjustmentRequest): Map<string, PluginInstance> {
  const plugins = new Map<string, PluginInstance>();
  for (const plugin of request.plugins) {
    plugins.set(plugin.name, { name: plugin.name, index: "" });
    plugins.set(`${plugin.index}-${plugin.name}`, plugin);
  }
  return plugins;
}

/** A validator rejected the merged adjustment. */
export class ValidatorRejectedError extends Error {
  override readonly name = "ValidatorRejectedError";
  constructor(
    /** The validator's full name, `<idx>-<name>`. */
    readonly plugin: string,
    readonly reason: string,
  ) {
    super(
      `validator ${goQuote(plugin)} rejected container adjustment, reason: ${reason || "unknown rejection reason"}`,
    );
  }
}

/** A validator could not be asked (transport error, timeout, its own error). */
export class ValidatorFailedError extends Error {
  override readonly name = "ValidatorFailedError";
  constructor(
    readonly plugin: string,
    override readonly cause: unknown,
  ) {
    super(`validator plugin ${plugin} failed: ${errorText(cause)}`);
  }
}

/** The error a validator's response means, or undefined if it accepted. */
export function validationVerdict(
  response: ValidateContainerAdjustmentResponse,
  plugin: string,
): ValidatorRejectedError | undefined {
  return response.reject ? new ValidatorRejectedError(plugin, boundedText(response.reason)) : undefined;
}

/**
 * Wait for every validator (they run concurrently) and return the first
 * failure in the order the failures happened, as the Go adaptation reads
 * them off its results channel; undefined when all accepted. Each promise
 * rejects with its validator's error (e.g. ValidatorRejectedError).
 */
export async function firstValidationError(validations: ReadonlyArray<Promise<unknown>>): Promise<Error | undefined> {
  const failures: Error[] = [];
  await Promise.all(
    validations.map((validation) =>
      validation.then(
        () => undefined,
        (error: unknown) => {
          failures.push(error instanceof Error ? error : new Error(String(error)));
        },
      ),
    ),
  );
  return failures[0];
}
