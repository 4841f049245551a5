import { Container, CreateContainerRequest, CreateContainerResponse, UpdateContainerRequest } from "@nri-ts/api";
import { describe, expect, it } from "vitest";
import { CreateContainerResult } from "../create-container-result.js";
import { UpdateContainerResult } from "../update-container-result.js";

describe("the request copy", () => {
  it("is the caller's request, filled in place with every part plugins may adjust", () => {
    const request: CreateContainerRequest = { container: Container.fromPartial({ id: "ctr0" }) };
    const result = new CreateContainerResult(request);
    expect(result.request).toBe(request);
    const container = request.container;
    expect(container?.hooks).toStrictEqual({
      prestart: [],
      createRuntime: [],
      createContainer: [],
      startContainer: [],
      poststart: [],
      poststop: [],
    });
    expect(container?.linux?.resources?.memory).toStrictEqual({});
    expect(container?.linux?.resources?.cpu).toMatchObject({ cpus: "", mems: "" });
    expect(container?.linux).toMatchObject({ namespaces: [], devices: [], sysctl: {}, netDevices: {} });
  });

  it("fills a request without a container and tolerates JS callers' missing collections", () => {
    const bare = { container: { id: "ctr0" } } as unknown as CreateContainerRequest;
    const result = new CreateContainerResult(bare);
    expect(result.request.container).toMatchObject({
      id: "ctr0",
      labels: {},
      annotations: {},
      mounts: [],
      env: [],
      rlimits: [],
    });
    expect(new CreateContainerResult({}).request.container.id).toBe("");
  });

  it("carries one plugin's changes to the next", () => {
    const result = new CreateContainerResult(
      CreateContainerRequest.fromPartial({ container: { id: "ctr0", env: ["A=1"] } }),
    );
    result.apply(
      CreateContainerResponse.fromPartial({ adjust: { env: [{ key: "B", value: "2" }], annotations: { x: "y" } } }),
      "00-a",
    );
    // The transport sends result.request to the next plugin.
    const seen = CreateContainerRequest.decode(CreateContainerRequest.encode(result.request).finish());
    expect(seen.container?.env).toStrictEqual(["A=1", "B=2"]);
    expect(seen.container?.annotations).toStrictEqual({ x: "y" });
  });

  it("fills an update request's resources (memory, cpu)", () => {
    const request = UpdateContainerRequest.fromPartial({ container: { id: "ctr0" } });
    const result = new UpdateContainerResult(request);
    expect(result.request).toBe(request);
    expect(request.linuxResources).toMatchObject({ memory: {}, cpu: { cpus: "", mems: "" } });
  });
});
