import { defineConfig } from "vitest/config";

export default defineConfig({
  test: {
    // src/main.test.ts starts the TypeScript program: seconds, more on a busy machine.
    testTimeout: 120_000,
  },
});
