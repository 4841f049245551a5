import type { ContainerUpdate as Update, DeepPartial } from "@nri-ts/api";
import {
  ContainerUpdate,
  CreateContainerRequest,
  CreateContainerResponse,
  Field,
  type LinuxResources,
  StopContainerResponse,
  UpdateContainerRequest,
  UpdateContainerResponse,
} from "@nri-ts/api";
import { describe, expect, it } from "vitest";
import { CreateContainerResult } from "../create-container-result.js";
import { CreationUpdateError } from "./merge-updates.js";
import { StopContainerResult, UpdateContainerResult } from "../update-container-result.js";
import { type MockResourceSubject, mockResources } from "../testing/upstream-mock-resources.js";

/**
 * Updates merged during CreateContainer, UpdateContainer and StopContainer:
 * upstream "Plugin container updates during creation" and "Solicited
 * container updates by plugins" (suite #28-#31), plus the rules around them.
 * Entries are compared as canonical JSON (Go's Strip: empty equals absent).
 */

type ResourcesInput = DeepPartial<LinuxResources>;

const json = (update: Update | null | undefined) => (update == null ? update : ContainerUpdate.toJSON(update));
const entry = (containerId: string, resources: ResourcesInput, ignoreFailure = false) =>
  ContainerUpdate.toJSON(
    ContainerUpdate.fromPartial({
      containerId,
      ignoreFailure,
      linux: { resources: { memory: {}, cpu: {}, ...resources } },
    }),
  );
const update = (containerId: string, resources?: ResourcesInput, ignoreFailure = false) =>
  ContainerUpdate.fromPartial({
    containerId,
    ignoreFailure,
    linux: resources === undefined ? undefined : { resources },
  });

/** The updates upstream's mock plugin `plugin` sends for a subject ("resources/cpu", ...). */
const subjectResources = (subject: string, plugin: string): ResourcesInput =>
  mockResources(subject.replace("resources/", "") as MockResourceSubject, plugin);

const SUBJECTS = [
  "resources/cpu",
  "resources/memory",
  "resources/classes",
  "resources/hugepagelimits",
  "resources/unified",
];

describe("updates during creation (suite #28, #29)", () => {
  const creating = () =>
    new CreateContainerResult(CreateContainerRequest.fromPartial({ container: { id: "ctr1", name: "ctr1" } }));

  it.each(SUBJECTS)("collects a single plugin's %s update of another container as exactly its fields", (subject) => {
    const result = creating();
    result.apply(
      CreateContainerResponse.fromPartial({ update: [update("ctr0", subjectResources(subject, "00-test"))] }),
      "00-test",
    );
    const { update: updates } = result.response();
    expect(updates.map(json)).toStrictEqual([entry("ctr0", subjectResources(subject, "00-test"))]);
  });

  it.each(SUBJECTS)("fails when 00-bar and 10-foo both update %s", (subject) => {
    const result = creating();
    result.apply(
      CreateContainerResponse.fromPartial({ update: [update("ctr0", subjectResources(subject, "00-bar"))] }),
      "00-bar",
    );
    expect(() =>
      result.apply(
        CreateContainerResponse.fromPartial({ update: [update("ctr0", subjectResources(subject, "10-foo"))] }),
        "10-foo",
      ),
    ).toThrow(/^plugins "10-foo" and "00-bar" both tried to set /);
  });

  it.each(SUBJECTS)("collects 10-foo's %s update when only it updates", (subject) => {
    const result = creating();
    result.apply(null, "00-bar");
    result.apply(
      CreateContainerResponse.fromPartial({ update: [update("ctr0", subjectResources(subject, "10-foo"))] }),
      "10-foo",
    );
    expect(result.response().update.map(json)).toStrictEqual([entry("ctr0", subjectResources(subject, "10-foo"))]);
  });

  it("refuses an update of the container being created, even with ignoreFailure", () => {
    const result = creating();
    let error: unknown;
    try {
      result.apply(CreateContainerResponse.fromPartial({ update: [update("ctr1", undefined, true)] }), "10-foo");
    } catch (caught) {
      error = caught;
    }
    expect(error).toBeInstanceOf(CreationUpdateError);
    expect((error as Error).message).toBe('plugin "10-foo" asked update of "ctr1" during creation');
  });

  it("merges the adjustment before the updates of the same response", () => {
    const result = creating();
    expect(() =>
      result.apply(
        CreateContainerResponse.fromPartial({ adjust: { linux: { cgroupsPath: "/x" } }, update: [update("ctr1")] }),
        "00-a",
      ),
    ).toThrow(CreationUpdateError);
    expect(result.response().adjust?.linux?.cgroupsPath).toBe("/x");
  });
});

