/**
 * The new project's package.json. Its dependency ranges are this package's
 * own development dependencies: the versions its template is type-checked
 * and tested with.
 */
import { readFileSync } from "node:fs";

const DEPENDENCIES = ["@nri-ts/stub"];
const DEV_DEPENDENCIES = ["@nri-ts/sim", "@types/node", "tsx", "typescript", "vitest"];
/**
 * npm 11's decisions on the install scripts of what the project installs,
 * the repository's own: esbuild (under tsx) ships its binary in a package
 * per platform, and its script only checks it. Without a decision, every
 * `npm install` warns that the script is not covered by allowScripts.
 */
export const ALLOW_SCRIPTS: Readonly<Record<string, boolean>> = { esbuild: false };

interface OwnManifest {
  devDependencies: Record<string, string>;
}

const own = JSON.parse(readFileSync(new URL("../package.json", import.meta.url), "utf8")) as OwnManifest;

function ranges(names: string[]): Record<string, string> {
  return Object.fromEntries(
    names.map((name) => {
      const range = own.devDependencies[name];
      if (range === undefined) throw new Error(`@nri-ts/create-plugin's package.json lacks the devDependency ${name}`);
      return [name, range];
    }),
  );
}

export function projectManifest(name: string): string {
  const manifest = {
    name,
    version: "0.1.0",
    description: `${name}: an NRI plugin`,
    private: true,
    type: "module",
    engines: { node: ">=22.12" },
    bin: { [`nri-${name}`]: "dist/main.js" },
    scripts: {
      build: "tsc -p tsconfig.build.json",
      typecheck: "tsc -p tsconfig.json",
      test: "vitest run",
      sim: `nri-sim run scenario.yaml --plugin 10-${name}=./src/plugin.ts`,
      start: "node dist/main.js",
    },
    dependencies: ranges(DEPENDENCIES),
    devDependencies: ranges(DEV_DEPENDENCIES),
    allowScripts: ALLOW_SCRIPTS,
  };
  return `${JSON.stringify(manifest, null, 2)}\n`;
}
