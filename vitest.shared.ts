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
    // expect.poll waits for something bound to happen (a plugin's record, a
    // reconnection): vitest's default of 1 s is too short on a busy machine
    expect: { poll: { timeout: 15_000 } },
  },
});
