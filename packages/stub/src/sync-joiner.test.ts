import { Container, PodSandbox, SynchronizeRequest } from "@nri-ts/api";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { SyncJoiner } from "./sync-joiner.js";

const pods = (...ids: string[]) => ids.map((id) => PodSandbox.fromPartial({ id }));
const containers = (...ids: string[]) => ids.map((id) => Container.fromPartial({ id }));
const page = (p: string[], c: string[], more: boolean) =>
  SynchronizeRequest.fromPartial({ pods: pods(...p), containers: containers(...c), more });

describe("SyncJoiner", () => {
  it("passes a single request through", () => {
    expect(new SyncJoiner().add(page(["p1"], ["c1"], false))).toEqual({
      pods: pods("p1"),
      containers: containers("c1"),
    });
  });

  it("holds pages with more set and joins them with the last, in order", () => {
    const joiner = new SyncJoiner();
    expect(joiner.add(page(["p1", "p2"], ["c1"], true))).toBeUndefined();
    expect(joiner.add(page([], ["c2", "c3"], true))).toBeUndefined();
    expect(joiner.add(page(["p3"], [], false))).toEqual({
      pods: pods("p1", "p2", "p3"),
      containers: containers("c1", "c2", "c3"),
    });
    // and starts afresh
    expect(joiner.add(page([], ["c9"], false))).toEqual({ pods: [], containers: containers("c9") });
  });

  it("joins any split of the state back into the state", () => {
    const ids = fc.array(fc.string({ maxLength: 4 }), { maxLength: 30 });
    fc.assert(
      fc.property(ids, ids, fc.array(fc.nat(), { maxLength: 10 }), (podIds, containerIds, cuts) => {
        // cut both lists at the same page boundaries, as the runtime does
        const joiner = new SyncJoiner();
        let p = 0;
        let c = 0;
        for (const cut of cuts) {
          const pageResult = joiner.add(
            page(podIds.slice(p, p + (cut % 5)), containerIds.slice(c, c + (cut % 7)), true),
          );
          expect(pageResult).toBeUndefined();
          p += cut % 5;
          c += cut % 7;
        }
        const state = joiner.add(page(podIds.slice(p), containerIds.slice(c), false));
        expect(state?.pods.map((x) => x.id)).toEqual(podIds);
        expect(state?.containers.map((x) => x.id)).toEqual(containerIds);
      }),
    );
  });
});
