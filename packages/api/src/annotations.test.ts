import { PodSandbox } from "./gen/nri/pkg/api/v1alpha1/api.js";
import { describe, expect, it } from "vitest";
import { effectiveAnnotation, REQUIRED_PLUGINS_ANNOTATION } from "./annotations.js";

describe("effectiveAnnotation", () => {
  const pod = (annotations: Record<string, string>) => PodSandbox.fromPartial({ annotations });

  it("prefers the container-scoped key, then the pod-scoped key, then the bare key", () => {
    const all = pod({ k: "bare", "k/pod": "pod", "k/container.c0": "container" });
    expect(effectiveAnnotation(all, "k", "c0")).toBe("container");
    expect(effectiveAnnotation(all, "k", "c1")).toBe("pod");
    expect(effectiveAnnotation(pod({ k: "bare", "k/container.c1": "x" }), "k", "c0")).toBe("bare");
  });

  it("returns an empty value as set, and undefined when nothing is set", () => {
    expect(effectiveAnnotation(pod({ "k/pod": "" }), "k", "c0")).toBe("");
    expect(effectiveAnnotation(pod({}), "k", "c0")).toBeUndefined();
    expect(effectiveAnnotation(undefined, "k", "c0")).toBeUndefined();
    expect(effectiveAnnotation(pod({ constructor: "x" }), "toString", "c0")).toBeUndefined();
  });

  it("names the required-plugins annotation as Go does", () => {
    expect(REQUIRED_PLUGINS_ANNOTATION).toBe("required-plugins.noderesource.dev");
  });
});
