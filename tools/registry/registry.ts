/**
 * A registry of our own for the release test: Verdaccio, installed from
 * tools/registry/verdaccio/package-lock.json into a cache outside the
 * checkout (one directory per lock, like the pinned Node.js lines), started
 * on a free loopback port with its storage in the test's directory.
 *
 * Our scope never leaves it: `@nri-ts/*` has no uplink, so a name we did not
 * publish here is a 404, whatever npmjs.org holds. Every other package is
 * proxied from the registry this machine's npm uses, as a user's install
 * gets it; the log records each request Verdaccio makes upstream, and the
 * tests read it to prove that none was for our scope.
 */
import { type ChildProcess, spawn } from "node:child_process";
import { createHash } from "node:crypto";
import {
  copyFileSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readFileSync,
  renameSync,
  rmSync,
  writeFileSync,
} from "node:fs";
import { homedir } from "node:os";
import { join } from "node:path";
import { createInterface } from "node:readline";
import { fileURLToPath } from "node:url";
import { npmEnv, sh } from "./npm-env.js";

const HERE = fileURLToPath(new URL(".", import.meta.url));
const RECIPE = join(HERE, "verdaccio");
/** Verdaccio 6.10 needs Node.js 22. */
const NODE_MAJOR = 22;

export interface Registry {
  /** `http://127.0.0.1:<port>/` */
  url: string;
  /** An npm user configuration that points at the registry (a user's). */
  userconfig: string;
  /** The same with a publisher's token (a maintainer's, after `npm login`). */
  publisherConfig: string;
  /** Verdaccio's log, JSON lines at level `http`. */
  log: string;
  /** The upstream registry for everything outside our scope. */
  upstream: string;
  stop(): Promise<void>;
}

function cacheRoot(): string {
  if (process.env.NRI_REGISTRY_CACHE) return process.env.NRI_REGISTRY_CACHE;
  return join(process.env.XDG_CACHE_HOME || join(homedir(), ".cache"), "nri-ts-registry");
}

/** This machine's npm user configuration (for what comes from the real registry). */
function ownUserconfig(): string {
  return process.env.npm_config_userconfig ?? join(homedir(), ".npmrc");
}

/** Verdaccio installed from the recipe's lock, once per lock; resolves to its directory. */
export async function installVerdaccio(): Promise<string> {
  const lock = readFileSync(join(RECIPE, "package-lock.json"));
  const key = createHash("sha256").update(lock).digest("hex").slice(0, 16);
  const root = cacheRoot();
  const final = join(root, `verdaccio-${key}`);
  if (existsSync(join(final, "node_modules", "verdaccio", "package.json"))) return final;
  mkdirSync(root, { recursive: true });
  const work = mkdtempSync(join(root, ".install-"));
  try {
    for (const file of ["package.json", "package-lock.json"]) copyFileSync(join(RECIPE, file), join(work, file));
    // From the registry this machine's npm uses, with the user's own configuration (not the test's).
    await sh(work, npmEnv(ownUserconfig()), "npm", ["ci", "--omit=dev", "--ignore-scripts", "--no-audit", "--no-fund"]);
    try {
      renameSync(work, final);
    } catch (error) {
      // another run put the same recipe in place meanwhile: keep theirs
      if (!existsSync(join(final, "node_modules", "verdaccio", "package.json"))) throw error;
    }
  } finally {
    rmSync(work, { recursive: true, force: true });
  }
  return final;
}

function config(work: string, upstream: string): string {
  const storage = join(work, "storage");
  mkdirSync(storage, { recursive: true });
  return `storage: ${JSON.stringify(storage)}
auth:
  htpasswd:
    file: ${JSON.stringify(join(work, "htpasswd"))}
    max_users: 1
uplinks:
  upstream:
    url: ${JSON.stringify(upstream)}
    timeout: 60s
    max_fails: 5
packages:
  "@nri-ts/*":
    access: $all
    publish: $authenticated
    unpublish: $authenticated
  "**":
    access: $all
    proxy: upstream
max_body_size: 200mb
web:
  enable: false
server:
  keepAliveTimeout: 60
log:
  type: file
  path: ${JSON.stringify(join(work, "verdaccio.log"))}
  format: json
  level: http
`;
}

