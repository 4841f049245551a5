import { defineConfig, mergeConfig } from "vitest/config";
import shared from "../../vitest.shared.js";

export default mergeConfig(
  shared,
  defineConfig({
    test: {
      // Suites build their Go peers in beforeAll hooks; with a cold Go build
      // cache (a new machine) that takes tens of seconds per program.
      hookTimeout: 300_000,
    },
  }),
);
