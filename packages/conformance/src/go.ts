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

/** The NRI versions of the modules under older/: the same programs built against them. */
export type OlderNri = "v0.12.2" | "v0.12.3";

/**
 * Builds `./cmd/<name>` of the conformance module (once per process, using
 * Go's own build cache) and resolves to the path of the binary. A command
 * with a go.mod of its own (a twin whose upstream libraries need other
 * versions than the rest) is built in its own module. With an NRI version,
 * it is built in older/nri-<version>, against that NRI (with the
 * `nri_before_policies` build tag). With `wasm`, it is built as a WASM
 * plugin is (`GOOS=wasip1 GOARCH=wasm go build -buildmode=c-shared`), into
 * `bin/<name>.wasm`.
 */
export function goCommand(name: string, variant?: OlderNri | "wasm"): Promise<string> {
  const key = variant ? `${variant}/${name}` : name;
  let build = builds.get(key);
  if (!build) {
    build = (async () => {
      const bin = join(moduleDir, "bin", variant === "wasm" ? `${name}.wasm` : key);
      await mkdir(dirname(bin), { recursive: true });
      if (variant && variant !== "wasm") {
        const older = join(moduleDir, "older", `nri-${variant}`);
        const path = `github.com/nri-ts/nri-ts/packages/conformance/cmd/${name}`;
        await run("go", ["build", "-tags", "nri_before_policies", "-o", bin, path], { cwd: older });
        return bin;
      }
      const dir = join(moduleDir, "cmd", name);
      const own = existsSync(join(dir, "go.mod"));
      const wasm = variant === "wasm";
      await run("go", ["build", ...(wasm ? ["-buildmode=c-shared"] : []), "-o", bin, own ? "." : `./cmd/${name}`], {
        cwd: own ? dir : moduleDir,
        env: wasm ? { ...process.env, GOOS: "wasip1", GOARCH: "wasm" } : process.env,
      });
      return bin;
    })();
    builds.set(key, build);
  }
  return build;
}

/** Runs a Go program with `input` on its stdin and resolves to its stdout; fails with its stderr. */
export function runWithInput(bin: string, args: readonly string[], input: string): Promise<string> {
  return new Promise((resolve, reject) => {
    const child = execFile(bin, args, { maxBuffer: 64 << 20 }, (error, stdout, stderr) => {
      if (error) reject(new Error(`${bin} ${args.join(" ")} failed: ${stderr || error.message}`));
      else resolve(stdout);
    });
    child.stdin?.end(input);
  });
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
  // "close", not "exit": by then every line of its stdout has been read
  const [code] = await once(child, "close");
  if (code !== 0) throw new Error(`${bin} ${args.join(" ")} exited with ${code}`);
  return out
    .trim()
    .split("\n")
    .filter(Boolean)
    .map((line) => JSON.parse(line) as T);
}
