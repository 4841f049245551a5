import { Container, Mount, PodSandbox, POSIXRlimit, SynchronizeRequest } from "@nri-ts/api";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { text } from "../testing/arbitraries.js";
import { CONTAINER_FIELDS, MOUNT_FIELDS, POD_FIELDS, RLIMIT_FIELDS } from "./state-encoding.js";
import { encodeSynchronizeRequest } from "./sync-encoding.js";

const map = fc.dictionary(text, text, { maxKeys: 4 });
const list = fc.array(text, { maxLength: 4 });
const int64 = fc.oneof(fc.constant(0n), fc.bigInt({ min: -(2n ** 63n), max: 2n ** 63n - 1n }));
const uint32 = fc.oneof(fc.constant(0), fc.nat(), fc.constant(2 ** 32 - 1));
const int32 = fc.oneof(fc.constant(0), fc.integer({ min: -(2 ** 31), max: 2 ** 31 - 1 }));

const pod = fc
  .record(
    {
      id: text,
      name: text,
      uid: text,
      namespace: text,
      labels: map,
      annotations: map,
      runtimeHandler: text,
      linux: fc.record({
        cgroupParent: text,
        cgroupsPath: text,
        namespaces: fc.array(fc.record({ type: text, path: text }), { maxLength: 2 }),
      }),
      pid: uint32,
      ips: list,
    },
    { requiredKeys: [] },
  )
  .map((partial) => PodSandbox.fromPartial(partial));

const container = fc
  .record(
    {
      id: text,
      podSandboxId: text,
      name: text,
      state: fc.integer({ min: 0, max: 4 }),
      labels: map,
      annotations: map,
      args: list,
      env: list,
      mounts: fc.array(fc.record({ destination: text, type: text, source: text, options: list }), { maxLength: 2 }),
      hooks: fc.record({ prestart: fc.array(fc.record({ path: text, args: list }), { maxLength: 2 }) }),
      linux: fc.record({
        namespaces: fc.array(fc.record({ type: text, path: text }), { maxLength: 2 }),
        cgroupsPath: text,
        oomScoreAdj: fc.record({ value: int32 }),
      }),
      pid: uint32,
      rlimits: fc.array(
        fc.record({
          type: text,
          hard: fc.bigInt({ min: 0n, max: 2n ** 64n - 1n }),
          soft: fc.bigInt({ min: 0n, max: 2n ** 64n - 1n }),
        }),
        { maxLength: 2 },
      ),
      createdAt: int64,
      startedAt: int64,
      finishedAt: int64,
      exitCode: int32,
      statusReason: text,
      statusMessage: text,
      CDIDevices: fc.array(fc.record({ name: text }), { maxLength: 2 }),
      user: fc.record({ uid: uint32, gid: uint32, additionalGids: fc.array(uint32, { maxLength: 3 }) }),
      image: fc.record({ name: text }),
    },
    { requiredKeys: [] },
  )
  .map((partial) => Container.fromPartial(partial));

const generated = (request: SynchronizeRequest) => SynchronizeRequest.encode(request).finish();

describe("encodeSynchronizeRequest", () => {
  // 150 generated states, each encoded twice: over 20 s on a busy machine
  it("writes the generated encoder's bytes for any pods and containers", { timeout: 120_000 }, () => {
    fc.assert(
      fc.property(
        fc.array(pod, { maxLength: 4 }),
        fc.array(container, { maxLength: 6 }),
        fc.boolean(),
        (pods, containers, more) => {
          const request = { pods, containers, more };
          expect(Buffer.from(encodeSynchronizeRequest(request))).toEqual(Buffer.from(generated(request)));
        },
      ),
      { numRuns: 150 },
    );
  });

  it("writes the generated encoder's bytes wherever a field falls in its buffer, for any uint32", () => {
    // One request after another, growing then shrinking, so that every field
    // meets every buffer size and offset: a five-byte uint32 once went wrong
    // at some of them.
    const request = (n: number, pid: number): SynchronizeRequest => ({
      pods: [
        PodSandbox.fromPartial({
          id: "\u{10000}".repeat(n % 7),
          namespace: "\u0800".repeat(n % 5),
          runtimeHandler: " ".repeat(n),
          pid,
        }),
      ],
      containers: [Container.fromPartial({ id: "c".repeat(n % 300), pid, env: ["x".repeat(n)] })],
      more: false,
    });
    const sizes = Array.from({ length: 2001 }, (_, n) => n);
    const wrong: string[] = [];
    for (const n of [...sizes, ...sizes.reverse()]) {
      for (const pid of [1, 2 ** 31, 2 ** 32 - 1]) {
        const ours = Buffer.from(encodeSynchronizeRequest(request(n, pid)));
        if (!ours.equals(Buffer.from(generated(request(n, pid))))) wrong.push(`size ${n}, pid ${pid}`);
      }
    }
    expect(wrong).toEqual([]);
  });

  it("writes every field the generated Container and PodSandbox have, in their order", () => {
    // A field added to the protos (a new upstream version) fails here until this encoder writes it.
    expect(Object.keys(Container.create())).toEqual([...CONTAINER_FIELDS]);
    expect(Object.keys(PodSandbox.create())).toEqual([...POD_FIELDS]);
    expect(Object.keys(Mount.create())).toEqual([...MOUNT_FIELDS]);
    expect(Object.keys(POSIXRlimit.create())).toEqual([...RLIMIT_FIELDS]);
  });

  it("leaves a value not of its declared type to the generated encoder: the same coercion, the same error", () => {
    const coerced = {
      pods: [],
      containers: [
        Container.fromPartial({ id: "a" }),
        { ...Container.fromPartial({ name: "b" }), id: 42 as unknown as string },
      ],
      more: false,
    };
    expect(Buffer.from(encodeSynchronizeRequest(coerced))).toEqual(Buffer.from(generated(coerced)));
    const negative = { pods: [{ ...PodSandbox.fromPartial({ id: "p" }), pid: -1 }], containers: [], more: false };
    expect(() => generated(negative)).toThrow("invalid uint32: -1");
    expect(() => encodeSynchronizeRequest(negative)).toThrow("invalid uint32: -1");
  });

  it("refuses an int64 out of range with the generated encoder's error", () => {
    const request = { pods: [], containers: [Container.fromPartial({ id: "c", startedAt: 2n ** 63n })], more: false };
    expect(() => generated(request)).toThrow("value provided for field message.startedAt of type int64 too large");
    expect(() => encodeSynchronizeRequest(request)).toThrow(
      "value provided for field message.startedAt of type int64 too large",
    );
  });

  it("refuses an rlimit out of the uint64 range with the generated encoder's error", () => {
    const request = {
      pods: [],
      containers: [Container.fromPartial({ id: "c", rlimits: [{ type: "nofile", hard: 2n ** 64n }] })],
      more: false,
    };
    expect(() => generated(request)).toThrow("value provided for field message.hard of type uint64 too large");
    expect(() => encodeSynchronizeRequest(request)).toThrow(
      "value provided for field message.hard of type uint64 too large",
    );
  });
});
