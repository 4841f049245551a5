import {
  type DeepPartial,
  Field,
  type LinuxResources,
  type OwningPlugins,
  StopContainerRequest,
  UpdateContainerRequest,
  type ValidateContainerAdjustmentRequest,
} from "@nri-ts/api";
import { afterEach, describe, expect, test } from "vitest";
import type { MergeEvent } from "./adaptation.js";
import type { BuiltinHandlers } from "./transport/builtin-plugin.js";
import { ConflictError } from "./merge/owners.js";
import { container, createRequest, pod, TestRuntime } from "./testing/runtime.js";
import { ValidatorRejectedError } from "./validation/validation.js";

let runtime: TestRuntime | undefined;

afterEach(async () => {
  await runtime?.close();
  runtime = undefined;
});

/** An adaptation with in-process plugins, recording what `onMerge` hears. */
async function observed(
  plugins: Record<string, BuiltinHandlers>,
): Promise<{ runtime: TestRuntime; events: MergeEvent[] }> {
  const events: MergeEvent[] = [];
  runtime = await TestRuntime.create({
    externalConnections: false,
    onMerge: (event) => events.push(event),
    builtinPlugins: Object.entries(plugins).map(([fullName, handlers]) => {
      const [index, name] = fullName.split("-");
      return { index, name, handlers };
    }),
  });
  await runtime.adaptation.start();
  return { runtime, events };
}

function memory(limit: bigint): DeepPartial<LinuxResources> {
  return { memory: { limit: { value: limit } } };
}

function shares(value: bigint): DeepPartial<LinuxResources> {
  return { cpu: { shares: { value } } };
}

