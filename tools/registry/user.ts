/**
 * A user of the registry: an empty directory of their own under the test's
 * work directory, npm configured with nothing but the registry's address
 * and a cache of the run's own, and commands run as they are typed
 * (`sh -c`, word for word).
 */
import { mkdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { inject } from "vitest";
import { npmEnv, type Output, sh } from "./npm-env.js";

export interface User {
  /** The directory the user starts in (empty). */
  dir: string;
  env: NodeJS.ProcessEnv;
  /** Runs `line` as a shell does, in `dir` or in `where` under it. */
  type(line: string, where?: string): Promise<Output>;
}

/** A user with an empty directory `name`; `extra` adds environment variables (PATH, npm_config_prefix). */
export function user(name: string, extra: (dir: string) => Record<string, string> = () => ({})): User {
  const { registry, work } = inject("released");
  const dir = join(work, "users", name);
  mkdirSync(dir, { recursive: true });
  // npm's cache of the run, not the machine's: npm create runs the scaffolder that npx cached last, whichever
  // registry it came from (a stale @nri-ts/create-plugin from another run asked for versions not published here)
  const env = npmEnv(registry.userconfig, {
    npm_config_audit: "false",
    npm_config_fund: "false",
    npm_config_cache: join(work, "npm-cache"),
    ...extra(dir),
  });
  return { dir, env, type: (line, where = ".") => sh(join(dir, where), env, "sh", ["-c", line]) };
}

/** Each `@nri-ts/*` package of a project's lock file with where npm fetched it from. */
export function ourResolved(project: string): Record<string, string> {
  const lock = JSON.parse(readFileSync(join(project, "package-lock.json"), "utf8")) as {
    packages: Record<string, { resolved?: string; version?: string }>;
  };
  return Object.fromEntries(
    Object.entries(lock.packages)
      .filter(([path]) => /node_modules\/@nri-ts\/[^/]+$/.test(path))
      .map(([path, entry]) => [`${path.replace(/^.*node_modules\//, "")}@${entry.version}`, entry.resolved ?? ""]),
  );
}
