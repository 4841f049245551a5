import { Field } from "@nri-ts/api";
import { describe, expect, it } from "vitest";
import { fieldName } from "./fields.js";
import { ConflictError, compoundOwner, compoundOwners, Ownership, simpleOwner } from "./owners.js";

function conflict(run: () => void): ConflictError {
  try {
    run();
  } catch (error) {
    if (error instanceof ConflictError) return error;
    throw error;
  }
  throw new Error("expected a ConflictError");
}

describe("Ownership: simple fields (owners_test.go TestSimpleClaims)", () => {
  it("claims per container, conflicts per container, and lets only the clearing plugin re-claim", () => {
    const owners = new Ownership();
    owners.claimHooks("ctr0", "test0");
    owners.claim("ctr0", Field.MemLimit, "test0");
    owners.claim("ctr1", Field.MemLimit, "test0");
    expect(() => owners.claim("ctr0", Field.MemLimit, "test1")).toThrow(ConflictError);
    owners.claim("ctr0", Field.CPUShares, "test0");
    owners.claim("ctr1", Field.CPUShares, "test0");
    expect(() => owners.claim("ctr0", Field.CPUShares, "test1")).toThrow(ConflictError);

    owners.claim("ctr0", Field.Args, "test0");
    expect(() => owners.claim("ctr0", Field.Args, "test1")).toThrow(ConflictError);
    owners.clear("ctr0", Field.Args, "test1");
    owners.claim("ctr0", Field.Args, "test1");
    owners.clear("ctr0", Field.Args, "test1");
    expect(() => owners.claim("ctr0", Field.Args, "test0")).toThrow(
      'plugins "test0" and "test1" both tried to set Args ',
    );
  });

  it("makes a conflict without a stack trace, and leaves Error.stackTraceLimit as it was", () => {
    const owners = new Ownership();
    owners.claim("ctr0", Field.MemLimit, "00-bar");
    const limit = Error.stackTraceLimit;
    const error = conflict(() => owners.claim("ctr0", Field.MemLimit, "10-foo"));
    expect(error.stack).toBe(`ConflictError: ${error.message}`);
    expect(Error.stackTraceLimit).toBe(limit);
    expect(new Error("later").stack).toContain("owners.test.ts");
  });

  it("ends the conflict text of a simple field with a space, as Go does", () => {
    const owners = new Ownership();
    owners.claim("ctr0", Field.MemLimit, "00-bar");
    const error = conflict(() => owners.claim("ctr0", Field.MemLimit, "10-foo"));
    expect(error.message).toBe('plugins "10-foo" and "00-bar" both tried to set MemLimit ');
    expect(error).toMatchObject({
      name: "ConflictError",
      plugin: "10-foo",
      other: "00-bar",
      field: Field.MemLimit,
      key: undefined,
    });
  });

  it("makes a plugin claiming its own field twice conflict with itself", () => {
    const owners = new Ownership();
    owners.claim("ctr0", Field.CgroupsPath, "10-foo");
    expect(() => owners.claim("ctr0", Field.CgroupsPath, "10-foo")).toThrow(
      'plugins "10-foo" and "10-foo" both tried to set CgroupsPath ',
    );
  });

  it("records clears as -<plugin>", () => {
    const owners = new Ownership();
    owners.claim("ctr0", Field.Args, "00-bar");
    owners.clear("ctr0", Field.Args, "10-foo");
    expect(owners.owner("ctr0", Field.Args)).toBe("-10-foo");
    expect(owners.message).toStrictEqual({
      owners: { ctr0: { simple: { [Field.Args]: "-10-foo" }, compound: {} } },
    });
  });
});