describe("onMerge", () => {
  test("hears a CreateContainer's owners, removal takeovers included: the validators' OwningPlugins", async () => {
    const validated: ValidateContainerAdjustmentRequest[] = [];
    const { runtime, events } = await observed({
      "10-alpha": {
        createContainer: () => ({
          adjust: {
            annotations: { "example.com/owner": "alpha" },
            env: [{ key: "GREETING", value: "alpha" }],
            linux: { resources: memory(1n << 30n) },
          },
          update: [{ containerId: "side", linux: { resources: memory(64n << 20n) } }],
        }),
      },
      "20-beta": {
        createContainer: () => ({
          adjust: {
            // Removing and setting takes the annotation over; removing the env variable owns it as removed.
            annotations: { "-example.com/owner": "", "example.com/owner": "beta" },
            env: [{ key: "-GREETING", value: "" }],
            linux: { resources: shares(512n) },
          },
          update: [{ containerId: "side", linux: { resources: shares(256n) } }],
        }),
      },
      "30-judge": {
        validateContainerAdjustment: (request) => {
          validated.push(request);
        },
      },
    });
    const request = createRequest("pod0", "ctr0");

    const response = await runtime.adaptation.createContainer(request);

    const expected: OwningPlugins = {
      owners: {
        ctr0: {
          simple: { [Field.MemLimit]: "10-alpha", [Field.CPUShares]: "20-beta" },
          compound: {
            [Field.Annotations]: { owners: { "example.com/owner": "20-beta" } },
            [Field.Env]: { owners: { GREETING: "-20-beta" } },
          },
        },
        side: { simple: { [Field.MemLimit]: "10-alpha", [Field.CPUShares]: "20-beta" }, compound: {} },
      },
    };
    expect(events).toHaveLength(1);
    const [event] = events;
    // The operation and the error narrow the event to a merged CreateContainer.
    if (event.operation !== "CreateContainer" || event.error)
      throw new Error(`not a merged CreateContainer: ${event.operation}`);
    expect(event.request).toBe(request);
    expect(event.response).toBe(response);
    expect(event.owners).toEqual(expected);
    expect(validated.map((v) => v.owners)).toEqual([expected]);
    expect(event.response.adjust?.annotations).toEqual({ "-example.com/owner": "", "example.com/owner": "beta" });
    expect(event.response.update.map((u) => u.containerId)).toEqual(["side"]);
  });

  test("hears an UpdateContainer's owners for the requested container and the others", async () => {
    const { runtime, events } = await observed({
      "10-alpha": {
        updateContainer: () => ({
          update: [
            { containerId: "ctr0", linux: { resources: memory(1n << 30n) } },
            { containerId: "side", linux: { resources: shares(128n) } },
          ],
        }),
      },
      "20-beta": {
        updateContainer: () => ({
          update: [
            { containerId: "ctr0", linux: { resources: { ...shares(1024n), unified: { "memory.high": "max" } } } },
            { containerId: "third", linux: { resources: memory(32n << 20n) } },
          ],
        }),
      },
    });
    const request = UpdateContainerRequest.fromPartial({
      pod: pod("pod0"),
      container: container("ctr0", "pod0"),
      linuxResources: memory(256n << 20n),
    });

    const response = await runtime.adaptation.updateContainer(request);

    expect(events).toHaveLength(1);
    const [event] = events;
    expect(event).toMatchObject({ operation: "UpdateContainer", request, response });
    expect(event.owners).toEqual({
      owners: {
        ctr0: {
          simple: { [Field.MemLimit]: "10-alpha", [Field.CPUShares]: "20-beta" },
          compound: { [Field.CgroupsUnified]: { owners: { "memory.high": "20-beta" } } },
        },
        side: { simple: { [Field.CPUShares]: "10-alpha" }, compound: {} },
        third: { simple: { [Field.MemLimit]: "20-beta" }, compound: {} },
      },
    });
    expect(response.update.map((u) => u?.containerId)).toEqual(["side", "third", "ctr0"]);
  });

  test("hears a StopContainer's owners", async () => {
    const { runtime, events } = await observed({
      "10-alpha": {
        stopContainer: () => ({ update: [{ containerId: "side", linux: { resources: shares(2048n) } }] }),
      },
    });
    const request = StopContainerRequest.fromPartial({ pod: pod("pod0"), container: container("ctr0", "pod0") });

    const response = await runtime.adaptation.stopContainer(request);

    expect(events).toEqual([
      {
        operation: "StopContainer",
        request,
        response,
        owners: { owners: { side: { simple: { [Field.CPUShares]: "10-alpha" }, compound: {} } } },
      },
    ]);
  });

  test("hears a failed request with its error and the owners as far as the merge got", async () => {
    const { runtime, events } = await observed({
      "10-alpha": { createContainer: () => ({ adjust: { linux: { resources: shares(512n) } } }) },
      "20-beta": { createContainer: () => ({ adjust: { linux: { resources: shares(1024n) } } }) },
    });

    const failure = await runtime.adaptation
      .createContainer(createRequest("pod0", "ctr0"))
      .catch((error: unknown) => error);

    expect(failure).toBeInstanceOf(ConflictError);
    expect(events).toHaveLength(1);
    expect(events[0].operation).toBe("CreateContainer");
    expect(events[0].response).toBeUndefined();
    expect(events[0].error).toBe(failure);
    expect(events[0].owners).toEqual({ owners: { ctr0: { simple: { [Field.CPUShares]: "10-alpha" }, compound: {} } } });
  });

  test("hears a rejection by a validator as the request's error", async () => {
    const { runtime, events } = await observed({
      "10-alpha": { createContainer: () => ({ adjust: { env: [{ key: "MODE", value: "debug" }] } }) },
      "30-strict": {
        validateContainerAdjustment: () => {
          throw new Error("no env changes allowed");
        },
      },
    });

    await expect(runtime.adaptation.createContainer(createRequest("pod0", "ctr0"))).rejects.toThrow(
      'validator "30-strict" rejected container adjustment, reason: no env changes allowed',
    );
    expect(events).toHaveLength(1);
    expect(events[0].error).toBeInstanceOf(ValidatorRejectedError);
    expect(events[0].owners).toEqual({
      owners: { ctr0: { simple: {}, compound: { [Field.Env]: { owners: { MODE: "10-alpha" } } } } },
    });
  });

  test("that throws is logged; the request goes on", async () => {
    runtime = await TestRuntime.create({
      externalConnections: false,
      onMerge: () => {
        throw new Error("observer broke");
      },
    });
    await runtime.adaptation.start();

    await expect(runtime.adaptation.createContainer(createRequest("pod0", "ctr0"))).resolves.toMatchObject({
      update: [],
    });
    expect(
      runtime.log.filter((line) => line.level === "error").map((line) => [line.message, line.fields?.operation]),
    ).toEqual([["NRI merge observer failed: observer broke", "CreateContainer"]]);
  });
});
