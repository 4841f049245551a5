import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { decodeMessage, encodeMessage, ProtocolDecodeError } from "./decode.js";
import {
  ConfigureResponse,
  Container,
  Container_LabelsEntry,
  ContainerState,
  CreateContainerRequest,
  type DeepPartial,
  LinuxContainer,
  LinuxContainerAdjustment,
  LinuxScheduler,
  PodSandbox,
} from "./gen/nri/pkg/api/v1alpha1/api.js";

const bytes = (hex: string) => Uint8Array.from(Buffer.from(hex.replaceAll(" ", ""), "hex"));
const hex = (data: Uint8Array) => Buffer.from(data).toString("hex");

/** A stopped container with its status fields, as Go (nri v0.12.2, proto.Marshal) encodes it. */
const GO_CONTAINER =
  "0a04637472311a037765622004708080e8ef9eca9cc318788094d3cca2ca9cc318800180ded2f092cc9cc318880189019201094f4f4d4b69" +
  "6c6c65649a01156d656d6f7279206c696d6974206578636565646564";

function decodeError(type: Parameters<typeof decodeMessage>[0], input: Uint8Array): ProtocolDecodeError {
  try {
    decodeMessage(type, input);
  } catch (error) {
    if (error instanceof ProtocolDecodeError) return error;
    throw error;
  }
  throw new Error("decoded without error");
}

describe("decodeMessage", () => {
  it("decodes a Go-encoded container with its status", () => {
    expect(decodeMessage(Container, bytes(GO_CONTAINER))).toEqual(
      Container.fromPartial({
        id: "ctr1",
        name: "web",
        state: ContainerState.CONTAINER_STOPPED,
        createdAt: 1_767_225_600_000_000_000n,
        startedAt: 1_767_225_601_000_000_000n,
        finishedAt: 1_767_225_665_500_000_000n,
        exitCode: 137,
        statusReason: "OOMKilled",
        statusMessage: "memory limit exceeded",
      }),
    );
  });

  it("decodes a negative exit code sent as a 10-byte varint", () => {
    expect(decodeMessage(Container, bytes("8801ffffffffffffffffff01")).exitCode).toBe(-1);
  });

  it("skips unknown fields and groups, as Go does", () => {
    // Field 99 as a varint, then field 98 as a group holding a varint.
    expect(decodeMessage(Container, bytes("0a0161 980601 9306 0801 9406"))).toEqual(Container.fromPartial({ id: "a" }));
  });

  it.each([
    [
      "a truncated message",
      GO_CONTAINER.slice(0, -2),
      "field 19 of 21 bytes runs past the end of its message at offset 60",
    ],
    ["a zero tag at the end, which ts-proto alone ignores", "0a016100", "invalid field number 0 at offset 3"],
    ["a stray end-group tag", "0a01410c", "end of group 1 without its start at offset 3"],
    ["wire type 7", "0f", "invalid wire type 7 at offset 0"],
    ["wire type 6 after a field", "0a0141 0e", "invalid wire type 6 at offset 3"],
    ["an over-long varint", "20 ffffffffffffffffffff01", "varint overflows 64 bits at offset 1"],
    ["a truncated varint", "20 ff", "truncated varint at offset 1"],
    ["a nested message shorter than its contents", "4a01 0a0141", "invalid field number 0 at offset 3"],
    ["a zero tag at the end of a nested message", "4a04 0a0141 00", "invalid field number 0 at offset 5"],
    ["a nested end-group tag", "4a04 0a0141 0c", "end of group 1 without its start at offset 5"],
    ["invalid UTF-8 in a string", "1a02ff41", "string field contains invalid UTF-8"],
    ["invalid UTF-8 in a nested string", "4a04 0a02c328", "string field contains invalid UTF-8"],
  ])("rejects %s", (_, input, reason) => {
    const error = decodeError(Container, bytes(input));
    expect(error.reason).toBe(reason);
    expect(error.typeName).toBe("nri.pkg.api.v1alpha1.Container");
    expect(error.byteLength).toBe(input.replaceAll(" ", "").length / 2);
    expect(error.message).toMatch(/^cannot decode nri\.pkg\.api\.v1alpha1\.Container from \d+ bytes?: /);
    expect(error.message.endsWith(`: ${reason}`)).toBe(true);
  });

  it("rejects a packed field that reads past its nested message", () => {
    // LinuxContainer.scheduler (3 bytes) holds packed flags whose last varint takes the next field's tag.
    expect(decodeError(LinuxContainer, bytes("5a03 2201 80 2a00")).reason).toBe(
      "message ending at offset 5 was read up to offset 6",
    );
    // Misaligned that way, the parent then meets a nested message longer than itself.
    expect(decodeError(LinuxContainer, bytes(`5a03 2201 80 2a5a 7f${"00".repeat(89)}`)).reason).toBe(
      "nested message runs past the end of its parent at offset 8",
    );
  });

  it("misses a cut packed varint when the bytes after it happen to parse (the documented gap)", () => {
    expect(decodeMessage(LinuxScheduler, bytes("2201 80 0800")).flags).toEqual([1024]);
  });

  it("rejects groups nested too deeply", () => {
    const error = decodeError(Container, bytes(`${"9b06".repeat(101)}${"9c06".repeat(101)}`));
    expect(error.reason).toBe("groups nested too deeply at offset 200");
  });

  it("names nested types and keeps the cause of thrown errors", () => {
    const error = decodeError(Container_LabelsEntry, bytes("0a02ff41"));
    expect(error.message).toBe(
      "cannot decode nri.pkg.api.v1alpha1.Container.LabelsEntry from 4 bytes: string field contains invalid UTF-8",
    );
    expect(error.name).toBe("ProtocolDecodeError");
    expect(error.cause).toBeInstanceOf(Error);
  });

  it("decodes an empty message from no bytes", () => {
    expect(decodeMessage(ConfigureResponse, new Uint8Array())).toEqual({ events: 0 });
    expect(decodeError(ConfigureResponse, bytes("00")).message).toBe(
      "cannot decode nri.pkg.api.v1alpha1.ConfigureResponse from 1 byte: invalid field number 0 at offset 0",
    );
  });

  it("keeps a removed net device whose value Go writes as an empty message", () => {
    expect(decodeMessage(LinuxContainerAdjustment, bytes("4a090a052d657468391200")).netDevices).toEqual({
      "-eth9": { name: "" },
    });
  });
});

