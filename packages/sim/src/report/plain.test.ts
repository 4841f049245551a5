import { describe, expect, it } from "vitest";
import { plain } from "./plain.js";

describe("plain", () => {
  it("unwraps optional wrappers and keeps a wrapped zero", () => {
    expect(
      plain({ memory: { limit: { value: 0n }, swap: undefined }, cpu: { cpus: "", shares: { value: 512n } } }),
    ).toEqual({
      memory: { limit: 0 },
      cpu: { shares: 512 },
    });
  });

  it("drops defaults and empty collections", () => {
    expect(plain({ annotations: {}, mounts: [], env: [{ key: "A", value: "" }], args: [] })).toEqual({
      env: [{ key: "A" }],
    });
    expect(plain({ a: {}, b: [] })).toBeUndefined();
  });

  it("keeps map entries whatever their value: removal markers", () => {
    expect(
      plain({
        annotations: { "-a": "", b: "x" },
        linux: { netDevices: { "-eth1": undefined, eth2: { name: "" } }, sysctl: {} },
      }),
    ).toEqual({
      annotations: { "-a": "", b: "x" },
      linux: { netDevices: { "-eth1": null, eth2: null } },
    });
  });

  it("keeps list items that hold a default, as what they are", () => {
    expect(plain({ schemata: { value: [""] }, args: ["a", "", "b"], ids: [0n, 1n], hooks: [{ path: "" }] })).toEqual({
      schemata: [""],
      args: ["a", "", "b"],
      ids: [0, 1],
      hooks: [{}],
    });
  });

  it("writes 64-bit integers beyond 2^53 as text", () => {
    expect(plain({ t: 1767225600000000000n, n: 42n })).toEqual({ t: "1767225600000000000", n: 42 });
  });
});
