/**
 * npm as someone on their own machine runs it: none of the `npm_*`
 * variables that `npm run` hands its scripts (npm_config_local_prefix
 * would make a child npm install into this repository, npm_config_prefix
 * would move `npm install -g`), a user configuration of the test's own (the
 * registry, and a token for whoever publishes) instead of ~/.npmrc, and
 * npm's shared cache, so that third-party tarballs already fetched are not
 * fetched again.
 */
import { execFile } from "node:child_process";
import { promisify } from "node:util";

const execFileAsync = promisify(execFile);

/** The environment for npm and the programs it installs, with `userconfig` as the user's npm configuration. */
export function npmEnv(userconfig: string, extra: Record<string, string> = {}): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = {};
  for (const [key, value] of Object.entries(process.env)) {
    if (/^npm_/i.test(key) || key === "FORCE_COLOR" || key === "INIT_CWD" || key === "NODE_OPTIONS") continue;
    env[key] = value;
  }
  return { ...env, NO_COLOR: "1", npm_config_userconfig: userconfig, ...extra };
}

export interface Output {
  stdout: string;
  stderr: string;
}

/** Runs a command; a failure throws with the command, its exit code and everything it printed. */
export async function sh(
  cwd: string,
  env: NodeJS.ProcessEnv,
  command: string,
  args: readonly string[],
  timeout = 600_000,
): Promise<Output> {
  try {
    const { stdout, stderr } = await execFileAsync(command, args, { cwd, env, timeout, maxBuffer: 64 << 20 });
    return { stdout, stderr };
  } catch (error) {
    const { code, stdout, stderr } = error as { code: unknown; stdout?: string; stderr?: string };
    throw new Error(
      `${command} ${args.join(" ")} (in ${cwd}) exited ${String(code)}:\n${stdout ?? ""}\n${stderr ?? ""}`,
    );
  }
}
