/**
 * The plugin's handlers. The ones present decide which events the runtime
 * sends it; delete those you do not need and add others from the `Plugin`
 * type (runPodSandbox, updateContainer, removeContainer, ...).
 */
import type { Plugin } from "@nri-ts/stub";

/** The annotation every container gets when it is created. */
export const SEEN_BY = "example.com/seen-by";

export const plugin: Plugin = {
  // Before a container exists: its annotations, environment, mounts,
  // resources and more can still change (see AdjustmentBuilder in @nri-ts/api).
  createContainer: (pod, container, { logger }) => {
    logger.info({ pod: pod.name, container: container.name }, "creating");
    return {
      annotations: { [SEEN_BY]: "{{name}}" },
      env: [{ key: "POD_NAME", value: pod.name }],
    };
  },
  // After it ended: its exit code and why (OOMKilled, Error, Completed).
  stopContainer: (pod, container, { logger }) => {
    logger.info(
      { pod: pod.name, container: container.name, exitCode: container.exitCode, reason: container.statusReason },
      "stopped",
    );
  },
};