describe("update entries", () => {
  it("keep first-seen order, one per container, even without resources", () => {
    const result = new StopContainerResult();
    result.apply(
      StopContainerResponse.fromPartial({ update: [update("b"), update("a", { cpu: { cpus: "1" } })] }),
      "00-x",
    );
    result.apply(
      StopContainerResponse.fromPartial({ update: [update("a", { memory: { limit: { value: 5n } } }), update("c")] }),
      "10-y",
    );
    expect(result.response().update.map(json)).toStrictEqual([
      entry("b", {}),
      entry("a", { cpu: { cpus: "1" }, memory: { limit: { value: 5n } } }),
      entry("c", {}),
    ]);
  });

  it("AND ignoreFailure over every plugin that touched the container", () => {
    const result = new StopContainerResult();
    result.apply(
      StopContainerResponse.fromPartial({ update: [update("a", undefined, true), update("b", undefined, true)] }),
      "00-x",
    );
    result.apply(
      StopContainerResponse.fromPartial({ update: [update("a", undefined, false), update("b", undefined, true)] }),
      "10-y",
    );
    expect(result.response().update.map((u) => [u.containerId, u.ignoreFailure])).toStrictEqual([
      ["a", false],
      ["b", true],
    ]);
  });

  it("swallow a conflict of an update with ignoreFailure; the entry keeps its resources", () => {
    const result = new StopContainerResult();
    result.apply(
      StopContainerResponse.fromPartial({ update: [update("a", { cpu: { shares: { value: 1n } } })] }),
      "00-x",
    );
    result.apply(
      StopContainerResponse.fromPartial({
        update: [
          update("a", { memory: { limit: { value: 9n } }, cpu: { shares: { value: 2n } } }, true),
          update("b", { cpu: { cpus: "3" } }),
        ],
      }),
      "10-y",
    );
    expect(result.response().update.map(json)).toStrictEqual([
      entry("a", { cpu: { shares: { value: 1n } } }),
      entry("b", { cpu: { cpus: "3" } }),
    ]);
    // QUIRK (reproduced): the claim made before the conflict stays.
    expect(result.owners.owner("a", Field.MemLimit)).toBe("10-y");
  });

  it("fail on a conflict of an update without ignoreFailure", () => {
    const result = new StopContainerResult();
    result.apply(StopContainerResponse.fromPartial({ update: [update("a", { unified: { k: "1" } }, true)] }), "00-x");
    expect(() =>
      result.apply(StopContainerResponse.fromPartial({ update: [update("a", { unified: { k: "2" } })] }), "10-y"),
    ).toThrow('plugins "10-y" and "00-x" both tried to set CgroupsUnified k');
  });

  it("QUIRK: never apply a plugin's pids to another container", () => {
    const result = new StopContainerResult();
    result.apply(StopContainerResponse.fromPartial({ update: [update("a", { pids: { limit: 10n } })] }), "00-x");
    result.apply(StopContainerResponse.fromPartial({ update: [update("a", { pids: { limit: 20n } })] }), "10-y");
    expect(result.response().update[0].linux?.resources?.pids).toBeUndefined();
    expect(result.owners.owner("a", Field.PidsLimit)).toBeUndefined();
  });

  it("ignore cgroup device rules", () => {
    const result = new StopContainerResult();
    result.apply(
      StopContainerResponse.fromPartial({ update: [update("a", { devices: [{ allow: true, access: "rw" }] })] }),
      "00-x",
    );
    expect(result.response().update[0].linux?.resources?.devices).toStrictEqual([]);
  });
});

const REQUESTED: ResourcesInput = {
  cpu: {
    shares: { value: 999n },
    quota: { value: 888n },
    period: { value: 777n },
    realtimeRuntime: { value: 666n },
    realtimePeriod: { value: 555n },
    cpus: "444",
    mems: "333",
  },
  memory: {
    limit: { value: 9999n },
    reservation: { value: 8888n },
    swap: { value: 7777n },
    kernel: { value: 6666n },
    kernelTcp: { value: 5555n },
    swappiness: { value: 444n },
    disableOomKiller: { value: false },
    useHierarchy: { value: false },
  },
};

const updating = (resources: ResourcesInput | undefined = REQUESTED) =>
  new UpdateContainerResult(
    UpdateContainerRequest.fromPartial({ container: { id: "ctr0", name: "ctr0" }, linuxResources: resources }),
  );

