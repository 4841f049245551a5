/**
 * Type-checks and runs every TypeScript example of README.md against this
 * package, and checks that each `console.log` prints what the `// → ...`
 * line after it says.
 */
import { readFileSync } from "node:fs";
import { fileURLToPath } from "node:url";
import ts from "typescript";
import { describe, expect, it } from "vitest";
import * as api from "./index.js";

const readme = readFileSync(new URL("../README.md", import.meta.url), "utf8");
const examples = [...readme.matchAll(/```ts\n([\s\S]*?)```/g)].map((match) => match[1]!);

const IMPORT = /^import \{([^}]*)\} from "@nri-ts\/api";\n/gm;

function importedNames(code: string): string[] {
  return [...code.matchAll(IMPORT)].flatMap((match) =>
    match[1]!
      .split(",")
      .map((name) => name.trim().replace(/^type\s+/, ""))
      .filter(Boolean),
  );
}

function expectedOutput(code: string): string[] {
  return [...code.matchAll(/^\/\/ → (.*)$/gm)].map((match) => match[1]!);
}

function run(code: string): string[] {
  const names = importedNames(code);
  const js = ts.transpileModule(code.replace(IMPORT, ""), {
    compilerOptions: { target: ts.ScriptTarget.ES2022, module: ts.ModuleKind.ESNext },
  }).outputText;
  const printed: string[] = [];
  const console = { log: (...values: unknown[]) => printed.push(values.map(String).join(" ")) };
  new Function("api", "console", `const { ${names.join(", ")} } = api;\n${js}`)(api, console);
  return printed;
}

/** Type errors of the examples, compiled as files of this package under the test tsconfig. */
function typeErrors(): string[] {
  const config = ts.getParsedCommandLineOfConfigFile(
    fileURLToPath(new URL("../tsconfig.test.json", import.meta.url)),
    {},
    { ...ts.sys, onUnRecoverableConfigFileDiagnostic: () => {} },
  )!;
  const sources = new Map(
    examples.map((code, i) => [
      fileURLToPath(new URL(`readme-example-${i + 1}.ts`, import.meta.url)),
      `${code.replaceAll('"@nri-ts/api"', '"./index.js"')}\nexport {};\n`,
    ]),
  );
  const host = ts.createCompilerHost(config.options);
  const { fileExists, readFile } = host;
  host.fileExists = (file) => sources.has(file) || fileExists(file);
  host.readFile = (file) => sources.get(file) ?? readFile(file);
  const program = ts.createProgram([...sources.keys()], config.options, host);
  // Only the examples' own diagnostics: checking all of the generated code would take seconds.
  return [...sources.keys()]
    .map((file) => program.getSourceFile(file)!)
    .flatMap((file) => [...program.getSyntacticDiagnostics(file), ...program.getSemanticDiagnostics(file)])
    .map((diagnostic) => ts.flattenDiagnosticMessageText(diagnostic.messageText, "\n"));
}

describe("README examples", () => {
  it("exist", () => {
    expect(examples.length).toBeGreaterThanOrEqual(3);
  });

  const numbered = examples.map((code, i) => [i + 1, code] as const);

  it.each(numbered)("example %i imports only what the package exports", (_, code) => {
    for (const name of importedNames(code)) expect(api).toHaveProperty(name);
  });

  it.each(numbered)("example %i prints what it says", (_, code) => {
    expect(run(code)).toEqual(expectedOutput(code));
  });

  it("type-check", () => {
    expect(typeErrors()).toEqual([]);
  });
});
