import { execFile, spawn } from "node:child_process";
import { once } from "node:events";
import { existsSync } from "node:fs";
import { mkdir, readFile } from "node:fs/promises";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { promisify } from "node:util";
import { describe } from "vitest";

const run = promisify(execFile);

/** The Go module of this package: pinned upstream versions live in its go.mod. */
export const moduleDir = join(dirname(fileURLToPath(import.meta.url)), "..");

/** `github.com/containerd/nri <version>` as this module's go.mod requires it. */
export async function pinnedNriModule(): Promise<string> {
  const goMod = await readFile(join(moduleDir, "go.mod"), "utf8");
  const version = /^\s*github\.com\/containerd\/nri (v\S+)$/m.exec(goMod)?.[1];
  if (!version) throw new Error("go.mod requires no github.com/containerd/nri");
  return `github.com/containerd/nri ${version}`;
}

/** `NRI_CONFORMANCE=required` (set by CI) turns a missing Go into a failure. */
export const conformanceRequired = process.env.NRI_CONFORMANCE === "required";

async function probeGo(): Promise<string | undefined> {
  try {
    const { stdout } = await run("go", ["version"]);
    return stdout.trim();
  } catch (error) {
    const reason = `Go toolchain not found (${(error as Error).message.split("\n")[0]})`;
    if (conformanceRequired) throw new Error(`${reason}, but NRI_CONFORMANCE=required`);
    console.warn(`conformance: skipping Go tests: ${reason}`);
    return undefined;
  }
}

/** `go version` output, or undefined (with a printed reason) when Go is missing. */
export const goVersion = await probeGo();

/** Like `describe`, but skipped with a printed reason when Go is missing. */
export function describeWithGo(name: string, body: () => void): void {
  (goVersion ? describe : describe.skip)(name, body);
}

const builds = new Map<string, Promise<string>>();

/**
 * Builds `./cmd/<name>` of the conformance module (once per process, using
 * Go's own build cache) and resolves to the path of the binary. A command
 * with a go.mod of its own (a twin whose upstream libraries need other
 * versions than the rest) is built in its own module.
 */
export function goCommand(name: string): Promise<string> {
  let build = builds.get(name);
  if (!build) {
    build = (async () => {
      const bin = join(moduleDir, "bin", name);
      await mkdir(dirname(bin), { recursive: true });
      const dir = join(moduleDir, "cmd", name);
      const own = existsSync(join(dir, "go.mod"));
      await run("go", ["build", "-o", bin, own ? "." : `./cmd/${name}`], { cwd: own ? dir : moduleDir });
      return bin;
    })();
    builds.set(name, build);
  }
  return build;
}

/**
 * Runs a Go program that answers JSON lines with JSON lines (one answer per
 * request, in order), with all the requests in one process.
 */
export async function goJsonLines<T>(bin: string, args: readonly string[], requests: readonly unknown[]): Promise<T[]> {
  const child = spawn(bin, args, { stdio: ["pipe", "pipe", "inherit"] });
  let out = "";
  child.stdout.on("data", (chunk: Buffer) => (out += chunk.toString()));
  for (const request of requests) child.stdin.write(`${JSON.stringify(request)}\n`);
  child.stdin.end();
  const [code] = await once(child, "exit");
  if (code !== 0) throw new Error(`${bin} ${args.join(" ")} exited with ${code}`);
  return out
    .trim()
    .split("\n")
    .filter(Boolean)
    .map((line) => JSON.parse(line) as T);
}