describe("UpdateContainer (suite #30, #31)", () => {
  it.each(SUBJECTS)("overlays a single plugin's %s update on the requested resources", (subject) => {
    const result = updating();
    result.apply(
      UpdateContainerResponse.fromPartial({ update: [update("ctr0", subjectResources(subject, "00-test"))] }),
      "00-test",
    );
    expect(result.response().update.map(json)).toStrictEqual([
      entry("ctr0", { ...REQUESTED, ...subjectResources(subject, "00-test") }),
    ]);
  });

  it.each(SUBJECTS)("fails when two plugins update %s of the requested container", (subject) => {
    const result = updating();
    result.apply(
      UpdateContainerResponse.fromPartial({ update: [update("ctr0", subjectResources(subject, "00-bar"))] }),
      "00-bar",
    );
    expect(() =>
      result.apply(
        UpdateContainerResponse.fromPartial({ update: [update("ctr0", subjectResources(subject, "10-foo"))] }),
        "10-foo",
      ),
    ).toThrow(/^plugins "10-foo" and "00-bar" both tried to set /);
  });

  it("shows later plugins the merged resources and appends hugepages to them", () => {
    const result = updating();
    result.apply(
      UpdateContainerResponse.fromPartial({
        update: [update("ctr0", { hugepageLimits: [{ pageSize: "1M", limit: 1n }] })],
      }),
      "00-a",
    );
    expect(result.request.linuxResources.hugepageLimits).toStrictEqual([{ pageSize: "1M", limit: 1n }]);
    result.apply(
      UpdateContainerResponse.fromPartial({
        update: [update("ctr0", { hugepageLimits: [{ pageSize: "2M", limit: 2n }] })],
      }),
      "10-b",
    );
    expect(result.response().update.map(json)).toStrictEqual([
      entry("ctr0", {
        ...REQUESTED,
        hugepageLimits: [
          { pageSize: "1M", limit: 1n },
          { pageSize: "2M", limit: 2n },
        ],
      }),
    ]);
  });

  it("puts the requested container's entry last, after other containers", () => {
    const result = updating();
    result.apply(
      UpdateContainerResponse.fromPartial({
        update: [update("ctr0", { cpu: { cpus: "7" } }), update("ctr9", { cpu: { cpus: "8" } })],
      }),
      "00-a",
    );
    expect(result.response().update.map((u) => u?.containerId)).toStrictEqual(["ctr9", "ctr0"]);
  });

  it("QUIRK: ends the list with null when no plugin updated the requested container", () => {
    const result = updating();
    expect(result.response()).toStrictEqual({ update: [null], evict: [] });
    result.apply(UpdateContainerResponse.fromPartial({ update: [update("ctr9", { cpu: { cpus: "8" } })] }), "00-a");
    expect(result.response().update.map(json)).toStrictEqual([entry("ctr9", { cpu: { cpus: "8" } }), null]);
  });

  it("QUIRK: an update of the requested container without resources keeps empty resources", () => {
    const result = updating();
    result.apply(UpdateContainerResponse.fromPartial({ update: [update("ctr0", undefined, true)] }), "00-a");
    expect(result.response().update.map(json)).toStrictEqual([entry("ctr0", {}, true)]);
  });

  it("QUIRK: claims PidsLimit for every plugin updating a container whose request has pids", () => {
    const result = updating({ ...REQUESTED, pids: { limit: 100n } });
    result.apply(UpdateContainerResponse.fromPartial({ update: [update("ctr0", { pids: { limit: 1n } })] }), "00-a");
    expect(result.response().update.map((u) => u?.linux?.resources?.pids)).toStrictEqual([{ limit: 100n }]);
    expect(() =>
      result.apply(UpdateContainerResponse.fromPartial({ update: [update("ctr0", { cpu: { cpus: "1" } })] }), "10-b"),
    ).toThrow('plugins "10-b" and "00-a" both tried to set PidsLimit ');
  });

  it("ignores evictions and absent responses", () => {
    const result = updating();
    result.apply(undefined, "00-a");
    result.apply(UpdateContainerResponse.fromPartial({ evict: [{ containerId: "ctr0", reason: "oom" }] }), "10-b");
    expect(result.response()).toStrictEqual({ update: [null], evict: [] });
  });
});

describe("StopContainer", () => {
  it("lets plugins update the container being stopped", () => {
    const result = new StopContainerResult();
    result.apply(StopContainerResponse.fromPartial({ update: [update("ctr0", { cpu: { cpus: "0" } })] }), "00-a");
    expect(result.response().update.map(json)).toStrictEqual([entry("ctr0", { cpu: { cpus: "0" } })]);
  });

  it("answers an empty list when nobody updates", () => {
    const result = new StopContainerResult();
    result.apply(null, "00-a");
    expect(result.response()).toStrictEqual({ update: [] });
  });
});
