import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { fromPartialChecked, PartialMessageError } from "./checked-partial.js";
import {
  ContainerAdjustment,
  ContainerUpdate,
  type DeepPartial,
  LinuxScheduler,
  UpdateContainersRequest,
} from "./gen/nri/pkg/api/v1alpha1/api.js";

const hex = (bytes: Uint8Array) => Buffer.from(bytes).toString("hex");

function errorOf(run: () => unknown): PartialMessageError {
  try {
    run();
  } catch (error) {
    if (error instanceof PartialMessageError) return error;
    throw error;
  }
  throw new Error("expected a PartialMessageError");
}

const memoryLimit = (value: string | number | bigint): DeepPartial<ContainerUpdate> => ({
  containerId: "c1",
  linux: { resources: { memory: { limit: { value } } } },
});

describe("fromPartialChecked", () => {
  it("gives what fromPartial gives for a good message, whatever form its 64-bit integers take", () => {
    const encoded = (value: string | number | bigint) =>
      hex(ContainerUpdate.encode(fromPartialChecked(ContainerUpdate, memoryLimit(value), "update")).finish());
    expect(encoded("1073741824")).toBe(encoded(1073741824));
    expect(encoded(1073741824)).toBe(encoded(1n << 30n));
    expect(encoded("-1")).toBe(hex(ContainerUpdate.encode(ContainerUpdate.fromPartial(memoryLimit(-1n))).finish()));
    expect(
      fromPartialChecked(ContainerUpdate, memoryLimit("9223372036854775807"), "update").linux?.resources?.memory?.limit
        ?.value,
    ).toBe(9223372036854775807n);
  });

  it("refuses strings that BigInt() would silently misread, naming the field", () => {
    for (const bad of ["", " 12", "0x10", "1G", "1e3", "12.0", "+5"]) {
      const error = errorOf(() => fromPartialChecked(ContainerUpdate, memoryLimit(bad), "my update"));
      expect(error.path).toBe("linux.resources.memory.limit.value");
      expect(error.message).toBe(
        `my update: linux.resources.memory.limit.value: expected an int64 (a safe integer, a bigint or a string of decimal digits), got ${JSON.stringify(bad)}`,
      );
    }
  });

  it("refuses fractions, inexact numbers and values out of the field's range", () => {
    expect(() => fromPartialChecked(ContainerUpdate, memoryLimit(1.5), "u")).toThrow(
      "u: linux.resources.memory.limit.value: expected an int64 (a safe integer, a bigint or a string of decimal digits), got 1.5",
    );
    expect(() => fromPartialChecked(ContainerUpdate, memoryLimit(2 ** 60), "u")).toThrow(
      "(beyond 2^53 a number is inexact; pass a bigint or a string)",
    );
    expect(() => fromPartialChecked(ContainerUpdate, memoryLimit("9223372036854775808"), "u")).toThrow(
      "u: linux.resources.memory.limit.value: expected an int64, got 9223372036854775808 (out of range)",
    );
    // cpu shares are a uint64: -1 is out of range there, and the message says uint64
    const shares = { containerId: "c1", linux: { resources: { cpu: { shares: { value: "-1" } } } } };
    expect(() => fromPartialChecked(ContainerUpdate, shares, "u")).toThrow(
      "u: linux.resources.cpu.shares.value: expected a uint64, got -1 (out of range)",
    );
  });

  it("names list items and map entries on the way to the field", () => {
    const request = {
      update: [{ containerId: "a" }, { containerId: "b", linux: { resources: { pids: { limit: "many" } } } }],
    };
    expect(errorOf(() => fromPartialChecked(UpdateContainersRequest, request, "r")).path).toBe(
      "update[1].linux.resources.pids.limit",
    );
    const devices = { linux: { netDevices: { "eth-0": { name: "x", colour: "red" } } } };
    expect(errorOf(() => fromPartialChecked(ContainerAdjustment, devices as never, "adj")).message).toBe(
      'adj: linux.netDevices["eth-0"].colour: unknown field (known here: name)',
    );
  });

  it("refuses unknown keys instead of dropping them, listing the known ones", () => {
    const typo = { anotations: { a: "b" } } as DeepPartial<ContainerAdjustment>;
    expect(() => fromPartialChecked(ContainerAdjustment, typo, "createContainer result")).toThrow(
      "createContainer result: anotations: unknown field (known here: annotations, mounts, env, hooks, linux, rlimits, CDIDevices, args)",
    );
    const nested = { linux: { resources: { memroy: { limit: { value: 1 } } } } } as DeepPartial<ContainerAdjustment>;
    expect(errorOf(() => fromPartialChecked(ContainerAdjustment, nested, "x")).path).toBe("linux.resources.memroy");
    expect(() => fromPartialChecked(ContainerAdjustment, { toString: "x" } as never, "x")).toThrow(
      "toString: unknown field",
    );
  });

  it("refuses a scalar where a message belongs, and what fromPartial cannot take", () => {
    expect(() => fromPartialChecked(ContainerAdjustment, { linux: "yes" } as never, "x")).toThrow(
      'x: linux: expected an object, got "yes"',
    );
    expect(() => fromPartialChecked(ContainerAdjustment, { mounts: { destination: "/d" } } as never, "x")).toThrow(
      "x: not a message: object.mounts?.map is not a function",
    );
  });

  it("keeps maps' keys, undefined values and every other field as fromPartial does", () => {
    const adjustment = { annotations: { "a/b": "c" }, env: [{ key: "K", value: "V" }], args: undefined };
    expect(fromPartialChecked(ContainerAdjustment, adjustment, "x")).toEqual(
      ContainerAdjustment.fromPartial(adjustment),
    );
  });

  it("accepts every int64 and uint64 given as a decimal string, and encodes what BigInt gives", () => {
    fc.assert(
      fc.property(
        fc.bigInt({ min: 0n, max: (1n << 64n) - 1n }),
        fc.bigInt({ min: -(1n << 63n), max: (1n << 63n) - 1n }),
        (period, quota) => {
          const scheduler = fromPartialChecked(LinuxScheduler, { period: String(period) }, "s");
          expect(scheduler.period).toBe(period);
          const update = fromPartialChecked(ContainerUpdate, memoryLimit(String(quota)), "u");
          expect(update.linux?.resources?.memory?.limit?.value).toBe(quota);
        },
      ),
    );
  });
});
