import {
  Container,
  ContainerAdjustment,
  ContainerUpdate,
  PodSandbox,
  ValidateContainerAdjustmentRequest,
} from "@nri-ts/api";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { text } from "../testing/arbitraries.js";
import { CreateContainerResult } from "../create-container-result.js";
import { encodeValidationRequest } from "./validation-encoding.js";

// map<int32, ...> keys as the ownership record holds them: field numbers (0 and large ones too), or negative
const fieldKey = fc.oneof(fc.integer({ min: 0, max: 40 }), fc.integer({ min: -(2 ** 31), max: 2 ** 31 - 1 }));
const simple = fc.dictionary(fieldKey.map(String), text, { maxKeys: 6 });
const compound = fc.dictionary(fieldKey.map(String), fc.record({ owners: fc.dictionary(text, text, { maxKeys: 4 }) }), {
  maxKeys: 4,
});
const owners = fc.record({
  owners: fc.dictionary(text, fc.record({ simple, compound }), { maxKeys: 3 }),
});

const request = fc
  .record(
    {
      pod: fc
        .record({ id: text, annotations: fc.dictionary(text, text, { maxKeys: 2 }) })
        .map((p) => PodSandbox.fromPartial(p)),
      container: fc.record({ id: text, args: fc.array(text, { maxLength: 3 }) }).map((c) => Container.fromPartial(c)),
      adjust: fc
        .record({ env: fc.array(fc.record({ key: text, value: text }), { maxLength: 2 }) })
        .map((a) => ContainerAdjustment.fromPartial(a)),
      update: fc.array(
        fc.record({ containerId: text }).map((u) => ContainerUpdate.fromPartial(u)),
        { maxLength: 2 },
      ),
      owners,
      plugins: fc.array(fc.record({ name: text, index: text }), { maxLength: 5 }),
    },
    { requiredKeys: ["update", "plugins"] },
  )
  .map((partial) => partial as ValidateContainerAdjustmentRequest);

const generated = (message: ValidateContainerAdjustmentRequest) =>
  Buffer.from(ValidateContainerAdjustmentRequest.encode(message).finish());

describe("encodeValidationRequest", () => {
  it("writes the generated encoder's bytes for any request", { timeout: 120_000 }, () => {
    fc.assert(
      fc.property(request, (message) => {
        expect(Buffer.from(encodeValidationRequest(message))).toEqual(generated(message));
      }),
      { numRuns: 300 },
    );
  });

  it("writes the generated encoder's bytes for the record a merge leaves", () => {
    const result = new CreateContainerResult({
      pod: PodSandbox.fromPartial({ id: "pod0" }),
      container: Container.fromPartial({ id: "ctr0", podSandboxId: "pod0" }),
    });
    const validation = result.startValidation();
    validation.addPlugin("annotator", "10");
    validation.addPlugin("injector", "20");
    result.apply(
      {
        adjust: ContainerAdjustment.fromPartial({ annotations: { a: "1", "-b": "" }, env: [{ key: "X", value: "1" }] }),
        update: [],
        evict: [],
      },
      "10-annotator",
    );
    result.apply(
      {
        adjust: ContainerAdjustment.fromPartial({
          linux: { resources: { memory: { limit: { value: 1n << 30n } }, cpu: { shares: { value: 512n } } } },
        }),
        update: [],
        evict: [],
      },
      "20-injector",
    );
    const message = validation.build(result.response(), result.owners.message);
    expect(Object.keys(message.owners!.owners.ctr0!.simple).length).toBeGreaterThan(0);
    expect(Buffer.from(encodeValidationRequest(message))).toEqual(generated(message));
  });

  it("leaves a key that is no int32 to the generated encoder: the same error", () => {
    const message = ValidateContainerAdjustmentRequest.fromPartial({ owners: { owners: { c: { simple: {} } } } });
    (message.owners!.owners.c!.simple as Record<string, string>).x = "plugin";
    expect(() => generated(message)).toThrow("invalid int32: NaN");
    expect(() => encodeValidationRequest(message)).toThrow("invalid int32: NaN");
  });

  it("leaves a value not of its declared type to the generated encoder: the same coercion", () => {
    const message = ValidateContainerAdjustmentRequest.fromPartial({ plugins: [{ name: "a", index: "1" }] });
    (message.plugins[0] as unknown as { index: number }).index = 7;
    expect(Buffer.from(encodeValidationRequest(message))).toEqual(generated(message));
  });
});
