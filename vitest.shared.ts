import { defaultServerConditions } from "vite";
import { defineConfig } from "vitest/config";

/** Test against each workspace package's TypeScript sources, not its dist. */
export default defineConfig({
  ssr: {
    resolve: {
      conditions: ["@nri-ts/source", ...defaultServerConditions],
    },
  },
  test: {
    include: ["src/**/*.test.ts", "test/**/*.test.ts"],
    testTimeout: 20_000,
  },
});
