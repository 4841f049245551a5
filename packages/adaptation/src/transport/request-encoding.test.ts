import { Container, PluginDefinition, PodSandbox } from "@nri-ts/api";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import type { PluginMethod } from "./plugin-transport.js";
import { encodePluginRequest, POD_AND_CONTAINER_METHODS } from "./request-encoding.js";
import { text } from "../testing/arbitraries.js";

const map = fc.dictionary(text, text, { maxKeys: 3 });
const pod = fc
  .record(
    {
      id: text,
      name: text,
      labels: map,
      annotations: map,
      linux: fc.record({ cgroupsPath: text }),
      ips: fc.array(text, { maxLength: 2 }),
    },
    { requiredKeys: [] },
  )
  .map((partial) => PodSandbox.fromPartial(partial));
const container = fc
  .record(
    {
      id: text,
      annotations: map,
      env: fc.array(text, { maxLength: 3 }),
      mounts: fc.array(fc.record({ destination: text, options: fc.array(text, { maxLength: 2 }) }), { maxLength: 2 }),
      linux: fc.record({ cgroupsPath: text, oomScoreAdj: fc.record({ value: fc.integer({ min: -1000, max: 1000 }) }) }),
      createdAt: fc.bigInt({ min: -(2n ** 63n), max: 2n ** 63n - 1n }),
      exitCode: fc.integer({ min: -(2 ** 31), max: 2 ** 31 - 1 }),
    },
    { requiredKeys: [] },
  )
  .map((partial) => Container.fromPartial(partial));

const generated = <K extends PluginMethod>(method: K, request: unknown) =>
  Buffer.from(
    (PluginDefinition.methods[method].requestType as { encode(m: unknown): { finish(): Uint8Array } })
      .encode(request)
      .finish(),
  );

describe("encodePluginRequest", () => {
  it("knows which requests hold a pod and a container and nothing else", () => {
    const podAndContainer = Object.entries(PluginDefinition.methods)
      .filter(([, method]) => {
        const fields = Object.keys((method.requestType as { create(): object }).create());
        return fields.length === 2 && fields[0] === "pod" && fields[1] === "container";
      })
      .map(([name]) => name);
    expect([...POD_AND_CONTAINER_METHODS].sort()).toEqual(podAndContainer.sort());
  });

  it("writes the generated encoder's bytes for every request of a pod and a container", () => {
    fc.assert(
      fc.property(
        fc.constantFrom(...POD_AND_CONTAINER_METHODS),
        fc.option(pod, { nil: undefined }),
        fc.option(container, { nil: undefined }),
        (method, p, c) => {
          const request = { pod: p, container: c };
          expect(Buffer.from(encodePluginRequest(method, request))).toEqual(generated(method, request));
        },
      ),
      { numRuns: 200 },
    );
  });

  it("leaves a value not of its declared type to the generated encoder: the same coercion, the same error", () => {
    const coerced = {
      pod: { ...PodSandbox.fromPartial({ id: "p" }), name: 7 as unknown as string },
      container: Container.fromPartial({ id: "c" }),
    };
    expect(Buffer.from(encodePluginRequest("createContainer", coerced))).toEqual(generated("createContainer", coerced));
    const negative = {
      pod: PodSandbox.fromPartial({ id: "p" }),
      container: { ...Container.fromPartial({ id: "c" }), pid: -1 },
    };
    expect(() => generated("startContainer", negative)).toThrow("invalid uint32: -1");
    expect(() => encodePluginRequest("startContainer", negative)).toThrow("invalid uint32: -1");
  });
});
