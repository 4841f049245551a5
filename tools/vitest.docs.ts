import { defineConfig } from "vitest/config";

/** The docs site in a browser (`npm run test:docs`, after `npm run docs`). */
export default defineConfig({
  test: {
    include: ["docs-site/**/*.test.ts"],
    testTimeout: 120_000,
    hookTimeout: 120_000,
  },
});
