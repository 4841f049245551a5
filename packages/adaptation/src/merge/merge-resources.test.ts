import type { DeepPartial } from "@nri-ts/api";
import { CreateContainerRequest, CreateContainerResponse, Field, type LinuxResources } from "@nri-ts/api";
import { describe, expect, it } from "vitest";
import { CreateContainerResult } from "../create-container-result.js";

function create(): CreateContainerResult {
  return new CreateContainerResult(
    CreateContainerRequest.fromPartial({
      container: {
        id: "ctr0",
        linux: {
          resources: {
            memory: { limit: { value: 100n } },
            cpu: { shares: { value: 2n }, cpus: "0" },
            hugepageLimits: [{ pageSize: "2M", limit: 1n }],
            unified: { own: "1" },
          },
        },
      },
    }),
  );
}

const resources = (value: DeepPartial<LinuxResources>) =>
  CreateContainerResponse.fromPartial({ adjust: { linux: { resources: value } } });

describe("adjusted resources", () => {
  it("overwrites memory and cpu in both reply and request copy, with separate copies of each value", () => {
    const result = create();
    const response = resources({
      memory: { limit: { value: 200n }, swappiness: { value: 0n } },
      cpu: { cpus: "1-2", mems: "" },
    });
    result.apply(response, "00-a");
    const reply = result.response().adjust?.linux?.resources;
    const container = result.request.container.linux.resources;
    expect(reply?.memory).toStrictEqual({ limit: { value: 200n }, swappiness: { value: 0n } });
    expect(container.memory).toEqual({ limit: { value: 200n }, swappiness: { value: 0n } });
    expect(container.memory.limit).not.toBe(reply?.memory?.limit);
    expect(container.cpu).toMatchObject({ shares: { value: 2n }, cpus: "1-2", mems: "" });
    expect(reply?.cpu).toMatchObject({ cpus: "1-2", mems: "" });
    expect(result.owners.owner("ctr0", Field.MemSwappiness)).toBe("00-a");
    expect(result.owners.owner("ctr0", Field.CPUSetMems)).toBeUndefined();
  });

  it("claims memory fields before cpu fields, each in Go's order", () => {
    const result = create();
    result.apply(resources({ memory: { swap: { value: 1n } }, cpu: { quota: { value: 1n } } }), "00-a");
    expect(() =>
      result.apply(
        resources({ memory: { useHierarchy: { value: true }, swap: { value: 2n } }, cpu: { quota: { value: 2n } } }),
        "10-b",
      ),
    ).toThrow('plugins "10-b" and "00-a" both tried to set MemSwapLimit ');
  });

  it("appends hugepage limits without de-duplication and claims each page size", () => {
    const result = create();
    result.apply(resources({ hugepageLimits: [{ pageSize: "2M", limit: 8n }] }), "00-a");
    expect(result.response().adjust?.linux?.resources?.hugepageLimits).toStrictEqual([{ pageSize: "2M", limit: 8n }]);
    expect(result.request.container.linux.resources.hugepageLimits).toStrictEqual([
      { pageSize: "2M", limit: 1n },
      { pageSize: "2M", limit: 8n },
    ]);
    expect(() => result.apply(resources({ hugepageLimits: [{ pageSize: "2M", limit: 9n }] }), "10-b")).toThrow(
      'plugins "10-b" and "00-a" both tried to set HugepageLimits 2M',
    );
  });

  it("appends cgroup device rules without any ownership", () => {
    const result = create();
    const rule = { allow: true, type: "c", access: "rw", major: { value: 1n } };
    result.apply(resources({ devices: [rule] }), "00-a");
    result.apply(resources({ devices: [rule] }), "10-b");
    expect(result.response().adjust?.linux?.resources?.devices).toHaveLength(2);
    expect(result.request.container.linux.resources.devices).toHaveLength(2);
  });

  it("sets unified keys and classes", () => {
    const result = create();
    result.apply(
      resources({ unified: { "memory.high": "1G" }, blockioClass: { value: "slow" }, rdtClass: { value: "gold" } }),
      "00-a",
    );
    const reply = result.response().adjust?.linux?.resources;
    expect(reply?.unified).toStrictEqual({ "memory.high": "1G" });
    expect(result.request.container.linux.resources.unified).toStrictEqual({ own: "1", "memory.high": "1G" });
    expect(reply?.blockioClass).toStrictEqual({ value: "slow" });
    expect(result.request.container.linux.resources.rdtClass).toStrictEqual({ value: "gold" });
    expect(() => result.apply(resources({ unified: { "memory.high": "2G" } }), "10-b")).toThrow(
      'plugins "10-b" and "00-a" both tried to set CgroupsUnified memory.high',
    );
  });

  it("claims pids whenever present, even with limit 0, sharing one object", () => {
    const result = create();
    result.apply(resources({ pids: { limit: 0n } }), "00-a");
    const reply = result.response().adjust?.linux?.resources;
    expect(reply?.pids).toStrictEqual({ limit: 0n });
    expect(result.request.container.linux.resources.pids).toBe(reply?.pids);
    expect(() => result.apply(resources({ pids: { limit: 5n } }), "10-b")).toThrow(
      'plugins "10-b" and "00-a" both tried to set PidsLimit ',
    );
  });
});
