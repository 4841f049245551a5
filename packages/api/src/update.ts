/**
 * A fluent builder for `ContainerUpdate`, the resource changes a plugin asks
 * for on an existing container (in a CreateContainer, UpdateContainer or
 * StopContainer response, or unsolicited through UpdateContainers):
 *
 * ```ts
 * const update = new UpdateBuilder(container.id).setCpuShares(512).setMemoryLimit(1n << 30n).build();
 * ```
 */
import { ContainerUpdate, LinuxContainerUpdate, LinuxResources } from "./gen/nri/pkg/api/v1alpha1/api.js";
import { LinuxResourceSetters } from "./resource-setters.js";

export class UpdateBuilder extends LinuxResourceSetters {
  readonly #update: ContainerUpdate;

  constructor(containerId: string) {
    super();
    this.#update = ContainerUpdate.fromPartial({ containerId });
  }

  protected resources(): LinuxResources {
    const linux = (this.#update.linux ??= LinuxContainerUpdate.fromPartial({}));
    return (linux.resources ??= LinuxResources.fromPartial({}));
  }

  /**
   * Marks the update as optional: if it conflicts with another plugin's or
   * cannot be applied, it is dropped instead of failing the container
   * operation. When several plugins update one container, the merged update
   * is optional only if all of them said so.
   */
  setIgnoreFailure(ignore = true): this {
    this.#update.ignoreFailure = ignore;
    return this;
  }

  /** The update so far, as a fresh generated object (the builder can go on). */
  build(): ContainerUpdate {
    return ContainerUpdate.fromPartial(this.#update);
  }
}
