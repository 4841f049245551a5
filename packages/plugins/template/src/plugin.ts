/**
 * The template plugin: a starting point that handles every lifecycle event
 * the Go template handles (all but the pod-update and validation ones),
 * logs one line for each, and changes nothing. Each handler says what a
 * real plugin may do there.
 *
 * With the `updates` setting (ours; see config.ts) it also shows container
 * updates: in the update lists of CreateContainer, UpdateContainer and
 * StopContainer, and unsolicited through the stub.
 */
import { type Container, ContainerState, type PodSandbox, UpdateBuilder } from "@nri-ts/api";
import { createLogger, type Logger, type Plugin, type StubHandle } from "@nri-ts/stub";
import { decodeTemplateConfig, type TemplateConfig } from "./config.js";
import { Siblings } from "./siblings.js";

export interface TemplatePluginOptions {
  /** Settings before any runtime configuration (a runtime's replaces them); default `{cfgParam1: ""}`. */
  config?: TemplateConfig;
  /** Where its lines go; default JSON lines on stderr, at info level. */
  logger?: Logger;
}

const where = (pod: PodSandbox, container?: Container) =>
  container ? `${pod.namespace}/${pod.name}/${container.name}` : `${pod.namespace}/${pod.name}`;

/** The plugin object for @nri-ts/stub. */
export function createTemplatePlugin(options: TemplatePluginOptions = {}): Plugin {
  const log = options.logger ?? createLogger();
  let config: TemplateConfig = options.config ?? { cfgParam1: "" };
  const siblings = new Siblings();

  /** Updates of the container's live siblings, when the configuration asks for them. */
  const siblingUpdates = (pod: PodSandbox, container: Container): UpdateBuilder[] => {
    const shares = config.updates?.cpuShares;
    if (shares === undefined) return [];
    return siblings.of(container).map(({ id, name }) => {
      log.info(`Updating CPU shares of container ${pod.namespace}/${pod.name}/${name} to ${shares}...`);
      return new UpdateBuilder(id).setCpuShares(shares);
    });
  };

  /**
   * An unsolicited update, sent once the current request has been answered:
   * a runtime may hold its lock while it waits for the answer, so a plugin
   * must not wait for an update it sends from inside a handler.
   */
  const pushLater = (stub: StubHandle, pod: PodSandbox, container: Container, shares: bigint): void => {
    setImmediate(() => {
      log.info(`Pushing CPU shares ${shares} to container ${where(pod, container)}...`);
      stub.updateContainers([new UpdateBuilder(container.id).setCpuShares(shares)]).then(
        (failed) => {
          for (const f of failed) log.warn(`Runtime could not update container ${f.containerId}`);
        },
        (error: Error) => log.warn(`Unsolicited update failed: ${error.message}`),
      );
    });
  };

  return {
    configure({ config: text, runtimeName, runtimeVersion }) {
      log.info(`Connected to ${runtimeName}/${runtimeVersion}...`);
      if (text === "") return 0;
      config = decodeTemplateConfig(text);
      log.info(`Got configuration data {CfgParam1:${config.cfgParam1}}...`);
      if (config.updates) {
        const { cpuShares, unsolicited } = config.updates;
        log.info(`Showing updates: CPU shares ${cpuShares}${unsolicited ? ", also unsolicited" : ""}...`);
      }
      // 0: subscribe to every event the plugin has a handler for
      return 0;
    },
    synchronize(pods, containers) {
      log.info(`Synchronized state with the runtime (${pods.length} pods, ${containers.length} containers)...`);
      for (const container of containers) siblings.see(container);
      // updates of existing containers may be returned here
      return [];
    },
    shutdown() {
      log.info("Runtime shutting down...");
    },
    runPodSandbox(pod) {
      log.info(`Started pod ${where(pod)}...`);
    },
    stopPodSandbox(pod) {
      log.info(`Stopped pod ${where(pod)}...`);
    },
    removePodSandbox(pod) {
      log.info(`Removed pod ${where(pod)}...`);
    },
    createContainer(pod, container) {
      log.info(`Creating container ${where(pod, container)}...`);
      // The container does not exist yet: this is where most of its settings
      // can still change (see AdjustmentBuilder in @nri-ts/api), and where
      // other containers can be updated (see UpdateBuilder) or evicted.
      const update = siblingUpdates(pod, container);
      siblings.see(container, ContainerState.CONTAINER_CREATED);
      return { adjust: {}, update };
    },
    postCreateContainer(pod, container) {
      log.info(`Created container ${where(pod, container)}...`);
    },
    startContainer(pod, container) {
      log.info(`Starting container ${where(pod, container)}...`);
    },
    postStartContainer(pod, container, ctx) {
      log.info(`Started container ${where(pod, container)}...`);
      siblings.see(container, ContainerState.CONTAINER_RUNNING);
      if (config.updates?.unsolicited) pushLater(ctx.stub, pod, container, config.updates.cpuShares);
    },
    updateContainer(pod, container) {
      log.info(`Updating container ${where(pod, container)}...`);
      // The pending update of this container may be changed here (an update
      // of its own id), and other containers updated.
      return siblingUpdates(pod, container);
    },
    postUpdateContainer(pod, container) {
      log.info(`Updated container ${where(pod, container)}...`);
    },
    stopContainer(pod, container) {
      log.info(`Stopped container ${where(pod, container)}...`);
      siblings.see(container, ContainerState.CONTAINER_STOPPED);
      // The remaining containers may be updated here, e.g. given what this one used.
      return siblingUpdates(pod, container);
    },
    removeContainer(pod, container) {
      log.info(`Removed container ${where(pod, container)}...`);
      siblings.forget(container);
    },
  };
}

/** The template for `nri-sim --plugin`: `config` is the YAML a runtime would hand it. */
export function templateForSim(config = ""): Plugin {
  return createTemplatePlugin(config ? { config: decodeTemplateConfig(config) } : {});
}
