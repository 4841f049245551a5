/** The Node options that run a plugin file: a TypeScript loader where it needs one, our sources' export condition in the monorepo. */
import { createRequire } from "node:module";
import { join } from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";
import { PluginSetupError } from "./plugin-setup.js";

/** Whether this package runs from its TypeScript sources (its own tests, the monorepo). */
export const RUNNING_FROM_SOURCES = fileURLToPath(import.meta.url).endsWith(".ts");

const TYPESCRIPT = /\.(c|m)?tsx?$/;

/** tsx's loader as an `--import` URL, found next to `modulePath` or in the working directory. */
export function tsxLoader(modulePath: string): string {
  for (const base of [modulePath, join(process.cwd(), "noop.js")]) {
    try {
      return pathToFileURL(createRequire(base).resolve("tsx")).href;
    } catch {
      // not there; try the next place
    }
  }
  throw new PluginSetupError(
    `${modulePath}: a TypeScript plugin needs a loader; install tsx next to it, or compile it and pass the .js file`,
  );
}

/** Options for a `node` that runs `file` itself, as a user or a runtime would. */
export function nodeOptionsFor(file: string): string[] {
  return [
    ...(TYPESCRIPT.test(file) ? ["--import", tsxLoader(file)] : []),
    ...(RUNNING_FROM_SOURCES ? ["--conditions=@nri-ts/source"] : []),
  ];
}

/**
 * Options for a child that runs `modulePath` through one of our scripts:
 * this process's own (a TypeScript loader, if running under one), plus tsx
 * when the script or the module needs it.
 */
export function childNodeOptions(modulePath: string): string[] {
  const options = [...process.execArgv];
  if ((RUNNING_FROM_SOURCES || TYPESCRIPT.test(modulePath)) && !options.some((o) => o.includes("tsx"))) {
    options.push("--import", tsxLoader(modulePath));
  }
  if (RUNNING_FROM_SOURCES && !options.some((o) => o.includes("@nri-ts/source")))
    options.push("--conditions=@nri-ts/source");
  return options;
}
