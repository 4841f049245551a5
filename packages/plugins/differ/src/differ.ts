/**
 * The differ: one plugin per index of the chain, sharing what they saw.
 * The first index of the chain keeps each pod and container it receives
 * in a queue; every later index takes the oldest entry from the queue of
 * the index before it, logs what changed between that and what it
 * receives itself (the changes of the plugins in between), and, unless it
 * is the last, queues what it received for the next. Entries pair up by
 * queue order, as in the Go differ. It changes nothing.
 */
import type { Container, PodSandbox } from "@nri-ts/api";
import { goTrimSpace } from "@nri-ts/common";
import { type MessageArgument, marshalMessageYaml, SigsYamlError } from "@nri-ts/sigs-yaml";
import type { Logger, Plugin } from "@nri-ts/stub";
import { diffMessages } from "./go-diff.js";
import type { Message } from "./go-struct.js";
import { registeredIndex } from "./indices.js";
import { yamlDiff } from "./yaml-diff.js";

export interface DifferOptions {
  /** The indices to register at, in chain order (`parseIndices`). */
  indices: readonly number[];
  /** 0: only changes; 1: the first index also dumps what it receives; 2: dumps around each change list; 3: Synchronize dumps too. */
  verboseLevel?: number;
  /** Changes as a diff of the objects' YAML instead of field paths. */
  yaml?: boolean;
  /** Where the lines go (info level; one debug line). */
  log: Logger;
}

interface Snapshot {
  pod?: PodSandbox;
  container?: Container;
}

interface Link {
  previous: number;
  next: number;
  queue: Snapshot[];
}

/** One plugin of the chain: the index it registers at (`%02d`) and its handlers. */
export interface DifferPlugin {
  index: number;
  registeredIndex: string;
  plugin: Plugin;
}

/** The plugins of a differ chain, one per entry of `indices`. */
export function createDiffer(options: DifferOptions): DifferPlugin[] {
  const { log } = options;
  const verbose = options.verboseLevel ?? 0;
  const links = new Map<number, Link>();
  let previous = -1;
  for (const index of options.indices) {
    const link = links.get(index) ?? { previous: -1, next: 0, queue: [] };
    link.previous = previous;
    link.queue = [];
    links.set(index, link);
    const before = previous >= 0 ? links.get(previous) : undefined;
    if (before) before.next = index;
    previous = index;
  }
  const last = links.get(previous);
  if (last) last.next = -1;

  return options.indices.map((index) => {
    const name = `[${registeredIndex(index)}]`;
    const link = () => links.get(index) as Link;

    const dump = (prefix: string, ...objects: [string, MessageArgument][]) => {
      for (const [tag, object] of objects) {
        let yaml: string;
        try {
          yaml = marshalMessageYaml(object, { sigsYaml: "v1.4" }); // the Go differ has sigs.k8s.io/yaml v1.5.0
        } catch (error) {
          if (!(error instanceof SigsYamlError)) throw error;
          log.info(`${prefix}: ${tag}: failed to dump object: ${error.message}`);
          continue;
        }
        log.info(`${name} ${prefix}: ${tag}:`);
        for (const line of goTrimSpace(yaml).split("\n")) log.info(`${name} ${prefix}:    ${line}`);
      }
    };

    const printDiff = (event: string, what: string, before: Message, after: Message) => {
      if (options.yaml) {
        const lines = yamlDiff(before, after);
        if (lines === undefined) return;
        log.info(`[${index}] ${event}: ${what}: ${lines === "" ? "<no changes>" : lines}`);
        return;
      }
      if (verbose > 1) {
        log.info(`[${index}] Original values for ${what}`);
        dump(event, [what, before]);
      }
      const changes = diffMessages(before, after);
      if (changes.length === 0) {
        log.info(`[${index}] ${event}: ${what}: <no changes>`);
        return;
      }
      for (const { type, path, from, to } of changes)
        log.info(`[${index}] ${event}: ${what}: ${type}: [${path.join(" ")}]: From: ${from} -> To: ${to}`);
      if (verbose > 1) {
        log.info(`[${index}] Values after changes for ${what}`);
        dump(event, [what, after]);
      }
    };

    const differ = (event: string, pod: PodSandbox | undefined, container?: Container) => {
      const snapshot: Snapshot = { ...(pod && { pod }), ...(container && { container }) };
      const self = link();
      if (self.previous < 0) {
        if (verbose > 0)
          dump(event, ["pod", pod], ...(container ? [["container", container] as [string, MessageArgument]] : []));
        self.queue.push(snapshot);
        return;
      }
      const before = (links.get(self.previous) as Link).queue.shift();
      if (!before) {
        log.debug(`[${index}] ${event}: skipping nil element, plugin startup not yet finished`);
        return;
      }
      if (pod && before.pod) printDiff(event, "pod", before.pod as unknown as Message, pod as unknown as Message);
      if (container && before.container)
        printDiff(event, "container", before.container as unknown as Message, container as unknown as Message);
      if (self.next > 0) self.queue.push(snapshot);
    };

    const plugin: Plugin = {
      synchronize(pods, containers) {
        if (verbose > 2) dump("Synchronize", ["pods", pods], ["containers", containers]);
      },
      shutdown() {},
      runPodSandbox: (pod) => differ("RunPodSandbox", pod),
      stopPodSandbox: (pod) => differ("StopPodSandbox", pod),
      removePodSandbox: (pod) => differ("RemovePodSandbox", pod),
      createContainer(pod, container) {
        differ("CreateContainer", pod, container);
        return {};
      },
      postCreateContainer: (pod, container) => differ("PostCreateContainer", pod, container),
      startContainer: (pod, container) => differ("StartContainer", pod, container),
      postStartContainer: (pod, container) => differ("PostStartContainer", pod, container),
      updateContainer(pod, container) {
        differ("UpdateContainer", pod, container);
      },
      postUpdateContainer: (pod, container) => differ("PostUpdateContainer", pod, container),
      stopContainer(pod, container) {
        differ("StopContainer", pod, container);
      },
      removeContainer: (pod, container) => differ("RemoveContainer", pod, container),
    };
    return { index, registeredIndex: registeredIndex(index), plugin };
  });
}
