/**
 * crictl against one runtime: pod and container configs are written as
 * JSON files below `<base>/specs`, ids come from stdout (crictl and ctr
 * print warnings on stderr, e.g. about cgroup v1 and cgroup_parent). A
 * failure is a {@link CommandError} whose message holds crictl's stderr:
 * what a user of crictl would read.
 */
import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { run } from "./exec.js";

/** `crictl inspect` output, the parts the suite reads. */
export interface ContainerInspect {
  status: {
    id: string;
    state: string;
    exitCode?: number;
    reason?: string;
    message?: string;
    createdAt?: string;
    startedAt?: string;
    finishedAt?: string;
    annotations?: Record<string, string>;
  };
  info?: {
    pid?: number;
    runtimeSpec?: {
      annotations?: Record<string, string>;
      process?: { env?: string[]; rlimits?: { type: string; hard: number; soft: number }[] };
      mounts?: { destination: string; source?: string; type?: string; options?: string[] }[];
      linux?: { cgroupsPath?: string };
    };
  };
}

export class Crictl {
  #specs = 0;

  constructor(
    readonly binary: string,
    readonly configFile: string,
    readonly specDir: string,
  ) {}

  /** Runs `crictl <args>` and resolves to its trimmed stdout. */
  async run(...args: string[]): Promise<string> {
    return (await run(this.binary, ["-c", this.configFile, ...args], { timeoutMs: 60_000 })).trim();
  }

  /** Writes a config as JSON and returns its path. */
  spec(name: string, config: unknown): string {
    mkdirSync(this.specDir, { recursive: true });
    const file = join(this.specDir, `${String(++this.#specs).padStart(3, "0")}-${name}.json`);
    writeFileSync(file, JSON.stringify(config, null, 2));
    return file;
  }

  runPodSandbox(podFile: string): Promise<string> {
    return this.run("runp", podFile);
  }

  createContainer(podId: string, containerFile: string, podFile: string): Promise<string> {
    return this.run("create", "--no-pull", podId, containerFile, podFile);
  }

  async inspect(id: string): Promise<ContainerInspect> {
    return JSON.parse(await this.run("inspect", "-o", "json", id)) as ContainerInspect;
  }
}
