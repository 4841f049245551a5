import { spawnSync } from "node:child_process";
import { createRequire } from "node:module";
import { dirname, join } from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";
import { describe, expect, it } from "vitest";

describe("the yaml package", { timeout: 120_000 }, () => {
  /** Imports the package's entry point in a fresh process, runs `then` and prints whether `yaml` is loaded before and after. */
  function yamlLoaded(then: string): { before: boolean; after: boolean; stderr: string } {
    const entry = pathToFileURL(join(dirname(fileURLToPath(import.meta.url)), "..", "index.ts")).href;
    const main = `import { createRequire } from "node:module";
      const adaptation = await import(${JSON.stringify(entry)});
      const loaded = () => Object.keys(createRequire(import.meta.url).cache).some((file) => file.includes("/node_modules/yaml/"));
      const before = loaded();
      ${then}
      process.stdout.write(JSON.stringify({ before, after: loaded() }));`;
    const tsx = pathToFileURL(createRequire(import.meta.url).resolve("tsx")).href;
    const run = spawnSync(
      process.execPath,
      ["--conditions=@nri-ts/source", "--import", tsx, "--input-type=module", "-e", main],
      {
        encoding: "utf8",
      },
    );
    return { ...(JSON.parse(run.stdout || "{}") as { before: boolean; after: boolean }), stderr: run.stderr };
  }

  it("is not loaded by importing the adaptation, nor by a default validator configured by object", () => {
    const run = yamlLoaded(`adaptation.parseDefaultValidatorConfig({ enable: true, required_plugins: ["a"] });`);
    expect(run).toEqual({ before: false, after: false, stderr: "" });
  });

  it("is loaded the first time YAML is read, and reads it", () => {
    const run = yamlLoaded(`
      if (adaptation.parseYamlStringList("[a, 'b']").join() !== "a,b") throw new Error("list misread");
      if (!adaptation.parseDefaultValidatorConfig("enable: yes").enable) throw new Error("config misread");`);
    expect(run).toEqual({ before: false, after: true, stderr: "" });
  });
});