describe("Ownership: compound fields (owners_test.go TestCompoundClaims)", () => {
  it("conflicts per key and lets only the clearing plugin re-claim", () => {
    const owners = new Ownership();
    owners.claimEntry("ctr0", Field.Env, "VAR0", "test0");
    owners.claimEntry("ctr0", Field.Env, "VAR1", "test0");
    owners.claimEntry("ctr1", Field.Env, "VAR0", "test1");
    expect(() => owners.claimEntry("ctr0", Field.Env, "VAR1", "test1")).toThrow(
      'plugins "test1" and "test0" both tried to set Env VAR1',
    );
    owners.clearEntry("ctr0", Field.Env, "VAR1", "test1");
    owners.claimEntry("ctr0", Field.Env, "VAR1", "test1");
    owners.clearEntry("ctr0", Field.Env, "VAR1", "test0");
    expect(() => owners.claimEntry("ctr0", Field.Env, "VAR1", "test1")).toThrow(
      'plugins "test1" and "test0" both tried to set Env VAR1',
    );
    expect(fieldName(Field.Annotations)).toBe("Annotations");
  });

  it("names the key after the field", () => {
    const owners = new Ownership();
    owners.claimEntry("ctr0", Field.Mounts, "/mnt/test", "00-bar");
    const error = conflict(() => owners.claimEntry("ctr0", Field.Mounts, "/mnt/test", "10-foo"));
    expect(error.message).toBe('plugins "10-foo" and "00-bar" both tried to set Mounts /mnt/test');
    expect(error.key).toBe("/mnt/test");
  });

  it("keeps the message shape the validators receive", () => {
    const owners = new Ownership();
    owners.claimEntry("ctr0", Field.Namespace, "network", "10-foo");
    owners.clearEntry("ctr0", Field.Mounts, "/x", "00-bar");
    expect(owners.message).toStrictEqual({
      owners: {
        ctr0: {
          simple: {},
          compound: {
            [Field.Namespace]: { owners: { network: "10-foo" } },
            [Field.Mounts]: { owners: { "/x": "-00-bar" } },
          },
        },
      },
    });
    expect(owners.entryOwners("ctr0", Field.Namespace)).toStrictEqual({ network: "10-foo" });
    expect(owners.entryOwner("ctr0", Field.Mounts, "/x")).toBe("-00-bar");
  });
});

describe("Ownership: hooks and RDT", () => {
  it("accumulates hook owners without conflicts (owners_test.go TestAccumulatingOwnership)", () => {
    const owners = new Ownership();
    owners.claimHooks("ctr0", "plugin0");
    owners.claimHooks("ctr0", "plugin1");
    owners.claimHooks("ctr0", "plugin2");
    expect(owners.owner("ctr0", Field.OciHooks)).toBe("plugin0,plugin1,plugin2");
  });

  it("clears the three RDT fields at once", () => {
    const owners = new Ownership();
    owners.claim("ctr0", Field.RdtClosID, "00-bar");
    owners.clearRdt("ctr0", "10-foo");
    expect(owners.message.owners.ctr0.simple).toStrictEqual({
      [Field.RdtClosID]: "-10-foo",
      [Field.RdtSchemata]: "-10-foo",
      [Field.RdtEnableMonitoring]: "-10-foo",
    });
    owners.claim("ctr0", Field.RdtSchemata, "10-foo");
    expect(() => owners.claim("ctr0", Field.RdtClosID, "00-bar")).toThrow(
      'plugins "00-bar" and "10-foo" both tried to set RdtClosID ',
    );
  });
});

describe("owner lookups on an OwningPlugins message", () => {
  it("answers undefined for unknown containers and fields without allocating", () => {
    const message = { owners: {} };
    expect(simpleOwner(message, "nope", Field.MemLimit)).toBeUndefined();
    expect(compoundOwner(message, "nope", Field.Sysctl, "x")).toBeUndefined();
    expect(compoundOwners(message, "nope", Field.Namespace)).toBeUndefined();
    expect(simpleOwner(undefined, "nope", Field.MemLimit)).toBeUndefined();
    expect(message).toStrictEqual({ owners: {} });
  });

  it("reads a message decoded from the wire", () => {
    const message = {
      owners: { ctr0: { simple: { 32: "10-foo" }, compound: { 34: { owners: { "net.ipv4.ip_forward": "00-bar" } } } } },
    };
    expect(simpleOwner(message, "ctr0", Field.SeccompPolicy)).toBe("10-foo");
    expect(compoundOwner(message, "ctr0", Field.Sysctl, "net.ipv4.ip_forward")).toBe("00-bar");
  });
});

describe("fieldName", () => {
  it("uses the proto enum names", () => {
    expect(fieldName(Field.CPUSetCPUs)).toBe("CPUSetCPUs");
    expect(fieldName(Field.LinuxNetDevices)).toBe("LinuxNetDevices");
    expect(fieldName(Field.MemoryPolicy)).toBe("MemoryPolicy");
    expect(fieldName(77 as Field)).toBe("77");
  });
});
