/**
 * Resolves the names steps and expectations use to the declared pods and
 * containers: a container by its name when that is unique, else `pod/name`.
 */
import type { ContainerSpec, PodSpec } from "./scenario.js";
import type { YamlValue } from "./yaml-value.js";

export function goodPodNames(pods: (PodSpec | undefined)[]): string[] {
  return pods.flatMap((pod) => (pod ? [pod.name] : []));
}

/** Resolves names used in steps and expectations to pods and containers. */
export class Names {
  readonly pods = new Map<string, PodSpec>();
  /** Container key (`pod/name`) → spec. */
  readonly containers = new Map<string, ContainerSpec>();

  constructor(pods: PodSpec[], containers: ContainerSpec[], podValues: YamlValue[], containerValues: YamlValue[]) {
    pods.forEach((pod, i) => {
      if (this.pods.has(pod.name)) podValues[i].error(`pod "${pod.name}" is declared twice`);
      this.pods.set(pod.name, pod);
    });
    containers.forEach((container, i) => {
      const key = `${container.pod}/${container.name}`;
      if (this.containers.has(key)) containerValues[i].error(`container "${key}" is declared twice`);
      this.containers.set(key, container);
    });
  }

  pod(value: YamlValue): string | undefined {
    const name = value.name("a pod name");
    if (name === undefined) return undefined;
    if (!this.pods.has(name))
      return value.error(`no pod "${name}" is declared; declared: ${this.list([...this.pods.keys()])}`);
    return name;
  }

  /** A container by its name (when unique) or as `pod/name`; returns the key. */
  container(value: YamlValue): string | undefined {
    const ref = value.name("a container name");
    if (ref === undefined) return undefined;
    return this.resolveContainer(ref, value);
  }

  resolveContainer(ref: string, value: YamlValue): string | undefined {
    if (this.containers.has(ref)) return ref;
    const matches = [...this.containers.values()].filter((c) => c.name === ref);
    if (matches.length === 1) return `${matches[0].pod}/${matches[0].name}`;
    if (matches.length > 1) {
      return value.error(
        `container name "${ref}" is ambiguous; write one of: ${this.list(matches.map((c) => `${c.pod}/${c.name}`))}`,
      );
    }
    return value.error(`no container "${ref}" is declared; declared: ${this.list([...this.containers.keys()])}`);
  }

  /** The shortest way to name a container: its name if unique, else `pod/name`. */
  short(key: string): string {
    const spec = this.containers.get(key);
    if (!spec) return key;
    const same = [...this.containers.values()].filter((c) => c.name === spec.name).length;
    return same === 1 ? spec.name : key;
  }

  private list(names: string[]): string {
    return names.length ? names.join(", ") : "none";
  }
}
