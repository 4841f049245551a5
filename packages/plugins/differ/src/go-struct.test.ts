import { Container, LinuxContainer } from "@nri-ts/api";
import { describe, expect, it } from "vitest";
import { goCamelCase, goFields, type Message } from "./go-struct.js";

const decoded = <T>(fns: { encode(m: T): { finish(): Uint8Array }; decode(b: Uint8Array): T }, message: T) =>
  fns.decode(fns.encode(message).finish()) as unknown as Message;

describe("goCamelCase", () => {
  it("names fields as protoc-gen-go does", () => {
    expect(
      ["pod_sandbox_id", "CDI_devices", "oom_score_adj", "l3_cache_schema", "id", "_x", "value_two"].map(goCamelCase),
    ).toEqual(["PodSandboxId", "CDIDevices", "OomScoreAdj", "L3CacheSchema", "Id", "XX", "ValueTwo"]);
  });
});

describe("goFields", () => {
  it("lists a container's fields in the Go struct's order, with their Go and text names and kinds", () => {
    const fields = goFields(decoded(Container, Container.fromPartial({})));
    // upstream v0.12.5's api.Container, field by field
    expect(fields.map((f) => f.goName)).toEqual([
      "Id",
      "PodSandboxId",
      "Name",
      "State",
      "Labels",
      "Annotations",
      "Args",
      "Env",
      "Mounts",
      "Hooks",
      "Linux",
      "Pid",
      "Rlimits",
      "CreatedAt",
      "StartedAt",
      "FinishedAt",
      "ExitCode",
      "StatusReason",
      "StatusMessage",
      "CDIDevices",
      "User",
      "Image",
    ]);
    const kinds = Object.fromEntries(fields.map((f) => [f.textName, f.kind.of]));
    expect(kinds).toMatchObject({
      id: "scalar",
      state: "enum",
      labels: "map",
      args: "slice",
      mounts: "slice",
      linux: "message",
      CDI_devices: "slice",
    });
  });

  it("knows a map of messages from a message", () => {
    const kinds = Object.fromEntries(
      goFields(decoded(LinuxContainer, LinuxContainer.fromPartial({}))).map((f) => [f.goName, f.kind.of]),
    );
    expect(kinds).toMatchObject({ NetDevices: "map", Sysctl: "map", Scheduler: "message", Devices: "slice" });
  });
});
