/**
 * kubectl, as an operator runs it, against the cluster's API server with
 * a kubeconfig of ours (never the machine's: KUBECONFIG and HOME point
 * into the cluster's directory). Failures carry kubectl's stderr.
 */
import { join } from "node:path";
import { CommandError, run, sleep } from "../exec.js";

export class Kubectl {
  constructor(
    readonly binary: string,
    readonly kubeconfig: string,
    /** A directory for kubectl's cache (its HOME). */
    readonly home: string,
  ) {}

  get env(): NodeJS.ProcessEnv {
    return { ...process.env, KUBECONFIG: this.kubeconfig, HOME: this.home, KUBECACHEDIR: join(this.home, "cache") };
  }

  /** Runs kubectl and resolves to its stdout. */
  run(args: readonly string[], options: { input?: string; timeoutMs?: number } = {}): Promise<string> {
    return run(this.binary, args, { env: this.env, input: options.input, timeoutMs: options.timeoutMs ?? 120_000 });
  }

  /** `kubectl <args> -o json`, parsed. */
  async json<T>(args: readonly string[]): Promise<T> {
    return JSON.parse(await this.run([...args, "-o", "json"])) as T;
  }

  /** `kubectl apply -f -` of objects (JSON is YAML). */
  apply(...objects: readonly object[]): Promise<string> {
    return this.run(["apply", "-f", "-"], { input: objects.map((object) => JSON.stringify(object)).join("\n---\n") });
  }

  /**
   * Polls `probe` until it resolves to a value other than undefined or
   * false; a command that fails (a CommandError: kubectl, crictl) counts as
   * not yet, any other error ends the wait at once (a process that exited).
   * Fails after `timeoutMs` with what it waited for and the last error or
   * value.
   */
  async until<T>(what: string, probe: () => Promise<T | undefined | false>, timeoutMs = 120_000): Promise<T> {
    const deadline = Date.now() + timeoutMs;
    let last: unknown;
    for (;;) {
      try {
        const value = await probe();
        if (value !== undefined && value !== false) return value;
        last = value;
      } catch (error) {
        if (!(error instanceof CommandError)) throw error;
        last = error.message;
      }
      if (Date.now() > deadline) {
        throw new Error(`timed out after ${timeoutMs} ms waiting for ${what}; last: ${String(last)}`);
      }
      await sleep(500);
    }
  }
}
