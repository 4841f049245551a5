import { CreateContainerRequest, CreateContainerResponse, Field } from "@nri-ts/api";
import { describe, expect, it } from "vitest";
import { CreateContainerResult } from "../create-container-result.js";

/** Annotations, sysctl and net devices share the map algorithm. */

function create(): CreateContainerResult {
  return new CreateContainerResult(
    CreateContainerRequest.fromPartial({
      container: {
        id: "ctr0",
        annotations: { own: "runtime" },
        linux: { sysctl: { "net.own": "1" }, netDevices: { eth0: { name: "net0" } } },
      },
    }),
  );
}

describe("map algorithm: annotations", () => {
  it("sets keys in the reply and the request copy and claims them", () => {
    const result = create();
    result.apply(CreateContainerResponse.fromPartial({ adjust: { annotations: { a: "1", own: "plugin" } } }), "00-a");
    expect(result.response().adjust?.annotations).toStrictEqual({ a: "1", own: "plugin" });
    expect(result.request.container.annotations).toStrictEqual({ own: "plugin", a: "1" });
    expect(result.owners.entryOwners("ctr0", Field.Annotations)).toStrictEqual({ a: "00-a", own: "00-a" });
  });

  it("conflicts when a second plugin sets the same key", () => {
    const result = create();
    result.apply(CreateContainerResponse.fromPartial({ adjust: { annotations: { a: "1" } } }), "00-a");
    expect(() =>
      result.apply(CreateContainerResponse.fromPartial({ adjust: { annotations: { a: "2" } } }), "10-b"),
    ).toThrow('plugins "10-b" and "00-a" both tried to set Annotations a');
  });

  it("lets a plugin take a key over by removing and setting it in one response", () => {
    const result = create();
    result.apply(CreateContainerResponse.fromPartial({ adjust: { annotations: { a: "1" } } }), "00-a");
    result.apply(CreateContainerResponse.fromPartial({ adjust: { annotations: { "-a": "", a: "2" } } }), "10-b");
    expect(result.response().adjust?.annotations).toStrictEqual({ a: "2", "-a": "" });
    expect(result.request.container.annotations).toStrictEqual({ own: "runtime", a: "2" });
    expect(result.owners.entryOwner("ctr0", Field.Annotations, "a")).toBe("10-b");
  });

  it("QUIRK: a pure removal neither undoes an earlier plugin's value nor claims the key", () => {
    const result = create();
    result.apply(CreateContainerResponse.fromPartial({ adjust: { annotations: { a: "1" } } }), "00-a");
    result.apply(CreateContainerResponse.fromPartial({ adjust: { annotations: { "-a": "", "-own": "" } } }), "10-b");
    expect(result.response().adjust?.annotations).toStrictEqual({ a: "1", "-a": "", "-own": "" });
    expect(result.request.container.annotations).toStrictEqual({ own: "runtime", a: "1" });
    expect(result.owners.entryOwner("ctr0", Field.Annotations, "a")).toBe("00-a");
    expect(result.owners.entryOwner("ctr0", Field.Annotations, "own")).toBeUndefined();
    // A later plugin may set a purely removed key; the marker stays in the reply.
    result.apply(CreateContainerResponse.fromPartial({ adjust: { annotations: { own: "c" } } }), "20-c");
    expect(result.response().adjust?.annotations).toStrictEqual({ a: "1", "-a": "", "-own": "", own: "c" });
  });

  it("strips only the first '-' and never marks the empty key", () => {
    const result = create();
    result.apply(
      CreateContainerResponse.fromPartial({ adjust: { annotations: { "--x": "", "": "empty", "-": "" } } }),
      "00-a",
    );
    expect(result.response().adjust?.annotations).toStrictEqual({ "": "empty", "--x": "", "-": "" });
    expect(result.owners.entryOwners("ctr0", Field.Annotations)).toStrictEqual({ "": "00-a" });
  });
});

describe("map algorithm: sysctl", () => {
  it("sets, claims and takes over like annotations", () => {
    const result = create();
    result.apply(CreateContainerResponse.fromPartial({ adjust: { linux: { sysctl: { "net.a": "1" } } } }), "00-a");
    result.apply(
      CreateContainerResponse.fromPartial({ adjust: { linux: { sysctl: { "-net.a": "", "net.a": "2" } } } }),
      "10-b",
    );
    expect(result.response().adjust?.linux?.sysctl).toStrictEqual({ "net.a": "2", "-net.a": "" });
    expect(result.request.container.linux.sysctl).toStrictEqual({ "net.own": "1", "net.a": "2" });
    expect(() =>
      result.apply(CreateContainerResponse.fromPartial({ adjust: { linux: { sysctl: { "net.a": "3" } } } }), "20-c"),
    ).toThrow('plugins "20-c" and "10-b" both tried to set Sysctl net.a');
  });

  it("files a pure removal's marker under the reply's sysctl, as Go does since v0.12.3", () => {
    const result = create();
    result.apply(CreateContainerResponse.fromPartial({ adjust: { linux: { sysctl: { "-net.own": "" } } } }), "00-a");
    const adjust = result.response().adjust;
    expect(adjust?.linux?.sysctl).toStrictEqual({ "-net.own": "" });
    expect(adjust?.annotations).toStrictEqual({});
    // QUIRK (reproduced): the earlier value stays in the request copy.
    expect(result.request.container.linux.sysctl).toStrictEqual({ "net.own": "1" });
  });
});

describe("map algorithm: net devices", () => {
  it("marks removals with an empty device, which encodes like Go's nil", () => {
    const result = create();
    result.apply(
      CreateContainerResponse.fromPartial({
        adjust: { linux: { netDevices: { "-eth0": {}, "-eth1": {}, eth1: { name: "x" } } } },
      }),
      "00-a",
    );
    const netDevices = result.response().adjust?.linux?.netDevices;
    expect(netDevices).toStrictEqual({ "-eth0": { name: "" }, "-eth1": { name: "" }, eth1: { name: "x" } });
    expect(result.request.container.linux.netDevices).toStrictEqual({ eth0: { name: "net0" }, eth1: { name: "x" } });
    expect(result.owners.entryOwners("ctr0", Field.LinuxNetDevices)).toStrictEqual({ eth1: "00-a" });
  });
});
