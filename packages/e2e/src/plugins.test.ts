/**
 * Starting plugins, as every check does: the programs of our plugins come
 * only from packages that `npm run e2e` builds first (the dependencies of
 * @nri-ts/e2e), so that a clean checkout runs them as a built one does;
 * and a plugin that dies before containerd registers it is reported at
 * once, with what it said.
 */
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { describeE2E } from "./context.js";
import { packageDir, repoDir } from "./paths.js";
import { ExternalPlugin, packageBin } from "./plugins.js";
import { Runtime } from "./runtime.js";

describe("packageBin", () => {
  it("refuses a package that is not a dependency of @nri-ts/e2e, which npm run e2e would not build", () => {
    const { dependencies } = JSON.parse(readFileSync(join(packageDir, "package.json"), "utf8"));
    expect(dependencies).not.toHaveProperty("@nri-ts/plugin-rdt");
    expect(() => packageBin("plugins/rdt")).toThrow(
      "@nri-ts/plugin-rdt is not a dependency of @nri-ts/e2e: add it to packages/e2e/package.json",
    );
  });

  it("gives the built bin script of one that is", () => {
    expect(packageBin("plugins/hook-injector")).toBe(
      join(repoDir, "packages", "plugins", "hook-injector", "dist", "main.js"),
    );
  });
});

describeE2E("a plugin that dies before it registers", () => {
  let runtime: Runtime;
  beforeAll(async () => {
    runtime = await Runtime.start({ label: "plugins" });
  });
  afterAll(() => runtime?.teardown());

  it("fails the wait at once, with how it exited and its own log", async () => {
    const dying = {
      label: "dies-at-start",
      command: process.execPath,
      args: ["-e", "console.error('no plugin here'); process.exit(3)"],
    };
    // not runtime.startPlugin: its failure would show in the run's timings as if something had gone wrong
    await expect(ExternalPlugin.start(runtime.layout, runtime.containerd, dying)).rejects.toThrow(
      /^dies-at-start exited \(code 3\); gave up waiting for the registration of dies-at-start \(pid \d+\) in \S+containerd\.log; .*\ndies-at-start's own log, \S+: its last lines:\nno plugin here$/s,
    );
  });
});
