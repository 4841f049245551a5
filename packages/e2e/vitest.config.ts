import { defineConfig, mergeConfig } from "vitest/config";
import shared from "../../vitest.shared.js";

export default mergeConfig(
  shared,
  defineConfig({
    test: {
      globalSetup: ["src/global-setup.ts"],
      // each file runs its own containerds; most of a check is waiting on
      // processes (containerd, shims, plugins), so three files at a time fit
      // two cores
      maxWorkers: 3,
      testTimeout: 120_000,
      hookTimeout: 120_000,
    },
  }),
);
