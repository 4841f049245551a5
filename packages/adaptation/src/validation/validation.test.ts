import type { ValidateContainerAdjustmentRequest } from "@nri-ts/api";
import { CreateContainerRequest, CreateContainerResponse, Field } from "@nri-ts/api";
import { describe, expect, it } from "vitest";
import { CreateContainerResult } from "../create-container-result.js";
import { compoundOwner } from "../merge/owners.js";
import { PLUGIN_TEXT_LIMIT } from "@nri-ts/common";
import {
  firstValidationError,
  pluginMap,
  ValidatorFailedError,
  ValidatorRejectedError,
  validationVerdict,
} from "./validation.js";

function request(): CreateContainerRequest {
  return CreateContainerRequest.fromPartial({
    pod: { id: "pod0", name: "pod0", uid: "uid0", namespace: "default" },
    container: { id: "ctr0", name: "ctr0", args: ["echo", "original"] },
  });
}

describe("the validation request", () => {
  it("holds the pod, the container before any plugin, the merged reply, all owners and every plugin", () => {
    const original = request();
    const result = new CreateContainerResult(original);
    const validation = result.startValidation();
    validation.addPlugin("default-validator", "00");
    validation.addPlugin("bar", "05");
    result.apply(
      CreateContainerResponse.fromPartial({
        adjust: { annotations: { key: "05-bar" }, args: ["changed"] },
        update: [{ containerId: "ctr9", linux: { resources: { cpu: { cpus: "1" } } } }],
      }),
      "05-bar",
    );
    validation.addPlugin("quiet", "10");
    result.apply(undefined, "10-quiet");
    const response = result.response();
    const built = validation.build(response, result.owners.message);

    expect(built.pod).toBe(original.pod);
    expect(built.container?.args).toStrictEqual(["echo", "original"]);
    expect(built.container?.annotations).toStrictEqual({});
    expect(built.container?.linux?.resources?.memory).toEqual({});
    expect(built.adjust).toBe(response.adjust);
    expect(built.update).toBe(response.update);
    expect(built.owners).toBe(result.owners.message);
    expect(compoundOwner(built.owners, "ctr0", Field.Annotations, "key")).toBe("05-bar");
    expect(built.owners?.owners.ctr9.simple[Field.CPUSetCPUs]).toBe("05-bar");
    expect(built.plugins).toStrictEqual([
      { name: "default-validator", index: "00" },
      { name: "bar", index: "05" },
      { name: "quiet", index: "10" },
    ]);
  });

  it("must start before the first response is applied", () => {
    const result = new CreateContainerResult(request());
    result.apply(undefined, "00-a");
    expect(() => result.startValidation()).toThrow("validation must start before any plugin response is applied");
  });

  it("maps plugins by full name and by bare name", () => {
    const built = {
      plugins: [
        { name: "foo", index: "00" },
        { name: "bar", index: "10" },
      ],
    } as ValidateContainerAdjustmentRequest;
    const map = pluginMap(built);
    expect([...map.keys()]).toStrictEqual(["foo", "00-foo", "bar", "10-bar"]);
    expect(map.get("10-bar")).toStrictEqual({ name: "bar", index: "10" });
    expect(map.get("bar")).toStrictEqual({ name: "bar", index: "" });
  });
});

describe("validator verdicts", () => {
  it("accepts when not rejected", () => {
    expect(validationVerdict({ reject: false, reason: "ignored" }, "10-v")).toBeUndefined();
  });

  it("words a rejection as Go does, with a default reason", () => {
    expect(validationVerdict({ reject: true, reason: "no way" }, "10-v")?.message).toBe(
      'validator "10-v" rejected container adjustment, reason: no way',
    );
    const error = validationVerdict({ reject: true, reason: "" }, "10-v");
    expect(error).toBeInstanceOf(ValidatorRejectedError);
    expect(error?.message).toBe('validator "10-v" rejected container adjustment, reason: unknown rejection reason');
  });

  it("keeps the head of a long reason, marked", () => {
    const reason = "r".repeat(PLUGIN_TEXT_LIMIT + 7);
    expect(validationVerdict({ reject: true, reason }, "10-v")?.reason).toBe(
      `${"r".repeat(PLUGIN_TEXT_LIMIT)}… [7 more bytes]`,
    );
  });

  it("words a failed call as Go does", () => {
    const error = new ValidatorFailedError("10-v", new Error("context deadline exceeded"));
    expect(error.message).toBe("validator plugin 10-v failed: context deadline exceeded");
  });
});

describe("firstValidationError", () => {
  it("waits for every validator and returns the first failure in completion order", async () => {
    const order: string[] = [];
    const later = new Promise<void>((_, reject) =>
      setTimeout(() => {
        order.push("later");
        reject(new Error("later"));
      }, 5),
    );
    const sooner = new Promise<void>((_, reject) =>
      setTimeout(() => {
        order.push("sooner");
        reject(new Error("sooner"));
      }, 1),
    );
    const slowOk = new Promise<void>((resolve) =>
      setTimeout(() => {
        order.push("ok");
        resolve();
      }, 10),
    );
    const error = await firstValidationError([later, sooner, slowOk]);
    expect(error?.message).toBe("sooner");
    expect(order).toStrictEqual(["sooner", "later", "ok"]);
  });

  it("answers undefined when every validator accepts", async () => {
    expect(await firstValidationError([Promise.resolve(), Promise.resolve("fine")])).toBeUndefined();
    expect(await firstValidationError([])).toBeUndefined();
  });
});

describe("a custom validator (suite #15)", () => {
  const forbidden = "no-no";

  /** 00-foo adds an annotation; 00-validator rejects when anyone owns the forbidden one. */
  async function create(key: string): Promise<{ error?: Error; adjust?: unknown }> {
    const result = new CreateContainerResult(request());
    const validation = result.startValidation();
    validation.addPlugin("foo", "00");
    result.apply(CreateContainerResponse.fromPartial({ adjust: { annotations: { [key]: "00-foo" } } }), "00-foo");
    validation.addPlugin("validator", "00");
    result.apply(undefined, "00-validator");
    const response = result.response();
    const built = validation.build(response, result.owners.message);
    const verdict = async () => {
      const owned = compoundOwner(built.owners, built.container?.id ?? "", Field.Annotations, forbidden) !== undefined;
      const answer = owned
        ? { reject: true, reason: `forbidden annotation "${forbidden}" adjusted` }
        : { reject: false, reason: "" };
      const rejected = validationVerdict(answer, "00-validator");
      if (rejected) throw rejected;
    };
    const error = await firstValidationError([verdict()]);
    return error ? { error } : { adjust: response.adjust?.annotations };
  }

  it("lets an allowed annotation through", async () => {
    expect(await create("key")).toStrictEqual({ adjust: { key: "00-foo" } });
  });

  it("rejects the forbidden annotation", async () => {
    const { error, adjust } = await create(forbidden);
    expect(adjust).toBeUndefined();
    expect(error?.message).toBe(
      'validator "00-validator" rejected container adjustment, reason: forbidden annotation "no-no" adjusted',
    );
  });
});
