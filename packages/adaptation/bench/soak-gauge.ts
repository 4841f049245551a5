/**
 * Loaded into each plugin process of the soak (bench/soak.ts) with
 * `--import`, the plugin's own code untouched: answers the bench's "sample"
 * message on the IPC channel with the process's memory after a full garbage
 * collection (the process runs with --expose-gc).
 */
process.on("message", (message) => {
  if (message !== "sample") return;
  globalThis.gc?.();
  const { rss, heapUsed } = process.memoryUsage();
  process.send?.({ rss, heapUsed });
});
