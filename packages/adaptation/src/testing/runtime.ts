import { mkdir, mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { setTimeout as sleep } from "node:timers/promises";
import {
  Container,
  type ContainerEviction,
  type ContainerUpdate,
  CreateContainerRequest,
  type DeepPartial,
  PodSandbox,
} from "@nri-ts/api";
import { Adaptation, type AdaptationOptions } from "../adaptation.js";
import { ScriptedPlugin, type ScriptedPluginOptions } from "./scripted-plugin.js";

/** A log line the adaptation wrote. */
export interface LogLine {
  level: "debug" | "info" | "warn" | "error";
  message: string;
  fields: Record<string, unknown> | undefined;
}

/**
 * A runtime for tests: an Adaptation in a fresh directory (socket, plugin
 * and config directories), with pods and containers to synchronize plugins
 * with, and a record of the updates it was asked to apply.
 */
export class TestRuntime {
  readonly adaptation: Adaptation;
  readonly socketPath: string;
  readonly pluginPath: string;
  readonly configPath: string;
  pods: PodSandbox[] = [];
  containers: Container[] = [];
  /** Reject every synchronization after handing the state over (the plugins see it, then get refused). */
  failSync = false;
  /** What each synchronization's plugins asked for. */
  readonly syncUpdates: ContainerUpdate[][] = [];
  /** What plugins asked for on their own. */
  readonly unsolicited: Array<{ updates: ContainerUpdate[]; plugin: string; evictions: ContainerEviction[] }> = [];
  /** What the runtime answers unsolicited updates with: the failed ones, or a rejection. */
  answerUpdates: (updates: ContainerUpdate[]) => Promise<ContainerUpdate[]> = async () => [];
  readonly log: LogLine[] = [];
  readonly #dir: string;
  readonly #plugins: ScriptedPlugin[] = [];

  private constructor(dir: string, options: AdaptationOptions) {
    this.#dir = dir;
    this.socketPath = join(dir, "run", "nri.sock");
    this.pluginPath = join(dir, "opt", "nri", "plugins");
    this.configPath = join(dir, "etc", "nri", "conf.d");
    const record =
      (level: LogLine["level"]) =>
      (first: object | string, message?: string): void => {
        if (typeof first === "string") this.log.push({ level, message: first, fields: undefined });
        else this.log.push({ level, message: message ?? "", fields: first as Record<string, unknown> });
      };
    this.adaptation = new Adaptation(
      "test-runtime",
      "0.0.1",
      async (synchronize) => {
        this.syncUpdates.push(await synchronize(this.pods, this.containers));
        if (this.failSync) throw new Error("synchronization refused by the test runtime");
      },
      async (updates, origin) => {
        this.unsolicited.push({ updates, ...origin });
        return this.answerUpdates(updates);
      },
      {
        socketPath: this.socketPath,
        pluginPath: this.pluginPath,
        pluginConfigPath: this.configPath,
        logger: { debug: record("debug"), info: record("info"), warn: record("warn"), error: record("error") },
        ...options,
      },
    );
  }

  /** A runtime in a fresh temporary directory (with empty plugin and config directories). */
  static async create(options: AdaptationOptions = {}): Promise<TestRuntime> {
    const dir = await mkdtemp(join(tmpdir(), "nri-adaptation-"));
    const runtime = new TestRuntime(dir, options);
    await mkdir(runtime.pluginPath, { recursive: true });
    await mkdir(runtime.configPath, { recursive: true });
    return runtime;
  }

  /** The temporary directory everything lives in. */
  get dir(): string {
    return this.#dir;
  }

  /** Connects a scripted plugin to the socket (closed again by `close()`). */
  async connect(options: ScriptedPluginOptions): Promise<ScriptedPlugin> {
    const plugin = await ScriptedPlugin.connect(this.socketPath, options);
    this.#plugins.push(plugin);
    return plugin;
  }

  /** Connects a scripted plugin and waits until the adaptation has taken it on. */
  async attach(options: ScriptedPluginOptions): Promise<ScriptedPlugin> {
    const plugin = await this.connect(options);
    await this.waitFor(() => this.adaptation.plugins.some((p) => p.fullName === `${options.index}-${options.name}`));
    return plugin;
  }

  /** Waits (polling) until `condition` holds; the test's own timeout ends a wait that never succeeds. */
  async waitFor(condition: () => boolean): Promise<void> {
    while (!condition()) await sleep(2);
  }

  /** The names of the active plugins, in invocation order. */
  get pluginNames(): string[] {
    return this.adaptation.plugins.map((plugin) => plugin.fullName);
  }

  /** Stops the adaptation, drops every scripted plugin, removes the directory. */
  async close(): Promise<void> {
    await this.adaptation.stop();
    for (const plugin of this.#plugins) plugin.close();
    await rm(this.#dir, { recursive: true, force: true });
  }
}

/** A pod with the given id (and name). */
export function pod(id: string, fields: DeepPartial<PodSandbox> = {}): PodSandbox {
  return PodSandbox.fromPartial({ id, name: id, uid: `uid-${id}`, namespace: "default", ...fields });
}

/** A container of a pod with the given id (and name). */
export function container(id: string, podId: string, fields: DeepPartial<Container> = {}): Container {
  return Container.fromPartial({ id, podSandboxId: podId, name: id, ...fields });
}

/** A CreateContainer request for a new container. */
export function createRequest(podId: string, containerId: string): CreateContainerRequest {
  return CreateContainerRequest.fromPartial({ pod: pod(podId), container: container(containerId, podId) });
}
