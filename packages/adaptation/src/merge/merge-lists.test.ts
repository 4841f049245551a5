import { CreateContainerRequest, CreateContainerResponse, Field, Mount } from "@nri-ts/api";
import { describe, expect, it } from "vitest";
import { CreateContainerResult } from "../create-container-result.js";

/** Mounts, env and devices share the list algorithm; only mounts echo removal markers. */

function create(): CreateContainerResult {
  return new CreateContainerResult(
    CreateContainerRequest.fromPartial({
      container: {
        id: "ctr0",
        env: ["PATH=/bin", "KEEP=1", "BARE", "EQ=a=b"],
        mounts: [
          { destination: "/own", source: "/o" },
          { destination: "/keep", source: "/k" },
        ],
        linux: { devices: [{ path: "/dev/own", type: "c" }] },
      },
    }),
  );
}

const mount = (destination: string, source = ""): Mount => Mount.fromPartial({ destination, source });

describe("list algorithm: mounts", () => {
  it("replaces the container's own entry by destination without a marker", () => {
    const result = create();
    result.apply(CreateContainerResponse.fromPartial({ adjust: { mounts: [mount("/own", "/new")] } }), "00-a");
    expect(result.response().adjust?.mounts).toStrictEqual([mount("/own", "/new")]);
    expect(result.request.container.mounts).toStrictEqual([mount("/keep", "/k"), mount("/own", "/new")]);
  });

  it("echoes a pure removal of an original mount as sent, and claims nothing", () => {
    const result = create();
    const marker = Mount.fromPartial({ destination: "-/own", type: "bind", options: ["ro"] });
    result.apply(CreateContainerResponse.fromPartial({ adjust: { mounts: [marker] } }), "00-a");
    expect(result.response().adjust?.mounts).toStrictEqual([marker]);
    expect(result.request.container.mounts).toStrictEqual([mount("/keep", "/k")]);
    expect(result.owners.entryOwners("ctr0", Field.Mounts)).toBeUndefined();
  });

  it("drops another plugin's mount on removal; the remover then owns the destination", () => {
    const result = create();
    result.apply(CreateContainerResponse.fromPartial({ adjust: { mounts: [mount("/x", "/a")] } }), "00-a");
    result.apply(CreateContainerResponse.fromPartial({ adjust: { mounts: [mount("-/x")] } }), "10-b");
    expect(result.response().adjust?.mounts).toStrictEqual([mount("-/x")]);
    expect(result.owners.entryOwner("ctr0", Field.Mounts, "/x")).toBe("-10-b");
    expect(() =>
      result.apply(CreateContainerResponse.fromPartial({ adjust: { mounts: [mount("/x", "/c")] } }), "20-c"),
    ).toThrow('plugins "20-c" and "10-b" both tried to set Mounts /x');
  });

  it("does not echo the marker when the plugin re-adds the destination; markers are never dropped", () => {
    const result = create();
    result.apply(
      CreateContainerResponse.fromPartial({ adjust: { mounts: [mount("-/gone"), mount("/x", "/a")] } }),
      "00-a",
    );
    result.apply(
      CreateContainerResponse.fromPartial({ adjust: { mounts: [mount("-/x"), mount("/x", "/b"), mount("-/gone")] } }),
      "10-b",
    );
    expect(result.response().adjust?.mounts).toStrictEqual([mount("-/gone"), mount("/x", "/b"), mount("-/gone")]);
  });

  it("fails when one plugin lists the same destination twice", () => {
    const result = create();
    expect(() =>
      result.apply(
        CreateContainerResponse.fromPartial({ adjust: { mounts: [mount("/x", "/1"), mount("/x", "/2")] } }),
        "00-a",
      ),
    ).toThrow('plugins "00-a" and "00-a" both tried to set Mounts /x');
  });
});

describe("list algorithm: env", () => {
  it("replaces by name (the text before the first '='), appends NAME=value to the request copy", () => {
    const result = create();
    result.apply(
      CreateContainerResponse.fromPartial({
        adjust: {
          env: [
            { key: "EQ", value: "c" },
            { key: "BARE", value: "" },
            { key: "NEW", value: "n=1" },
          ],
        },
      }),
      "00-a",
    );
    expect(result.response().adjust?.env).toStrictEqual([
      { key: "EQ", value: "c" },
      { key: "BARE", value: "" },
      { key: "NEW", value: "n=1" },
    ]);
    expect(result.request.container.env).toStrictEqual(["PATH=/bin", "KEEP=1", "EQ=c", "BARE=", "NEW=n=1"]);
  });

  it("QUIRK: removing an original variable changes only the request copy", () => {
    const result = create();
    result.apply(CreateContainerResponse.fromPartial({ adjust: { env: [{ key: "-PATH", value: "" }] } }), "00-a");
    expect(result.response().adjust?.env).toStrictEqual([]);
    expect(result.request.container.env).toStrictEqual(["KEEP=1", "BARE", "EQ=a=b"]);
  });

  it("lets a later plugin override with a marker plus a new value", () => {
    const result = create();
    result.apply(CreateContainerResponse.fromPartial({ adjust: { env: [{ key: "X", value: "a" }] } }), "00-a");
    result.apply(
      CreateContainerResponse.fromPartial({
        adjust: {
          env: [
            { key: "-X", value: "" },
            { key: "X", value: "b" },
          ],
        },
      }),
      "10-b",
    );
    expect(result.response().adjust?.env).toStrictEqual([{ key: "X", value: "b" }]);
    expect(result.request.container.env).toStrictEqual(["PATH=/bin", "KEEP=1", "BARE", "EQ=a=b", "X=b"]);
    expect(result.owners.entryOwner("ctr0", Field.Env, "X")).toBe("10-b");
  });
});

describe("list algorithm: devices", () => {
  it("QUIRK: removing an original device changes only the request copy", () => {
    const result = create();
    result.apply(
      CreateContainerResponse.fromPartial({ adjust: { linux: { devices: [{ path: "-/dev/own" }] } } }),
      "00-a",
    );
    expect(result.response().adjust?.linux?.devices).toStrictEqual([]);
    expect(result.request.container.linux.devices).toStrictEqual([]);
  });

  it("conflicts on the same path from two plugins", () => {
    const result = create();
    result.apply(CreateContainerResponse.fromPartial({ adjust: { linux: { devices: [{ path: "/dev/x" }] } } }), "00-a");
    expect(() =>
      result.apply(
        CreateContainerResponse.fromPartial({ adjust: { linux: { devices: [{ path: "/dev/x" }] } } }),
        "10-b",
      ),
    ).toThrow('plugins "10-b" and "00-a" both tried to set Devices /dev/x');
  });
});
