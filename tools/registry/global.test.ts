/**
 * `npm install -g @nri-ts/plugin-exit-reporter` from the registry (into a
 * global prefix of the test's own), then its two commands from the PATH.
 */
import { join } from "node:path";
import { beforeAll, describe, expect, it } from "vitest";
import { user } from "./user.js";

const me = user("global", (dir) => ({
  npm_config_prefix: join(dir, "prefix"),
  PATH: `${join(dir, "prefix", "bin")}:${process.env.PATH ?? ""}`,
}));

beforeAll(async () => {
  await me.type("npm install -g @nri-ts/plugin-exit-reporter");
}, 600_000);

describe("the exit-reporter, installed globally from the registry", () => {
  it("puts nri-exit-reporter on the PATH", async () => {
    const { stdout, stderr } = await me.type("command -v nri-exit-reporter && nri-exit-reporter --help");
    expect(stdout.split("\n")[0]).toBe(join(me.dir, "prefix", "bin", "nri-exit-reporter"));
    expect(stderr).toContain("Usage of nri-exit-reporter:");
  });

  it("puts nri-exits on the PATH", async () => {
    const { stdout } = await me.type("command -v nri-exits && nri-exits --help");
    expect(stdout.split("\n")[0]).toBe(join(me.dir, "prefix", "bin", "nri-exits"));
    expect(stdout).toContain("Usage: nri-exits <command> [options]");
  });
});
