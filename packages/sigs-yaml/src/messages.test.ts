import {
  Container,
  ContainerAdjustment,
  PodSandbox,
  ContainerState,
  LinuxResources,
  OwningPlugins,
  ValidateContainerAdjustmentRequest,
} from "@nri-ts/api";
import { describe, expect, it } from "vitest";
import { goJson, jsonTag, MAP_FIELDS, marshalMessageYaml } from "./messages.js";

/** Through the wire, as a stub hands messages to a plugin. */
const decoded = <T>(fns: { encode(m: T): { finish(): Uint8Array }; decode(b: Uint8Array): T }, message: T) =>
  fns.decode(fns.encode(message).finish());

const stopped = Container.fromPartial({
  id: "abc",
  name: "nginx",
  podSandboxId: "pod1",
  state: ContainerState.CONTAINER_STOPPED,
  labels: { appVersion: "2.0", "io.kubernetes.container.name": "nginx", empty: "" },
  createdAt: 1767225601000000000n,
  startedAt: 1767225602000000000n,
  finishedAt: 1767225605000000000n,
  exitCode: 137,
  statusReason: "OOMKilled",
  statusMessage: "memory limit of 512Mi exceeded",
  CDIDevices: [{ name: "vendor.com/gpu=0" }],
  linux: { resources: { memory: { limit: { value: 0n } } } },
});

describe("goJson: a message as Go's encoding/json writes its struct", () => {
  it("names fields by their JSON tags, leaves zeros out, keeps map keys and entries as they are", () => {
    expect(goJson(decoded(Container, stopped))).toEqual({
      id: "abc",
      pod_sandbox_id: "pod1",
      name: "nginx",
      state: 4,
      labels: new Map([
        ["appVersion", "2.0"],
        ["empty", ""],
        ["io.kubernetes.container.name", "nginx"],
      ]),
      // a wrapper holding 0: its value is omitempty too
      linux: { resources: { memory: { limit: {} } } },
      created_at: 1767225601000000000n,
      started_at: 1767225602000000000n,
      finished_at: 1767225605000000000n,
      exit_code: 137,
      status_reason: "OOMKilled",
      status_message: "memory limit of 512Mi exceeded",
      CDI_devices: [{ name: "vendor.com/gpu=0" }],
    });
  });

  it("keeps removal markers and their empty values", () => {
    const adjust = decoded(
      ContainerAdjustment,
      ContainerAdjustment.fromPartial({
        annotations: { "-gone": "", kept: "x" },
        env: [{ key: "-MODE" }],
        linux: { netDevices: { "-eth1": {} } },
      }),
    );
    expect(goJson(adjust)).toEqual({
      annotations: new Map([
        ["-gone", ""],
        ["kept", "x"],
      ]),
      env: [{ key: "-MODE" }],
      linux: { net_devices: new Map([["-eth1", {}]]) },
    });
  });

  it("tells a map from a message of the same name by the message it is in", () => {
    // `owners` is a message in the request and a map in OwningPlugins.
    expect(MAP_FIELDS.get(Object.keys(OwningPlugins.fromPartial({})).sort().join())).toEqual(new Set(["owners"]));
    expect(MAP_FIELDS.get(Object.keys(ValidateContainerAdjustmentRequest.fromPartial({})).sort().join())).toEqual(
      new Set(),
    );
    const request = decoded(
      ValidateContainerAdjustmentRequest,
      ValidateContainerAdjustmentRequest.fromPartial({ owners: { owners: { ctr: {} } } }),
    );
    expect(goJson(request)).toEqual({ owners: { owners: new Map([["ctr", {}]]) } });
  });

  it("turns the protocol's names back into its JSON tags", () => {
    expect(
      ["podSandboxId", "CDIDevices", "NRIVersion", "oomScoreAdj", "l3CacheSchema", "hugepageLimits"].map(jsonTag),
    ).toEqual(["pod_sandbox_id", "CDI_devices", "NRI_version", "oom_score_adj", "l3_cache_schema", "hugepage_limits"]);
  });
});

// The Go logger's and differ's dumps start from these (packages/conformance compares them with Go's).
describe("marshalMessageYaml", () => {
  it("writes nothing as null and nothing but a message as {}", () => {
    expect(marshalMessageYaml(undefined)).toBe("null\n");
    expect(marshalMessageYaml([])).toBe("null\n");
    expect(marshalMessageYaml(decoded(LinuxResources, LinuxResources.fromPartial({})))).toBe("{}\n");
    expect(marshalMessageYaml(decoded(LinuxResources, LinuxResources.fromPartial({ cpu: {} })))).toBe("cpu: {}\n");
  });

  it("fails with the error text of the sigs.k8s.io/yaml asked for", () => {
    const pod = decoded(PodSandbox, PodSandbox.fromPartial({ name: "a\u007fb" }));
    expect(() => marshalMessageYaml(pod)).toThrow(
      "error converting JSON to YAML: yaml: control characters are not allowed",
    );
    expect(() => marshalMessageYaml(pod, { sigsYaml: "v1.4" })).toThrow(/^yaml: control characters are not allowed$/);
  });
});
