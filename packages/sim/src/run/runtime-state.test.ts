import { ContainerState } from "@nri-ts/api";
import { describe, expect, it } from "vitest";
import { parseScenario } from "../scenario/parse-scenario.js";
import { exitStatus, LifecycleError, SimRuntime } from "./runtime-state.js";

const scenario = parseScenario(`
pods: [{name: web, labels: {app: web}}]
containers:
  - {name: app, pod: web, image: nginx, args: [nginx], env: {A: "1"}, resources: {memory: {limit: 1Gi}}}
steps: [{run-pod: web}]
`);

function runtime() {
  let now = 1000n;
  return { runtime: new SimRuntime(scenario, () => (now += 1000n)), at: () => now };
}

describe("SimRuntime", () => {
  it("fills the status fields as a runtime does: created, started, finished with code, reason and message", () => {
    const { runtime: r, at } = runtime();
    r.runPod("web");
    const c = r.prepareCreate("web/app");
    expect(c.container).toMatchObject({
      state: ContainerState.CONTAINER_CREATED,
      createdAt: at(),
      startedAt: 0n,
      finishedAt: 0n,
      name: "app",
      args: ["nginx"],
      env: ["A=1"],
      image: { name: "nginx" },
      podSandboxId: scenario.pods[0].id,
    });
    r.created(c);
    r.started(c);
    expect(c.container).toMatchObject({ state: ContainerState.CONTAINER_RUNNING, startedAt: at(), pid: 4001 });
    r.exited(c, exitStatus(137, "OOMKilled", "memory limit exceeded"));
    expect(c.container).toMatchObject({
      state: ContainerState.CONTAINER_STOPPED,
      finishedAt: at(),
      exitCode: 137,
      statusReason: "OOMKilled",
      statusMessage: "memory limit exceeded",
    });
  });

  it("says Completed for exit code 0 and Error otherwise, unless told", () => {
    expect(exitStatus()).toEqual({ code: 0, reason: "Completed", message: "" });
    expect(exitStatus(1)).toEqual({ code: 1, reason: "Error", message: "" });
    expect(exitStatus(137, "OOMKilled")).toEqual({ code: 137, reason: "OOMKilled", message: "" });
  });

  it("refuses steps out of lifecycle order", () => {
    const { runtime: r } = runtime();
    expect(() => r.prepareCreate("web/app")).toThrow(
      new LifecycleError('pod "web" is declared; run it before creating containers in it'),
    );
    r.runPod("web");
    expect(() => r.runPod("web")).toThrow('pod "web" is ready; only a declared pod can run');
    expect(() => r.checkStart("web/app")).toThrow(
      'container "web/app" is declared; only a created container can start',
    );
  });

  it("hands Synchronize the existing pods and the created or running containers, as copies", () => {
    const { runtime: r } = runtime();
    expect(r.snapshot()).toEqual({ pods: [], containers: [] });
    r.runPod("web");
    const c = r.prepareCreate("web/app");
    r.created(c);
    const { pods, containers } = r.snapshot();
    expect(pods.map((p) => p.name)).toEqual(["web"]);
    expect(containers.map((x) => x.name)).toEqual(["app"]);
    containers[0].env.push("B=2");
    expect(c.container.env).toEqual(["A=1"]);
    r.started(c);
    r.exited(c, exitStatus());
    expect(r.snapshot().containers).toEqual([]);
  });

  it("gives pods an IP and a network namespace of their own, unless told otherwise or on the host's network", () => {
    const r = new SimRuntime(
      parseScenario(`
pods: [{name: a}, {name: b, ips: [10.1.0.5, "fd00::5"]}, {name: host, hostNetwork: true}, {name: node, hostNetwork: true, ips: [192.168.1.10]}]
steps: [{run-pod: a}, {run-pod: b}, {run-pod: host}, {run-pod: node}]
`),
      () => 1n,
    );
    for (const name of ["a", "b", "host", "node"]) r.runPod(name);
    const network = (ns: { type: string; path: string }[] | undefined) =>
      ns?.filter((n) => n.type === "network").map((n) => n.path);
    expect(r.snapshot().pods.map((p) => [p.name, p.ips, network(p.linux?.namespaces)])).toEqual([
      ["a", ["10.88.0.2"], [expect.stringMatching(/^\/var\/run\/netns\/cni-/)]],
      ["b", ["10.1.0.5", "fd00::5"], [expect.stringMatching(/^\/var\/run\/netns\/cni-/)]],
      ["host", [], []],
      ["node", ["192.168.1.10"], []],
    ]);
  });
});
