import { defineConfig } from "vitest/config";
import { ReleaseOrder } from "./registry/sequencer.js";

/**
 * The release through a registry of our own (`npm run test:registry`, after
 * `npm run build`; Node.js 22 or newer): published once in the global setup,
 * then one file after another, each a user, the maintainer's second release
 * last (registry/sequencer.ts), since they share the registry and npm's cache.
 */
export default defineConfig({
  test: {
    include: ["registry/**/*.test.ts"],
    globalSetup: ["registry/global-setup.ts"],
    fileParallelism: false,
    sequence: { sequencer: ReleaseOrder },
    testTimeout: 600_000,
    hookTimeout: 900_000,
  },
});
