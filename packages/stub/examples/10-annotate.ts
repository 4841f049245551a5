import { runPlugin } from "@nri-ts/stub";

await runPlugin({
  // every new container gets an annotation and an environment variable
  createContainer: (pod) => ({
    annotations: { "example.com/seen-by": "annotate" },
    env: [{ key: "POD_NAME", value: pod.name }],
  }),
  // and the plugin logs when containers start and stop
  postStartContainer: (pod, container, { logger }) => {
    logger.info({ pod: pod.name, container: container.name }, "started");
  },
  stopContainer: (pod, container, { logger }) => {
    logger.info({ pod: pod.name, container: container.name, exitCode: container.exitCode }, "stopping");
  },
});
