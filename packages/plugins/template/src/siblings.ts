/**
 * What the template remembers of containers, to know which other containers
 * of a pod are alive when it shows updates: it learns them from Synchronize
 * and follows them through their events.
 */
import { type Container, ContainerState } from "@nri-ts/api";

interface Known {
  podSandboxId: string;
  name: string;
  state: ContainerState;
}

const LIVE = new Set([ContainerState.CONTAINER_CREATED, ContainerState.CONTAINER_RUNNING]);

export class Siblings {
  private readonly known = new Map<string, Known>();

  /** Records a container as the runtime just described it. */
  see(container: Container, state: ContainerState = container.state): void {
    this.known.set(container.id, { podSandboxId: container.podSandboxId, name: container.name, state });
  }

  forget(container: Container): void {
    this.known.delete(container.id);
  }

  /** The ids and names of the other created or running containers of the container's pod. */
  of(container: Container): { id: string; name: string }[] {
    return [...this.known]
      .filter(([id, k]) => id !== container.id && k.podSandboxId === container.podSandboxId && LIVE.has(k.state))
      .map(([id, k]) => ({ id, name: k.name }));
  }
}
