import type { DeepPartial } from "@nri-ts/api";
import {
  type ContainerAdjustment,
  CreateContainerRequest,
  CreateContainerResponse,
  StopContainerResponse,
} from "@nri-ts/api";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { CreateContainerResult } from "../create-container-result.js";
import { CreationUpdateError } from "./merge-updates.js";
import { ConflictError } from "./owners.js";
import { StopContainerResult } from "../update-container-result.js";

const PLUGINS = ["00-a", "10-b", "20-c"];
const key = fc.constantFrom("x", "-x", "y", "-y", "", "-");
const int64 = fc.bigInt({ min: -(2n ** 63n), max: 2n ** 63n - 1n });
const uint64 = fc.bigInt({ min: 0n, max: 2n ** 64n - 1n });
const optional = <T>(arbitrary: fc.Arbitrary<T>) => fc.option(arbitrary, { nil: undefined });

const resources = fc.record({
  memory: optional(fc.record({ limit: optional(int64.map((value) => ({ value }))) })),
  cpu: optional(fc.record({ cpus: fc.constantFrom("", "0-1") })),
  hugepageLimits: fc.array(fc.record({ pageSize: fc.constantFrom("1M", "2M"), limit: uint64 }), { maxLength: 2 }),
  unified: fc.dictionary(key, fc.string()),
  pids: optional(fc.record({ limit: int64 })),
});

const adjustment: fc.Arbitrary<DeepPartial<ContainerAdjustment>> = fc.record({
  annotations: fc.dictionary(key, fc.string()),
  mounts: fc.array(fc.record({ destination: key, source: fc.string() }), { maxLength: 3 }),
  env: fc.array(fc.record({ key, value: fc.string() }), { maxLength: 3 }),
  args: fc.array(fc.constantFrom("", "a"), { maxLength: 2 }),
  hooks: optional(fc.record({ prestart: fc.array(fc.record({ path: fc.string() }), { maxLength: 1 }) })),
  linux: optional(
    fc.record({
      devices: fc.array(fc.record({ path: key }), { maxLength: 2 }),
      resources: optional(resources),
      namespaces: fc.array(fc.record({ type: key }), { maxLength: 2 }),
      sysctl: fc.dictionary(key, fc.string()),
      netDevices: fc.dictionary(key, fc.record({ name: fc.string() })),
      rdt: optional(fc.record({ remove: fc.boolean(), closId: optional(fc.record({ value: fc.string() })) })),
      cgroupsPath: fc.constantFrom("", "/p"),
    }),
  ),
  rlimits: fc.array(fc.record({ type: key }), { maxLength: 2 }),
  CDIDevices: fc.array(fc.record({ name: key }), { maxLength: 2 }),
});

const updates = fc.array(
  fc.record({
    containerId: fc.constantFrom("ctr0", "ctr1", "ctr2"),
    ignoreFailure: fc.boolean(),
    linux: optional(fc.record({ resources: optional(resources) })),
  }),
  { maxLength: 3 },
);

/** Every owner (every string leaf of the message) names a plugin that answered: `p`, `-p`, or `p1,p2` for hooks. */
function ownersAreKnown(owners: unknown): boolean {
  if (typeof owners === "string")
    return owners
      .replace(/^-/, "")
      .split(",")
      .every((name) => PLUGINS.includes(name));
  if (owners === null || typeof owners !== "object") return false;
  return Object.values(owners).every(ownersAreKnown);
}

describe("merge properties", () => {
  it("fails only with typed errors, and leaves a reply that encodes and owners that name plugins", () => {
    fc.assert(
      fc.property(
        fc.array(fc.option(fc.record({ adjust: optional(adjustment), update: updates }), { nil: undefined }), {
          minLength: 3,
          maxLength: 3,
        }),
        (answers) => {
          const result = new CreateContainerResult(
            CreateContainerRequest.fromPartial({ container: { id: "ctr0", env: ["x=1"] } }),
          );
          try {
            for (const [i, answer] of answers.entries()) {
              result.apply(answer === undefined ? undefined : CreateContainerResponse.fromPartial(answer), PLUGINS[i]);
            }
          } catch (error) {
            expect(error instanceof ConflictError || error instanceof CreationUpdateError).toBe(true);
            return;
          }
          const response = result.response();
          const bytes = CreateContainerResponse.encode(response).finish();
          expect(CreateContainerResponse.toJSON(CreateContainerResponse.decode(bytes))).toStrictEqual(
            CreateContainerResponse.toJSON(response),
          );
          expect(ownersAreKnown(result.owners.message)).toBe(true);
          expect(response.update.every((update) => update.containerId !== "ctr0")).toBe(true);
        },
      ),
      { numRuns: 500 },
    );
  });

  it("keeps one update entry per container in first-seen order", () => {
    fc.assert(
      fc.property(fc.array(updates, { minLength: 1, maxLength: 3 }), (lists) => {
        const result = new StopContainerResult();
        const seen: string[] = [];
        for (const [i, list] of lists.entries()) {
          try {
            result.apply(StopContainerResponse.fromPartial({ update: list }), PLUGINS[i]);
          } catch (error) {
            expect(error).toBeInstanceOf(ConflictError);
            return; // the whole request fails
          }
          for (const update of list) if (!seen.includes(update.containerId)) seen.push(update.containerId);
        }
        expect(result.response().update.map((update) => update.containerId)).toStrictEqual(seen);
      }),
      { numRuns: 300 },
    );
  });
});
