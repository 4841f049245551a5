/**
 * The three stories of the discussion that started containerd's container
 * status fields (the README's "Three stories"), end to end through the
 * reporter: the runtime's end of a container in, the Event on the pod
 * out (an API server in memory).
 */
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { Container, ContainerState, PodSandbox } from "@nri-ts/api";
import { afterEach, describe, expect, it } from "vitest";
import { connectExitReporter } from "./client.js";
import { decodeConfig } from "./config.js";
import { KubernetesOutput } from "./outputs/kubernetes/kubernetes-output.js";
import { ExitReporter } from "./reporter.js";
import { MemoryKubeApi, outputOptions } from "./testing/memory-kube-api.js";

const S = 1_000_000_000n;
const PATH = "PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin";

let closing: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const close of closing.reverse()) await close();
  closing = [];
});

/** A reporter whose records also go to an API server in memory, as Events on their pods. */
async function reporterWithEvents(config: string) {
  const api = new MemoryKubeApi();
  const kubernetes = new KubernetesOutput(outputOptions(api));
  const reporter = new ExitReporter({ outputs: [kubernetes] });
  await reporter.configure(decodeConfig(`jsonLines: false\noom: {check: false}\n${config}`));
  closing.push(() => reporter.close());
  /** The Event on `pod`'s container `name`, once the output sent it. */
  const event = async (pod: string, name: string) => {
    await expect
      .poll(() => api.eventsOf(pod).find((e) => e.regarding.fieldPath === `spec.containers{${name}}`))
      .toBeDefined();
    return api.eventsOf(pod).find((e) => e.regarding.fieldPath === `spec.containers{${name}}`);
  };
  return { reporter, event };
}

function pod(name: string): PodSandbox {
  return PodSandbox.fromPartial({ id: `sandbox-${name}`, namespace: "jobs", name, uid: `uid-${name}` });
}

function ended(id: string, name: string, args: string[], exitCode: number, fields: Partial<Container> = {}) {
  return Container.fromPartial({
    id,
    name,
    args,
    env: [PATH],
    state: ContainerState.CONTAINER_STOPPED,
    createdAt: 9n * S,
    startedAt: 10n * S,
    finishedAt: 12n * S,
    exitCode,
    ...fields,
  });
}

describe("story 1: code 127, explained with the command found in PATH or not", () => {
  it("a name was looked for in the container's PATH, and the Event says which PATH", async () => {
    const { reporter, event } = await reporterWithEvents("grpc: false\n");
    await reporter.containerEnded(
      "StopContainer",
      pod("migrate"),
      ended("c1", "app", ["sh", "-c", "migrate-db --all"], 127),
    );
    expect(await event("migrate", "app")).toMatchObject({
      type: "Warning",
      reason: "Error",
      note: "exited with code 127 (command not found): the container couldn't find the command migrate-db (the first of its script) in its PATH (/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin); command: sh -c 'migrate-db --all'; ran for 2s",
    });
  });

  it("a path was not looked for in PATH at all, and the Event says so", async () => {
    const { reporter, event } = await reporterWithEvents("grpc: false\n");
    await reporter.containerEnded(
      "StopContainer",
      pod("runner"),
      ended("c2", "app", ["sh", "-c", "/opt/app/run"], 127),
    );
    expect((await event("runner", "app"))?.note).toBe(
      "exited with code 127 (command not found): there is no /opt/app/run in the container (the first of its script) (a path: PATH is not searched); command: sh -c /opt/app/run; ran for 2s",
    );
  });
});

describe("story 2: a setup step another plugin does fails, and its cause reaches the pod's events", () => {
  it("AttachCause over gRPC before the kill: the Event has the plugin's reason and words, not a bare 137", async () => {
    const dir = await mkdtemp(join(tmpdir(), "exit-stories-"));
    closing.push(() => rm(dir, { recursive: true, force: true }));
    const socket = join(dir, "exits.sock");
    const { reporter, event } = await reporterWithEvents(`grpc: {listen: ${socket}}\n`);
    const { client, close } = connectExitReporter(socket);
    try {
      await client.attachCause({
        containerId: "c3",
        declaredBy: "10-gpu-setup",
        reason: "SetupFailed",
        message: "failed to start a user-defined container: the GPU driver did not load",
      });
    } finally {
      close();
    }
    await reporter.containerEnded("StopContainer", pod("trainer"), ended("c3", "app", ["python", "train.py"], 137));
    expect(await event("trainer", "app")).toMatchObject({
      type: "Warning",
      reason: "SetupFailed",
      note: "stopped by plugin 10-gpu-setup: failed to start a user-defined container: the GPU driver did not load (exit 137, SIGKILL); ran for 2s",
    });
  });
});

describe("story 3: a tini-wrapped entrypoint shows the wrapper only when the failure is the wrapper's own", () => {
  const config = 'grpc: false\ncommandWrappers: ["tini ... --"]\n';

  it("the user's command failing under tini: the Event quotes the user's command, not tini", async () => {
    const { reporter, event } = await reporterWithEvents(config);
    await reporter.containerEnded(
      "StopContainer",
      pod("api"),
      ended("c4", "app", ["/sbin/tini", "-g", "--", "serve-api", "--port", "8080"], 127),
    );
    const { note } = (await event("api", "app"))!;
    expect(note).toBe(
      "exited with code 127 (command not found): the container couldn't find the command serve-api in its PATH (/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin); command: serve-api --port 8080; ran for 2s",
    );
    expect(note).not.toContain("tini");
  });

  it("tini itself failing (the runtime cannot start it): the Event quotes the whole line, tini included", async () => {
    const { reporter, event } = await reporterWithEvents(config);
    await reporter.containerEnded(
      "StopContainer",
      pod("worker"),
      ended("c5", "app", ["/sbin/tini", "-g", "--", "serve-api"], 128, {
        startedAt: 0n,
        statusReason: "StartError",
        statusMessage: 'exec: "/sbin/tini": stat /sbin/tini: no such file or directory',
      }),
    );
    expect(await event("worker", "app")).toMatchObject({
      type: "Warning",
      reason: "StartError",
      note: expect.stringMatching(
        /stat \/sbin\/tini: no such file or directory.*; command: \/sbin\/tini -g -- serve-api$/,
      ),
    });
  });
});
