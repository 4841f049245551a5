import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { decodeConfig, type ExitReporterConfigError } from "../../config.js";
import { ExitReporter } from "../../reporter.js";
import { loadKubeConfig } from "./client-api.js";
import { DEFAULT_KUBERNETES } from "./kubernetes-config.js";

const work = mkdtempSync(join(tmpdir(), "exit-reporter-k8s-"));
afterAll(() => rmSync(work, { recursive: true, force: true }));

describe("the kubernetes section", () => {
  it("is off unless given; `true` gives the defaults", () => {
    expect(decodeConfig("").kubernetes).toBe(false);
    expect(decodeConfig("kubernetes: true").kubernetes).toEqual(DEFAULT_KUBERNETES);
    expect(DEFAULT_KUBERNETES).toEqual({
      kubeconfig: "",
      node: "",
      events: "nonZero",
      podAnnotations: false,
      oomFromPodStatus: true,
      queue: { maxEvents: 1000, maxBytes: 1048576 },
      rateLimit: { perPod: { burst: 25, refillSeconds: 300 }, overall: { burst: 100, refillSeconds: 0.1 } },
    });
  });

  it("reads every setting", () => {
    expect(
      decodeConfig(`kubernetes:
  kubeconfig: /etc/reporter/kubeconfig
  node: node-7
  events: all
  podAnnotations: true
  oomFromPodStatus: false
  queue: {maxEvents: 50, maxBytes: 65536}
  rateLimit: {perPod: {burst: 5, refillSeconds: 60}, overall: {burst: 20, refillSeconds: 1}}
`).kubernetes,
    ).toEqual({
      kubeconfig: "/etc/reporter/kubeconfig",
      node: "node-7",
      events: "all",
      podAnnotations: true,
      oomFromPodStatus: false,
      queue: { maxEvents: 50, maxBytes: 65536 },
      rateLimit: { perPod: { burst: 5, refillSeconds: 60 }, overall: { burst: 20, refillSeconds: 1 } },
    });
  });

  it("names each mistake", () => {
    let error: ExitReporterConfigError | undefined;
    try {
      decodeConfig(`kubernetes:
  events: some
  queue: {maxEvents: 0}
  rateLimit: {perPod: {refillSeconds: -1}}
  token: abc
`);
    } catch (caught) {
      error = caught as ExitReporterConfigError;
    }
    expect(error?.issues.map((issue) => `${issue.line}:${issue.column} ${issue.path}: ${issue.message}`)).toEqual([
      '2:11 kubernetes.events: expected one of nonZero, all, none, got "some"',
      "3:22 kubernetes.queue.maxEvents: expected a whole number from 1 to 1000000, got 0",
      "4:39 kubernetes.rateLimit.perPod.refillSeconds: expected a number of seconds above 0 (at most a day), got -1",
      "5:3 kubernetes.token: unknown field (known: kubeconfig, node, events, podAnnotations, oomFromPodStatus, queue, rateLimit)",
    ]);
  });
});

describe("what cannot work is a clear error at start", () => {
  const configure = async (text: string) => {
    const reporter = new ExitReporter();
    try {
      await reporter.configure(decodeConfig(text));
    } finally {
      await reporter.close();
    }
  };

  it("a kubeconfig that is missing, unreadable or not one", async () => {
    await expect(configure(`jsonLines: false\ngrpc: false\nkubernetes: {kubeconfig: ${work}/nope}`)).rejects.toThrow(
      `cannot start the kubernetes output: cannot read the kubeconfig ${work}/nope: there is no such file`,
    );
    await expect(configure(`jsonLines: false\ngrpc: false\nkubernetes: {kubeconfig: ${work}}`)).rejects.toThrow(
      `cannot start the kubernetes output: cannot read the kubeconfig ${work}: EISDIR: illegal operation on a directory, read`,
    );
    const empty = join(work, "empty.yaml");
    writeFileSync(empty, "apiVersion: v1\nkind: Config\n");
    expect(() => loadKubeConfig(empty)).toThrow(`the kubeconfig ${empty} has no current context with a cluster`);
    const garbage = join(work, "garbage.yaml");
    writeFileSync(garbage, "clusters: [7\n");
    expect(() => loadKubeConfig(garbage)).toThrow(/^the kubeconfig .*garbage.yaml cannot be used: /);
  });

  it("in-cluster configuration outside a pod", () => {
    expect(() => loadKubeConfig("", {})).toThrow(
      "not in a Kubernetes pod (KUBERNETES_SERVICE_HOST and KUBERNETES_SERVICE_PORT are not set): set kubernetes.kubeconfig to reach an API server from elsewhere",
    );
    expect(() => loadKubeConfig("", { KUBERNETES_SERVICE_HOST: "10.0.0.1", KUBERNETES_SERVICE_PORT: "443" })).toThrow(
      "cannot read the pod's service-account token /var/run/secrets/kubernetes.io/serviceaccount/token (ENOENT): does the pod mount it (automountServiceAccountToken)?",
    );
  });
});
