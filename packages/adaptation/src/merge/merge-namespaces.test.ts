import { CreateContainerRequest, CreateContainerResponse, Field } from "@nri-ts/api";
import { describe, expect, it } from "vitest";
import { CreateContainerResult } from "../create-container-result.js";

function create(): CreateContainerResult {
  return new CreateContainerResult(
    CreateContainerRequest.fromPartial({
      container: {
        id: "ctr0",
        linux: {
          namespaces: [
            { type: "network", path: "/run/netns/a" },
            { type: "cgroup", path: "" },
            { type: "ipc", path: "" },
          ],
        },
      },
    }),
  );
}

const adjust = (namespaces: Array<{ type: string; path?: string }>) =>
  CreateContainerResponse.fromPartial({ adjust: { linux: { namespaces } } });

describe("namespaces", () => {
  it("sends each entry as is, replaces and deletes by type in the request copy", () => {
    const result = create();
    result.apply(
      adjust([{ type: "network", path: "/run/netns/b" }, { type: "-ipc" }, { type: "uts", path: "" }]),
      "00-a",
    );
    expect(result.response().adjust?.linux?.namespaces).toStrictEqual([
      { type: "network", path: "/run/netns/b" },
      { type: "-ipc", path: "" },
      { type: "uts", path: "" },
    ]);
    expect(result.request.container.linux.namespaces).toStrictEqual([
      { type: "network", path: "/run/netns/b" },
      { type: "cgroup", path: "" },
      { type: "uts", path: "" },
    ]);
  });

  it("claims removals too, so two plugins touching one type always conflict", () => {
    const result = create();
    result.apply(adjust([{ type: "-cgroup" }]), "00-a");
    expect(result.owners.entryOwners("ctr0", Field.Namespace)).toStrictEqual({ cgroup: "00-a" });
    expect(() => result.apply(adjust([{ type: "cgroup", path: "/x" }]), "10-b")).toThrow(
      'plugins "10-b" and "00-a" both tried to set Namespace cgroup',
    );
    expect(() => create().apply(adjust([{ type: "uts" }, { type: "-uts" }]), "00-a")).toThrow(
      'plugins "00-a" and "00-a" both tried to set Namespace uts',
    );
  });

  it("collapses duplicate types of the original container to the last one when touched", () => {
    const result = new CreateContainerResult(
      CreateContainerRequest.fromPartial({
        container: {
          id: "ctr0",
          linux: {
            namespaces: [
              { type: "pid", path: "/1" },
              { type: "pid", path: "/2" },
            ],
          },
        },
      }),
    );
    result.apply(adjust([{ type: "uts" }]), "00-a");
    expect(result.request.container.linux.namespaces).toStrictEqual([
      { type: "pid", path: "/2" },
      { type: "uts", path: "" },
    ]);
  });
});
