/**
 * The node itself, before any plugin: the control plane and the kubelet
 * are the release they claim to be, the kubelet registers a Ready Node that
 * runs the suite's containerd over CRI, a pod gets an address on the
 * node's bridge network, and a pod's service-account token lets an
 * in-cluster client reach the API server, as itself, through the
 * `kubernetes` Service's address.
 */
import { afterAll, beforeAll, expect, it } from "vitest";
import { BUSYBOX_IMAGE } from "../images.js";
import { NEWEST } from "../versions.js";
import { Cluster } from "./cluster.js";
import { describeK8s } from "./context.js";
import { type Pod, podStatus, waitPod } from "./pods.js";

describeK8s("kubernetes node", () => {
  let cluster: Cluster;

  beforeAll(async () => {
    cluster = await Cluster.start({ label: "node" });
  }, 600_000);
  afterAll(() => cluster?.teardown());

  it("kubectl and the API server are v1.37.2, as a release build stamps them", async () => {
    const version = await cluster.kubectl.json<{
      clientVersion: { gitVersion: string };
      serverVersion: { gitVersion: string };
    }>(["version"]);
    expect(version.clientVersion.gitVersion).toBe("v1.37.2");
    expect(version.serverVersion.gitVersion).toBe("v1.37.2");
  });

  it("the kubelet registers a Ready node that runs our containerd", async () => {
    const node = await cluster.kubectl.json<{
      status: {
        nodeInfo: { kubeletVersion: string; containerRuntimeVersion: string };
        conditions: { type: string; status: string }[];
        addresses: { type: string; address: string }[];
      };
    }>(["get", "node", "node-1"]);
    expect(node.status.nodeInfo.kubeletVersion).toBe("v1.37.2");
    expect(node.status.nodeInfo.containerRuntimeVersion).toBe(`containerd://${NEWEST.version.slice(1)}`);
    expect(node.status.conditions.find((condition) => condition.type === "Ready")?.status).toBe("True");
    expect(node.status.addresses).toContainEqual({ type: "InternalIP", address: cluster.nodes[0]?.address });
  });

  it("a pod runs on the node's bridge network, and its logs and exec go through the kubelet", async () => {
    await cluster.kubectl.apply(busyboxPod("net", ["sh", "-c", "echo hello from $(hostname); sleep 3600"]));
    const pod = await waitPod(cluster.kubectl, "net", (p) => p.status?.phase === "Running");
    expect(pod.status?.podIP).toMatch(/^10\.88\.1\.\d+$/);
    await expect.poll(() => cluster.kubectl.run(["logs", "net"]), { timeout: 60_000 }).toContain("hello from net");
    expect((await cluster.kubectl.run(["exec", "net", "--", "cat", "/etc/hostname"])).trim()).toBe("net");
  });

  it("a pod's service-account token reaches the API server through the kubernetes Service's address", async () => {
    // busybox has no TLS client: the plugins' image has Node
    const script = [
      "const fs = require('node:fs'), https = require('node:https');",
      "const dir = '/var/run/secrets/kubernetes.io/serviceaccount';",
      "const body = JSON.stringify({ apiVersion: 'authentication.k8s.io/v1', kind: 'SelfSubjectReview' });",
      "const request = https.request({",
      "  host: process.env.KUBERNETES_SERVICE_HOST, port: process.env.KUBERNETES_SERVICE_PORT, method: 'POST',",
      "  path: '/apis/authentication.k8s.io/v1/selfsubjectreviews', ca: fs.readFileSync(dir + '/ca.crt'),",
      "  headers: { authorization: 'Bearer ' + fs.readFileSync(dir + '/token', 'utf8'), 'content-type': 'application/json' },",
      "}, (response) => { let text = ''; response.on('data', (d) => (text += d)); response.on('end', () => console.log(response.statusCode, text)); });",
      "request.end(body);",
    ].join("\n");
    const image = "localhost/nri-plugin-logger:dev";
    await cluster.kubectl.apply({
      apiVersion: "v1",
      kind: "Pod",
      metadata: { name: "client", namespace: "default" },
      spec: {
        restartPolicy: "Never",
        containers: [
          { name: "client", image, imagePullPolicy: "Never", command: ["/usr/local/bin/node", "-e", script] },
        ],
      },
    });
    const pod = await waitPod(
      cluster.kubectl,
      "client",
      (p) => p.status?.phase === "Succeeded" || p.status?.phase === "Failed",
    );
    const output = await cluster.kubectl.run(["logs", "client"]);
    expect(podStatus(pod).phase, output).toBe("Succeeded");
    const [status, ...json] = output.trim().split(" ");
    expect(status).toBe("201");
    const review = JSON.parse(json.join(" ")) as { status: { userInfo: { username: string } } };
    expect(review.status.userInfo.username).toBe("system:serviceaccount:default:default");
  });
});

function busyboxPod(name: string, command: string[]): Pod {
  return {
    apiVersion: "v1",
    kind: "Pod",
    metadata: { name, namespace: "default" },
    spec: {
      restartPolicy: "Never",
      terminationGracePeriodSeconds: 1,
      containers: [{ name: "main", image: BUSYBOX_IMAGE, imagePullPolicy: "Never", command }],
    },
  };
}