describe("encodeMessage", () => {
  it("encodes a partial message with defaults and loose 64-bit values", () => {
    expect(hex(encodeMessage(ConfigureResponse, { events: 8 }))).toBe("1008");
    expect(hex(encodeMessage(Container, { id: "a", createdAt: "5", exitCode: -1 }))).toBe(
      "0a016170058801ffffffffffffffffff01",
    );
    expect(encodeMessage(Container, {})).toEqual(new Uint8Array());
  });
});

const text = fc.string({ unit: "grapheme", maxLength: 12 });
const int64 = fc.bigInt({ min: -(1n << 63n), max: (1n << 63n) - 1n });
const dictionary = fc.dictionary(text, text, { maxKeys: 3 });

const container: fc.Arbitrary<DeepPartial<Container>> = fc.record(
  {
    id: text,
    podSandboxId: text,
    name: text,
    state: fc.integer({ min: 0, max: 4 }),
    labels: dictionary,
    annotations: dictionary,
    args: fc.array(text, { maxLength: 3 }),
    env: fc.array(text, { maxLength: 3 }),
    mounts: fc.array(
      fc.record({ destination: text, type: text, source: text, options: fc.array(text, { maxLength: 2 }) }),
      { maxLength: 2 },
    ),
    linux: fc.record(
      {
        namespaces: fc.array(fc.record({ type: text, path: text }), { maxLength: 2 }),
        resources: fc.record(
          {
            memory: fc.record({ limit: fc.record({ value: int64 }) }, { requiredKeys: [] }),
            cpu: fc.record({ cpus: text, shares: fc.record({ value: fc.bigInt({ min: 0n, max: 1n << 40n }) }) }),
            unified: dictionary,
          },
          { requiredKeys: [] },
        ),
        sysctl: dictionary,
        netDevices: fc.dictionary(text, fc.record({ name: text }), { maxKeys: 2 }),
        scheduler: fc.record({ flags: fc.array(fc.integer({ min: 0, max: 6 }), { maxLength: 3 }), nice: fc.integer() }),
      },
      { requiredKeys: [] },
    ),
    pid: fc.nat(),
    createdAt: int64,
    startedAt: int64,
    finishedAt: int64,
    exitCode: fc.integer({ min: -(2 ** 31), max: 2 ** 31 - 1 }),
    statusReason: text,
    statusMessage: text,
    user: fc.record({ uid: fc.nat(), gid: fc.nat(), additionalGids: fc.array(fc.nat(), { maxLength: 3 }) }),
  },
  { requiredKeys: [] },
);

