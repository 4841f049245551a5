import { describe, expect, it } from "vitest";
import { Container, CreateContainerRequest, PodSandbox, SynchronizeRequest } from "./gen/nri/pkg/api/v1alpha1/api.js";
import { answerAttributes, traceAttributes } from "./trace-attributes.js";

describe("traceAttributes", () => {
  it("names pod and container with OpenTelemetry's Kubernetes and container attributes", () => {
    const pod = PodSandbox.fromPartial({ id: "sandbox", name: "web", uid: "u-1", namespace: "shop" });
    const container = Container.fromPartial({ id: "c0ffee", name: "nginx", podSandboxId: "sandbox" });
    expect(traceAttributes({ pod, container })).toEqual({
      "k8s.pod.name": "web",
      "k8s.pod.uid": "u-1",
      "k8s.namespace.name": "shop",
      "k8s.container.name": "nginx",
      "container.id": "c0ffee",
    });
  });

  it("leaves out what the request does not say", () => {
    expect(traceAttributes({})).toEqual({});
    expect(traceAttributes({ pod: PodSandbox.fromPartial({ name: "web" }) })).toEqual({ "k8s.pod.name": "web" });
    // a request without pod or container, as a message decoded from the wire has it
    expect(traceAttributes(CreateContainerRequest.fromPartial({}))).toEqual({});
  });

  it("counts the pods and containers of a Synchronize, none included", () => {
    const pods = [PodSandbox.fromPartial({ id: "a" }), PodSandbox.fromPartial({ id: "b" })];
    const containers = [Container.fromPartial({ id: "c", podSandboxId: "a" })];
    expect(traceAttributes(SynchronizeRequest.fromPartial({ pods, containers }))).toEqual({
      "nri.pods": 2,
      "nri.containers": 1,
    });
    expect(traceAttributes(SynchronizeRequest.fromPartial({}))).toEqual({ "nri.pods": 0, "nri.containers": 0 });
  });

  it("names a request's pod and container beside what it counts", () => {
    const pod = PodSandbox.fromPartial({ name: "web" });
    const container = Container.fromPartial({ id: "c0ffee" });
    expect(traceAttributes({ pod, container, containers: [container] })).toEqual({
      "k8s.pod.name": "web",
      "container.id": "c0ffee",
      "nri.containers": 1,
    });
  });
});

describe("answerAttributes", () => {
  it("says whether an answer asked for changes, and how many updates and evictions it carried", () => {
    const nothing = { "nri.adjusted": false, "nri.updates": 0, "nri.evictions": 0 };
    expect(answerAttributes("createContainer", {})).toEqual(nothing);
    expect(answerAttributes("createContainer", { adjust: { annotations: {}, env: [] }, update: [] })).toEqual(nothing);
    expect(answerAttributes("createContainer", { adjust: { env: [{ key: "A", value: "1" }] } })).toEqual({
      ...nothing,
      "nri.adjusted": true,
    });
    expect(answerAttributes("updateContainer", { update: [{}, {}], evict: [{}] })).toEqual({
      "nri.adjusted": true,
      "nri.updates": 2,
      "nri.evictions": 1,
    });
    expect(answerAttributes("stopContainer", undefined)).toEqual(nothing);
  });

  it("gives a validator's verdict, with the reason of a rejection", () => {
    expect(answerAttributes("validateContainerAdjustment", { reject: false, reason: "" })).toEqual({
      "nri.validation.verdict": "accepted",
    });
    expect(answerAttributes("validateContainerAdjustment", { reject: true, reason: "no hooks" })).toEqual({
      "nri.validation.verdict": "rejected",
      "nri.validation.reason": "no hooks",
    });
  });

  it("has nothing to say about answers that carry nothing", () => {
    expect(answerAttributes("startContainer", {})).toEqual({});
  });
});
