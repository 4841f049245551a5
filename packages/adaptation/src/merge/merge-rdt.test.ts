import type { DeepPartial } from "@nri-ts/api";
import { CreateContainerRequest, CreateContainerResponse, Field, LinuxRdt } from "@nri-ts/api";
import { describe, expect, it } from "vitest";
import { CreateContainerResult } from "../create-container-result.js";

function create(): CreateContainerResult {
  return new CreateContainerResult(
    CreateContainerRequest.fromPartial({ container: { id: "ctr0", linux: { rdt: { closId: { value: "own" } } } } }),
  );
}

const rdt = (value: DeepPartial<LinuxRdt>) =>
  CreateContainerResponse.fromPartial({ adjust: { linux: { rdt: value } } });

describe("RDT", () => {
  it("lets different plugins set different RDT fields", () => {
    const result = create();
    result.apply(rdt({ closId: { value: "a" } }), "00-a");
    result.apply(rdt({ schemata: { value: ["L3:0=f"] }, enableMonitoring: { value: false } }), "10-b");
    expect(result.response().adjust?.linux?.rdt).toStrictEqual(
      LinuxRdt.fromPartial({
        closId: { value: "a" },
        schemata: { value: ["L3:0=f"] },
        enableMonitoring: { value: false },
      }),
    );
    expect(result.request.container.linux.rdt).toStrictEqual(LinuxRdt.fromPartial({ closId: { value: "own" } }));
  });

  it("replaces earlier values by {remove: true} on removal", () => {
    const result = create();
    result.apply(rdt({ closId: { value: "a" }, schemata: { value: ["x"] } }), "00-a");
    result.apply(rdt({ remove: true }), "10-b");
    expect(result.response().adjust?.linux?.rdt).toStrictEqual(LinuxRdt.fromPartial({ remove: true }));
    expect(result.owners.owner("ctr0", Field.RdtClosID)).toBe("-10-b");
    expect(() => result.apply(rdt({ enableMonitoring: { value: true } }), "20-c")).toThrow(
      'plugins "20-c" and "10-b" both tried to set RdtEnableMonitoring ',
    );
  });

  it("resets remove when the remover sets fields again", () => {
    const result = create();
    result.apply(
      rdt({ closId: { value: "bar" }, schemata: { value: ["x"] }, enableMonitoring: { value: true } }),
      "00-bar",
    );
    result.apply(rdt({ remove: true, closId: { value: "foo" } }), "10-foo");
    expect(result.response().adjust?.linux?.rdt).toStrictEqual(
      LinuxRdt.fromPartial({ closId: { value: "foo" }, remove: false }),
    );
  });
});
