import { defineConfig } from "vitest/config";

/** The checks on the packed tarballs (`npm run test:tarballs`, after `npm run build`): no source condition, as users get them. */
export default defineConfig({
  test: {
    include: ["tarballs/**/*.test.ts"],
    globalSetup: ["tarballs/global-setup.ts"],
    testTimeout: 300_000,
    hookTimeout: 600_000,
  },
});
