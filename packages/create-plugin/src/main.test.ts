import { execFile } from "node:child_process";
import { mkdirSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { promisify } from "node:util";
import { pluginProgram } from "@nri-ts/sim";
import { afterAll, describe, expect, it } from "vitest";

const run = promisify(execFile);
const [node, ...options] = pluginProgram(join(import.meta.dirname, "main.ts")).command;
const work = mkdtempSync(join(tmpdir(), "create-plugin-cli-"));
afterAll(() => rmSync(work, { recursive: true, force: true }));

/** `create-plugin ...args` in `work`: exit code, stdout, stderr. */
async function createPlugin(...args: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
  try {
    const { stdout, stderr } = await run(node!, [...options, ...args], { cwd: work });
    return { code: 0, stdout, stderr };
  } catch (error) {
    const { code, stdout, stderr } = error as { code: number; stdout: string; stderr: string };
    return { code, stdout, stderr };
  }
}

// Each run starts Node with tsx, which takes seconds on a busy machine (three runs took 9.3 s at load 17-23).
describe("create-plugin", { timeout: 120_000 }, () => {
  it("creates the project and says what to do next", async () => {
    const { code, stdout, stderr } = await createPlugin("gpu-limits");
    expect({ code, stderr }).toEqual({ code: 0, stderr: "" });
    expect(stdout).toBe(`Created the NRI plugin gpu-limits in gpu-limits: 23 files.

Next:
  cd gpu-limits
  npm install
  npm test        # simulate() runs scenario.yaml through the plugin
  npm run sim     # what the plugin does at each step of scenario.yaml

src/plugin.ts has the handlers; README.md says how to build, run and deploy it.
`);
    expect(readdirSync(join(work, "gpu-limits"))).toContain("package.json");
  });

  it("refuses a non-empty directory with exit status 1 and writes nothing", async () => {
    mkdirSync(join(work, "taken"));
    writeFileSync(join(work, "taken", "keep.txt"), "");
    expect(await createPlugin("taken")).toEqual({
      code: 1,
      stdout: "",
      stderr: `create-plugin: ${join(work, "taken")} is not empty (1 entries); choose a new directory or empty it; nothing was written\n`,
    });
    expect(readdirSync(join(work, "taken"))).toEqual(["keep.txt"]);
  });

  it("refuses an invalid name with exit status 2", async () => {
    const { code, stderr } = await createPlugin("My Plugin");
    expect(code).toBe(2);
    expect(stderr).toMatch(/^create-plugin: invalid plugin name "My Plugin": use lowercase letters/);
    expect(readdirSync(work)).not.toContain("My Plugin");
  });

  it("needs exactly one directory, and knows no options", async () => {
    for (const args of [[], ["a", "b"], ["--force", "a"]]) {
      const { code, stderr } = await createPlugin(...args);
      expect(code, args.join(" ")).toBe(2);
      expect(stderr).toContain("Usage: npm create @nri-ts/plugin <directory>");
    }
  });

  it("prints its usage with --help", async () => {
    const { code, stdout } = await createPlugin("--help");
    expect(code).toBe(0);
    expect(stdout).toMatch(/^Usage: npm create @nri-ts\/plugin <directory>\n/);
  });
});