/** The port from the launcher's first line, or its exit. */
function listening(child: ChildProcess): Promise<number> {
  return new Promise((resolve, reject) => {
    let stderr = "";
    child.stderr?.on("data", (chunk: Buffer) => {
      stderr += chunk.toString();
    });
    const lines = createInterface({ input: child.stdout! });
    lines.once("line", (line) => resolve((JSON.parse(line) as { port: number }).port));
    child.once("exit", (code, signal) =>
      reject(new Error(`verdaccio exited (${code ?? signal}) before listening:\n${stderr}`)),
    );
  });
}

/** The token of a new user, as `npm adduser` gets it. */
async function addUser(url: string): Promise<string> {
  const name = "release-test";
  const response = await fetch(new URL(`-/user/org.couchdb.user:${name}`, url), {
    method: "PUT",
    headers: { "content-type": "application/json" },
    body: JSON.stringify({ name, password: `pw-${process.pid}-${Date.now()}`, type: "user", roles: [] }),
  });
  const body = (await response.json()) as { token?: string; error?: string };
  if (!response.ok || !body.token)
    throw new Error(`verdaccio: adding a user failed: ${response.status} ${JSON.stringify(body)}`);
  return body.token;
}

/** Starts Verdaccio with its storage, log and npm configurations in `work`. */
export async function startRegistry(work: string): Promise<Registry> {
  const major = Number(process.versions.node.split(".")[0]);
  if (major < NODE_MAJOR)
    throw new Error(
      `the registry test needs Node.js ${NODE_MAJOR} or newer (Verdaccio 6.10's engines); this is ${process.version}`,
    );
  mkdirSync(work, { recursive: true });
  const upstream = (await sh(work, npmEnv(ownUserconfig()), "npm", ["config", "get", "registry"])).stdout.trim();
  const dir = await installVerdaccio();
  const configFile = join(work, "verdaccio.yaml");
  writeFileSync(configFile, config(work, upstream));
  const child = spawn(process.execPath, [join(HERE, "serve.mjs"), dir, configFile], {
    cwd: work,
    stdio: ["pipe", "pipe", "pipe"],
    env: npmEnv(join(work, "none.npmrc")),
  });
  const port = await listening(child);
  const url = `http://127.0.0.1:${port}/`;
  const userconfig = join(work, "user.npmrc");
  writeFileSync(userconfig, `registry=${url}\n`);
  const publisherConfig = join(work, "publisher.npmrc");
  const token = await addUser(url);
  writeFileSync(publisherConfig, `registry=${url}\n//127.0.0.1:${port}/:_authToken=${token}\n`);
  return {
    url,
    userconfig,
    publisherConfig,
    log: join(work, "verdaccio.log"),
    upstream,
    stop: () =>
      new Promise((resolve) => {
        if (child.exitCode !== null) return resolve();
        child.once("exit", () => resolve());
        child.stdin?.end();
      }),
  };
}

/** The packument of `name` on the registry, or undefined for a 404. */
export async function packument(
  registry: Pick<Registry, "url">,
  name: string,
): Promise<
  { versions: Record<string, { dist: { tarball: string } }>; "dist-tags": Record<string, string> } | undefined
> {
  const response = await fetch(new URL(name.replace("/", "%2f"), registry.url));
  if (response.status === 404) return undefined;
  if (!response.ok) throw new Error(`GET ${name}: ${response.status} ${await response.text()}`);
  return (await response.json()) as never;
}

/** The package names Verdaccio asked its uplink for, from its log. */
export function upstreamRequests(registry: Pick<Registry, "log" | "upstream">): string[] {
  if (!existsSync(registry.log)) return [];
  return readFileSync(registry.log, "utf8")
    .split("\n")
    .filter((line) => line.includes(registry.upstream.replace(/\/$/, "")))
    .map((line) => (JSON.parse(line) as { msg?: string }).msg ?? line);
}
