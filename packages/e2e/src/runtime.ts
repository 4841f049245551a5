/**
 * A private containerd with NRI, all of it below one short directory of
 * `/tmp/nri-e2e`: the unit every check runs against.
 *
 * ```ts
 * let runtime: Runtime;
 * beforeAll(async () => {
 *   runtime = await Runtime.start({ label: "my-plugin" });
 *   await runtime.startPlugin(nodePlugin("my-plugin", "plugins/my-plugin", ["-idx", "10", "-socket-path", runtime.layout.nriSocket]));
 * });
 * afterAll(() => runtime?.teardown());
 * ```
 *
 * Teardown is synchronous and also runs from an exit handler, so a failing
 * or interrupted test file leaves nothing behind; what a killed process
 * leaves is swept by the next run's global setup.
 */
import { mkdirSync, mkdtempSync, writeFileSync } from "node:fs";
import { basename, join } from "node:path";
import { containerdConfig, crictlConfig, type NriSettings, type RuntimeLayout, runtimeLayout } from "./config.js";
import { Containerd } from "./containerd.js";
import { e2eContext } from "./context.js";
import { Crictl } from "./cri.js";
import { run } from "./exec.js";
import { scratchRoot } from "./paths.js";
import { Pod, type PodHost, type PodResult, type PodSpec, runPod } from "./pod.js";
import {
  ExternalPlugin,
  installPlugin,
  type PluginCommand,
  type PreinstalledPlugin,
  waitPreinstalled,
} from "./plugins.js";
import { startTime } from "./procs.js";
import { RUNTIME_PREFIX, sweepRuntime, writeRunRecord } from "./sweep.js";
import { recordPhase, timed } from "./timings.js";
import { type ContainerdLine, NEWEST } from "./versions.js";

export interface RuntimeOptions {
  /** Names the runtime in timings, pod names and logs. */
  label: string;
  /** Default the newest line. */
  line?: ContainerdLine;
  /** Plugins containerd starts from its plugin directory. */
  preinstalled?: readonly PreinstalledPlugin[];
  nri?: NriSettings;
}

export class Runtime implements PodHost {
  readonly crictl: Crictl;
  readonly containerd: Containerd;
  readonly podDir: string;
  readonly cgroupParent: string;
  #names = 0;
  #pods = { count: 0, ms: 0 };
  #torn = false;
  readonly #onExit = () => this.teardown();

  private constructor(
    readonly label: string,
    readonly line: ContainerdLine,
    readonly layout: RuntimeLayout,
    readonly preinstalled: readonly PreinstalledPlugin[],
  ) {
    const { toolset } = e2eContext();
    this.crictl = new Crictl(toolset.crictl, layout.crictlConfig, join(layout.base, "specs"));
    this.containerd = new Containerd(toolset.containerd[line.version], layout, toolset.crictl);
    this.podDir = join(layout.base, "pods");
    this.cgroupParent = `/nri-e2e-${basename(layout.base)}`;
  }

  /** Lays out the runtime, starts containerd, imports the images and waits for pre-installed plugins. */
  static async start(options: RuntimeOptions): Promise<Runtime> {
    const { toolset, images } = e2eContext();
    const line = options.line ?? NEWEST;
    const label = `${options.label} ${line.version}`;
    mkdirSync(scratchRoot, { recursive: true });
    const layout = runtimeLayout(mkdtempSync(join(scratchRoot, RUNTIME_PREFIX)));
    const runtime = new Runtime(label, line, layout, options.preinstalled ?? []);
    writeRunRecord(layout.base, {
      owner: { pid: process.pid, start: startTime(process.pid) ?? "" },
      containerdBin: toolset.containerd[line.version],
      crictl: toolset.crictl,
      cgroupParent: runtime.cgroupParent,
    });
    process.on("exit", runtime.#onExit);
    try {
      mkdirSync(join(layout.base, "etc"));
      writeFileSync(layout.config, containerdConfig(line, layout, toolset.runc, options.nri));
      writeFileSync(layout.crictlConfig, crictlConfig(layout));
      for (const plugin of runtime.preinstalled) installPlugin(layout, plugin);
      await timed(`${label}: start containerd`, () => runtime.containerd.start());
      await timed(`${label}: import images`, () =>
        Promise.all(images.map((image) => runtime.importImage(image.archive))),
      );
      if (runtime.preinstalled.length > 0) {
        await timed(`${label}: pre-installed plugins ready`, () => runtime.waitPreinstalled());
      }
    } catch (error) {
      runtime.teardown();
      throw error;
    }
    return runtime;
  }

  /** `ctr images import` into CRI's namespace. */
  async importImage(archive: string): Promise<void> {
    await run(join(this.containerd.binDir, "ctr"), [
      "-a",
      this.layout.socket,
      "-n",
      "k8s.io",
      "images",
      "import",
      archive,
    ]);
  }

  private waitPreinstalled(from = 0): Promise<void[]> {
    return Promise.all(this.preinstalled.map((plugin) => waitPreinstalled(this.containerd, plugin, from)));
  }

  uniqueName(prefix: string): string {
    return `${prefix}-${++this.#names}`;
  }

  /** Starts an external plugin and waits until containerd has synchronized it. */
  startPlugin(program: PluginCommand): Promise<ExternalPlugin> {
    return timed(`${this.label}: plugin ${program.label} ready`, () =>
      ExternalPlugin.start(this.layout, this.containerd, program),
    );
  }

  /** Runs a pod to its end (see `runPod` in pod.ts). */
  runPod(spec: PodSpec): Promise<PodResult> {
    return runPod(this, spec);
  }

  podRemoved(ms: number): void {
    this.#pods.count++;
    this.#pods.ms += ms;
  }

  /** A pod to drive step by step (create, start, stop containers yourself; `remove()` at the end). */
  pod(spec: Omit<PodSpec, "containers"> = {}): Promise<Pod> {
    return Pod.run(this, { ...spec, containers: [] });
  }

  /**
   * Stops containerd and starts it again on the same state (pods and plugins
   * stay); resolves to the log mark of the new start, after which
   * reconnecting plugins register again.
   */
  async restartContainerd(): Promise<number> {
    return timed(`${this.label}: restart containerd`, async () => {
      this.containerd.stop();
      const mark = this.containerd.log.mark();
      await this.containerd.start();
      await this.waitPreinstalled(mark);
      return mark;
    });
  }

  /** Removes every pod, stops plugins and containerd, cleans mounts and cgroups, deletes the directory. */
  teardown(): void {
    if (this.#torn) return;
    this.#torn = true;
    process.off("exit", this.#onExit);
    const start = performance.now();
    sweepRuntime(this.layout.base);
    if (this.#pods.count > 0) {
      recordPhase(`${this.label}: ${this.#pods.count} pods`, this.#pods.ms);
    }
    recordPhase(`${this.label}: teardown`, performance.now() - start);
  }
}
