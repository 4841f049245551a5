import type { Container, PodSandbox, SynchronizeRequest, SynchronizeResponse } from "@nri-ts/api";
import { OversizedMessageError } from "@nri-ts/ttrpc";
import fc from "fast-check";
import { ClientError, Status } from "nice-grpc-common";
import { describe, expect, test } from "vitest";
import { SyncError, splitAfterRefusal, synchronizeInPages } from "./sync-paging.js";
import { container, pod } from "../testing/runtime.js";

/** What the ttrpc client throws for a request it refuses to send. */
function refusal(rejectedLength: number): ClientError {
  const error = new ClientError("/nri.pkg.api.v1alpha1.Plugin/Synchronize", Status.RESOURCE_EXHAUSTED, "too big");
  error.cause = new OversizedMessageError(rejectedLength);
  return error;
}

const MAX = 4 << 20;

describe("splitAfterRefusal", () => {
  test("shrinks both counts by the ratio of the limit to the refused length", () => {
    expect(splitAfterRefusal({ pods: 100, containers: 1000 }, refusal(2 * MAX))).toEqual({ pods: 50, containers: 500 });
  });

  test("shrinks by at least a tenth", () => {
    expect(splitAfterRefusal({ pods: 100, containers: 1000 }, refusal(MAX + 1))).toEqual({ pods: 90, containers: 900 });
  });

  test("falls back to 4 and 4 below 8 objects", () => {
    expect(splitAfterRefusal({ pods: 2, containers: 8 }, refusal(2 * MAX))).toEqual({ pods: 4, containers: 4 });
  });

  test("gives up at 8 objects or fewer", () => {
    expect(() => splitAfterRefusal({ pods: 4, containers: 4 }, refusal(2 * MAX))).toThrow(
      new SyncError("failed to synchronize plugin with split messages"),
    );
  });

  test("a ResourceExhausted answer from the plugin is no reason to split", () => {
    const answer = new ClientError("/x/Synchronize", Status.RESOURCE_EXHAUSTED, "plugin says no");
    expect(() => splitAfterRefusal({ pods: 100, containers: 100 }, answer)).toThrow(
      new SyncError("failed to synchronize plugin with split messages"),
    );
  });

  test("any other error is thrown as it is", () => {
    const other = new ClientError("/x/Synchronize", Status.UNAVAILABLE, "ttrpc: closed");
    expect(() => splitAfterRefusal({ pods: 100, containers: 100 }, other)).toThrow(other);
  });
});

/**
 * A plugin behind a link that refuses messages of more than `capacity`
 * objects (each object 1 KiB of wire), answering pages as the Go stub does.
 */
function link(capacity: number) {
  const pages: SynchronizeRequest[] = [];
  const send = async (request: SynchronizeRequest): Promise<SynchronizeResponse> => {
    const objects = request.pods.length + request.containers.length;
    if (objects > capacity) throw refusal(Math.max(MAX + 1, Math.ceil((objects / capacity) * MAX)));
    pages.push(request);
    return { update: [], more: request.more };
  };
  return { pages, send };
}

function state(pods: number, containers: number): { pods: PodSandbox[]; containers: Container[] } {
  return {
    pods: Array.from({ length: pods }, (_, i) => pod(`pod${i}`)),
    containers: Array.from({ length: containers }, (_, i) => container(`ctr${i}`, "pod0")),
  };
}

describe("synchronizeInPages", () => {
  test("sends everything at once when it fits", async () => {
    const { pages, send } = link(100);
    const { pods, containers } = state(3, 5);
    await synchronizeInPages(send, pods, containers);
    expect(pages).toEqual([{ pods, containers, more: false }]);
  });

  test("pages run out of pods and containers independently; only the last has more=false", async () => {
    const { pages, send } = link(10);
    const { pods, containers } = state(2, 30);
    await synchronizeInPages(send, pods, containers);
    // the split leaves 0 pods and 9 containers per page; the pods go last
    expect(pages.map((page) => [page.pods.length, page.containers.length, page.more])).toEqual([
      [0, 9, true],
      [0, 9, true],
      [0, 9, true],
      [0, 3, true],
      [2, 0, false],
    ]);
    expect(pages.flatMap((page) => page.pods)).toEqual(pods);
    expect(pages.flatMap((page) => page.containers)).toEqual(containers);
  });

  test("the 4-and-4 fallback never reaches past what remains (Go panics there)", async () => {
    const { pages, send } = link(8);
    const { pods, containers } = state(1, 9);
    await synchronizeInPages(send, pods, containers);
    expect(pages.map((page) => [page.pods.length, page.containers.length, page.more])).toEqual([
      [1, 4, true],
      [0, 4, true],
      [0, 1, false],
    ]);
  });

  test("a plugin that answers a page without more is refused", async () => {
    const { pods, containers } = state(0, 20);
    const send = async (request: SynchronizeRequest): Promise<SynchronizeResponse> => {
      if (request.containers.length > 10) throw refusal(2 * MAX);
      return { update: [], more: false };
    };
    await expect(synchronizeInPages(send, pods, containers)).rejects.toThrow(
      new SyncError("plugin does not handle split sync requests"),
    );
  });

  test("a plugin that answers a page with updates is refused", async () => {
    const { pods, containers } = state(0, 20);
    const send = async (request: SynchronizeRequest): Promise<SynchronizeResponse> => {
      if (request.containers.length > 10) throw refusal(2 * MAX);
      return { update: [{ containerId: "ctr0", linux: undefined, ignoreFailure: false }], more: true };
    };
    await expect(synchronizeInPages(send, pods, containers)).rejects.toThrow(
      new SyncError("plugin does not handle split sync requests"),
    );
  });

  test("the last page's updates are the answer", async () => {
    const { pods, containers } = state(0, 20);
    const updates = [{ containerId: "ctr3", linux: undefined, ignoreFailure: true }];
    const send = async (request: SynchronizeRequest): Promise<SynchronizeResponse> => {
      if (request.containers.length > 10) throw refusal(2 * MAX);
      return request.more ? { update: [], more: true } : { update: updates, more: false };
    };
    await expect(synchronizeInPages(send, pods, containers)).resolves.toEqual(updates);
  });

  test("property: with room for 8 objects, every object arrives exactly once, in order", async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.integer({ min: 0, max: 60 }),
        fc.integer({ min: 0, max: 300 }),
        fc.integer({ min: 8, max: 400 }),
        async (podCount, containerCount, capacity) => {
          const { pages, send } = link(capacity);
          const { pods, containers } = state(podCount, containerCount);
          await synchronizeInPages(send, pods, containers);
          expect(pages.flatMap((page) => page.pods)).toEqual(pods);
          expect(pages.flatMap((page) => page.containers)).toEqual(containers);
          expect(pages.map((page) => page.more)).toEqual(pages.map((_, index) => index < pages.length - 1));
        },
      ),
      { numRuns: 200 },
    );
  });

  test("property: when even 4 objects do not fit, it fails cleanly instead of looping", async () => {
    await fc.assert(
      fc.asyncProperty(fc.integer({ min: 9, max: 200 }), fc.integer({ min: 1, max: 3 }), async (count, capacity) => {
        const { send } = link(capacity);
        const { pods, containers } = state(0, count);
        await expect(synchronizeInPages(send, pods, containers)).rejects.toThrow(SyncError);
      }),
      { numRuns: 50 },
    );
  });
});
