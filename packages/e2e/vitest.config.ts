import { defineConfig, mergeConfig } from "vitest/config";
import shared from "../../vitest.shared.js";
import { tierFiles } from "./src/tiers.js";

const config = mergeConfig(
  shared,
  defineConfig({
    test: {
      globalSetup: ["src/global-setup.ts"],
      // each file runs its own containerds (or cluster); most of a check is
      // waiting on processes (containerd, shims, plugins, kubelets), so three
      // files at a time fit two cores
      maxWorkers: 3,
      testTimeout: 120_000,
      hookTimeout: 120_000,
    },
  }),
);
// the tiers NRI_E2E_TIER selects (mergeConfig would add to the shared list, not replace it)
config.test.include = tierFiles();
export default config;
