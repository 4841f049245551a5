/**
 * A plugin as one executable file (`npm run sea`: Node's single executable
 * applications), installed in containerd's `plugin_path` as the file itself
 * and started by containerd, as a Go plugin binary is: the ulimit-adjuster,
 * whose rlimits reach the annotated container. The process is that file
 * and the shared libraries it links, nothing else: no `node`, nothing of a
 * `node_modules` (containerd gives it no PATH to find one anyway).
 */
import { readdirSync, readFileSync, readlinkSync, realpathSync, statSync } from "node:fs";
import { join } from "node:path";
import { buildPluginSeas } from "@nri-ts/tools/sea";
import { afterAll, beforeAll, expect, it } from "vitest";
import { describeE2E } from "./context.js";
import { run } from "./exec.js";
import { observed, observing } from "./observe.js";
import { cacheDir } from "./paths.js";
import { Runtime } from "./runtime.js";

/** The processes whose executable is `file`. */
function processesOf(file: string): number[] {
  return readdirSync("/proc")
    .filter((entry) => /^\d+$/.test(entry))
    .filter((pid) => {
      try {
        return readlinkSync(`/proc/${pid}/exe`) === file;
      } catch {
        return false; // gone, or a kernel thread
      }
    })
    .map(Number);
}

/** The files a process has mapped (its executable, the libraries it loaded, anything it mmapped). */
function mappedFiles(pid: number): string[] {
  const files = readFileSync(`/proc/${pid}/maps`, "utf8")
    .split("\n")
    .map((line) => line.split(/\s+/)[5] ?? "")
    .filter((path) => path.startsWith("/"));
  return [...new Set(files)].sort();
}

describeE2E("a single-executable plugin", () => {
  let runtime: Runtime;
  let executable: string;
  let installed: string;

  beforeAll(async () => {
    // built from the workspace's dist/ by the pinned Node.js 26, kept in the cache while the bundle is the same
    const built = await buildPluginSeas(["ulimit-adjuster"], join(cacheDir, "sea"));
    executable = built["nri-ulimit-adjuster"]!;
    runtime = await Runtime.start({
      label: "sea",
      preinstalled: [
        {
          index: "20",
          name: "ulimit-adjuster",
          executable: true,
          program: { label: "sea-ulimit-adjuster", command: executable, args: [] },
        },
      ],
    });
    installed = join(runtime.layout.pluginPath, "20-ulimit-adjuster");
  }, 600_000); // the first build of the executable writes 150 MB
  afterAll(() => runtime?.teardown());

  it("adjusts the pod its annotation names", async () => {
    const pod = await runtime.runPod({
      annotations: { "ulimits.noderesource.dev/container.app": "- {type: RLIMIT_NOFILE, soft: 1536, hard: 3072}" },
      containers: [
        { name: "app", ...observing() },
        { name: "plain", ...observing() },
      ],
    });
    expect(observed(pod.containers.app).limits["Max open files"]).toEqual({ soft: "1536", hard: "3072" });
    expect(observed(pod.containers.plain).limits["Max open files"]).not.toEqual({ soft: "1536", hard: "3072" });
  });

  it("runs as the file containerd started, with the shared libraries ldd lists and nothing else", async () => {
    const [pid, ...others] = processesOf(installed);
    expect(pid, `no process runs ${installed}`).toBeDefined();
    expect(others).toEqual([]);
    const libraries = (await run("ldd", [installed]))
      .split("\n")
      .map((line) => /(\/\S+)\s+\(0x/.exec(line)?.[1])
      .filter((path): path is string => path !== undefined);
    // ldd names a library by the path it found, the process maps the file its symlinks lead to
    const allowed = new Set([installed, ...libraries.flatMap((path) => [path, realpathSync(path)])]);
    expect(mappedFiles(pid!).filter((file) => !allowed.has(file))).toEqual([]);
    const environment = readFileSync(`/proc/${pid}/environ`, "utf8").split("\0").filter(Boolean);
    expect(environment.filter((entry) => entry.startsWith("PATH="))).toEqual([]);
    const status = readFileSync(`/proc/${pid}/status`, "utf8");
    console.log(
      `the single executable: ${(statSync(executable).size / 2 ** 20).toFixed(1)} MiB, ` +
        `libraries ${libraries.join(" ")}; under containerd ${/^VmRSS:\s+(.*)$/m.exec(status)?.[1]} resident`,
    );
  });
});
