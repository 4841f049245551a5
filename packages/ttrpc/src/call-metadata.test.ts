import fc from "fast-check";
import { Metadata } from "nice-grpc-common";
import { describe, expect, it } from "vitest";
import { CallMetadata } from "./call-metadata.js";

const key = fc.oneof(fc.constantFrom("a", "A", "b", "x-bin", "X-Bin", "bad key"), fc.string({ maxLength: 5 }));
const value = fc.oneof(fc.constantFrom("1", "two", "é"), fc.string({ maxLength: 5 }), fc.uint8Array({ maxLength: 3 }));
const operation = fc.oneof(
  fc.record({ op: fc.constant("set" as const), key, value: fc.oneof(value, fc.array(value, { maxLength: 3 })) }),
  fc.record({ op: fc.constant("append" as const), key, value }),
  fc.record({ op: fc.constant("delete" as const), key }),
);

type Value = string | Uint8Array;
type Step =
  | { op: "set"; key: string; value: Value | Value[] }
  | { op: "append"; key: string; value: Value }
  | { op: "delete"; key: string };

/** Applies one change; returns the error text if it threw. */
function apply(metadata: Metadata, step: Step): string | undefined {
  try {
    if (step.op === "set") metadata.set(step.key, step.value);
    else if (step.op === "append") metadata.append(step.key, step.value);
    else metadata.delete(step.key);
    return undefined;
  } catch (error) {
    return (error as Error).message;
  }
}

describe("CallMetadata", () => {
  it("behaves as nice-grpc-common's Metadata for any sequence of changes", () => {
    fc.assert(
      fc.property(fc.array(operation, { maxLength: 12 }), fc.array(key, { maxLength: 4 }), (steps, probes) => {
        const ours = new CallMetadata();
        const theirs = Metadata();
        for (const step of steps) expect(apply(ours, step)).toEqual(apply(theirs, step));
        expect([...ours]).toEqual([...theirs]);
        for (const probe of probes) {
          expect(ours.get(probe)).toEqual(theirs.get(probe));
          expect(ours.getAll(probe)).toEqual(theirs.getAll(probe));
          expect(ours.has(probe)).toBe(theirs.has(probe));
        }
      }),
    );
  });
});