const request: fc.Arbitrary<DeepPartial<CreateContainerRequest>> = fc.record({
  pod: fc.record({ id: text, name: text, labels: dictionary, ips: fc.array(text, { maxLength: 2 }) }),
  container,
});

/** Decoding either yields a message or throws ProtocolDecodeError; nothing else. */
function decodesOrRejects(type: Parameters<typeof decodeMessage>[0], input: Uint8Array): void {
  try {
    decodeMessage(type, input);
  } catch (error) {
    if (!(error instanceof ProtocolDecodeError)) throw error;
  }
}

describe("decodeMessage properties", () => {
  it("decodes what was encoded", () => {
    fc.assert(
      fc.property(container, (partial) => {
        const encoded = encodeMessage(Container, partial);
        expect(decodeMessage(Container, encoded)).toEqual(Container.fromPartial(partial));
      }),
    );
  });

  it("decodes or rejects random bytes", () => {
    fc.assert(
      fc.property(fc.uint8Array({ maxLength: 200 }), (input) => {
        decodesOrRejects(Container, input);
        decodesOrRejects(CreateContainerRequest, input);
        decodesOrRejects(PodSandbox, input);
      }),
      { numRuns: 2000 },
    );
  });

  it("decodes or rejects every truncation of a valid request", () => {
    fc.assert(
      fc.property(request, fc.nat(), (partial, cut) => {
        const encoded = encodeMessage(CreateContainerRequest, partial);
        decodesOrRejects(CreateContainerRequest, encoded.subarray(0, cut % (encoded.length + 1)));
      }),
    );
  });

  it("decodes or rejects valid encodings with a byte changed", () => {
    fc.assert(
      fc.property(container, fc.nat(), fc.integer({ min: 0, max: 255 }), (partial, at, value) => {
        const encoded = encodeMessage(Container, partial);
        if (encoded.length === 0) return;
        const changed = Uint8Array.from(encoded);
        changed[at % changed.length] = value;
        decodesOrRejects(Container, changed);
      }),
    );
  });

  it("returns nothing partial: every truncation that decodes ends on a field boundary", () => {
    fc.assert(
      fc.property(container, (partial) => {
        const encoded = encodeMessage(Container, partial);
        for (let cut = 0; cut < encoded.length; cut++) {
          let decoded: Container;
          try {
            decoded = decodeMessage(Container, encoded.subarray(0, cut));
          } catch (error) {
            expect(error).toBeInstanceOf(ProtocolDecodeError);
            continue;
          }
          // A prefix that decodes holds whole fields only: encoding it again gives the prefix back.
          expect(hex(Container.encode(decoded).finish())).toBe(hex(encoded.subarray(0, cut)));
        }
      }),
      { numRuns: 50 },
    );
  });
});
