#!/usr/bin/env node
/**
 * `npm create @nri-ts/plugin <directory>` (npm runs this package's bin
 * `create-plugin`): a new plugin project in a new or empty directory.
 * Exit status 0 when every file was written, 1 when the directory cannot
 * take the project (nothing is written then), 2 for a bad command line.
 */
import { readFileSync } from "node:fs";
import { relative } from "node:path";
import { ScaffoldError, scaffold } from "./scaffold.js";

const USAGE = `Usage: npm create @nri-ts/plugin <directory>
       (or: npm init @nri-ts/plugin <directory>, npx @nri-ts/create-plugin <directory>)

Creates an NRI plugin project in <directory>, which must be new or empty;
its name is the directory's name (lowercase letters, digits and "-").
`;

function fail(message: string, code: number): never {
  process.stderr.write(`create-plugin: ${message}\n`);
  process.exit(code);
}

const args = process.argv.slice(2);
if (args.includes("-h") || args.includes("--help")) {
  process.stdout.write(USAGE);
  process.exit(0);
}
if (args.includes("--version")) {
  const { version } = JSON.parse(readFileSync(new URL("../package.json", import.meta.url), "utf8")) as {
    version: string;
  };
  process.stdout.write(`${version}\n`);
  process.exit(0);
}
const option = args.find((arg) => arg.startsWith("-"));
if (option) fail(`unknown option ${option}\n\n${USAGE}`, 2);
if (args.length !== 1)
  fail(`${args.length === 0 ? "name the directory to create" : "give one directory"}\n\n${USAGE}`, 2);

let project;
try {
  project = scaffold(args[0]!);
} catch (error) {
  if (error instanceof ScaffoldError) fail(error.message, error.reason === "name" ? 2 : 1);
  fail(`could not write the project, nothing was kept: ${(error as Error).message}`, 1);
}
const where = relative(process.cwd(), project.directory) || ".";
process.stdout.write(`Created the NRI plugin ${project.name} in ${where}: ${project.files.length} files.

Next:
${where === "." ? "" : `  cd ${where}\n`}  npm install
  npm test        # simulate() runs scenario.yaml through the plugin
  npm run sim     # what the plugin does at each step of scenario.yaml

src/plugin.ts has the handlers; README.md says how to build, run and deploy it.
`);
