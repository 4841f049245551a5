import { ContainerAdjustment, Mount, PodSandbox } from "@nri-ts/api";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import {
  CGROUPS_MOUNT,
  CgroupMountError,
  readWriteOptions,
  WRITABLE_CGROUPS_ANNOTATION,
  writableCgroupsAdjustment,
} from "./writable-cgroups.js";

const cgroup = (...options: string[]) =>
  Mount.fromPartial({ destination: CGROUPS_MOUNT, type: "cgroup", source: "cgroup", options });
const ro = cgroup("ro", "nosuid", "noexec", "nodev", "nsdelegate");
const pod = (annotations: Record<string, string>) =>
  PodSandbox.fromPartial({ name: "web", namespace: "shop", annotations });
const adjust = (annotations: Record<string, string>, mounts: Mount[] = [ro], hostNsDelegate = true) =>
  writableCgroupsAdjustment({ pod: pod(annotations), container: { name: "app", mounts }, hostNsDelegate });

/** The adjustment replacing the cgroup mount with one having these options. */
const replaced = (...options: string[]) =>
  ContainerAdjustment.fromPartial({
    mounts: [
      { destination: CGROUPS_MOUNT, type: "cgroup", source: "cgroup", options },
      { destination: `-${CGROUPS_MOUNT}` },
    ],
  });

const on = { [WRITABLE_CGROUPS_ANNOTATION]: "true" };

// The CreateContainer cases of the Go plugin's tests (nil pods and containers do not reach a TypeScript handler).
describe("writableCgroupsAdjustment", () => {
  it("does nothing without the annotation", () => {
    expect(adjust({})).toBeUndefined();
  });

  it("does nothing when the annotation is false", () => {
    expect(adjust({ [WRITABLE_CGROUPS_ANNOTATION]: "false" })).toBeUndefined();
  });

  it("fails a container without a cgroup mount, with the Go plugin's error", () => {
    expect(() => adjust(on, [])).toThrow(
      new CgroupMountError("no /sys/fs/cgroup mount found to modify, this is unexpected"),
    );
  });

  it("replaces a read-only cgroup mount with a read-write one", () => {
    expect(adjust(on)).toEqual(replaced("nosuid", "noexec", "nodev", "nsdelegate", "rw"));
  });

  it("takes the pod-scoped key", () => {
    expect(adjust({ [`${WRITABLE_CGROUPS_ANNOTATION}/pod`]: "true" })).toEqual(
      replaced("nosuid", "noexec", "nodev", "nsdelegate", "rw"),
    );
  });

  it("leaves a read-write mount alone", () => {
    expect(adjust(on, [cgroup("rw", "nosuid", "nodev")])).toBeUndefined();
  });

  it("adds rw to a mount that says neither ro nor rw", () => {
    expect(adjust(on, [cgroup("nosuid", "noexec")])).toEqual(replaced("nosuid", "noexec", "rw"));
  });

  it("takes the container-scoped key", () => {
    expect(adjust({ [`${WRITABLE_CGROUPS_ANNOTATION}/container.app`]: "true" })).toEqual(
      replaced("nosuid", "noexec", "nodev", "nsdelegate", "rw"),
    );
  });

  it("lets the container's false beat the pod's true", () => {
    expect(
      adjust({ [WRITABLE_CGROUPS_ANNOTATION]: "true", [`${WRITABLE_CGROUPS_ANNOTATION}/container.app`]: "false" }),
    ).toBeUndefined();
  });

  it("ignores another container's key", () => {
    expect(adjust({ [`${WRITABLE_CGROUPS_ANNOTATION}/container.db`]: "true" })).toBeUndefined();
  });

  it("ignores the request when the host lacks nsdelegate, and says so", () => {
    const warnings: unknown[] = [];
    const logger = {
      debug: () => {},
      info: () => {},
      error: () => {},
      warn: (msg: unknown) => void warnings.push(msg),
    };
    expect(
      writableCgroupsAdjustment(
        { pod: pod(on), container: { name: "app", mounts: [ro] }, hostNsDelegate: false },
        logger,
      ),
    ).toBeUndefined();
    expect(warnings).toEqual([
      "cgroup mount on host does not have 'nsdelegate' option; ignoring request to make cgroups writable",
    ]);
  });
});

describe("the details", () => {
  it("wants exactly true: not True, not 1, not yes", () => {
    for (const value of ["True", "TRUE", "1", "yes", " true", ""])
      expect(adjust({ [WRITABLE_CGROUPS_ANNOTATION]: value })).toBeUndefined();
  });

  it("drops every ro, keeps every rw and the rest in order", () => {
    expect(readWriteOptions(["ro", "x", "ro", "rw", "rw"])).toEqual(["x", "rw", "rw"]);
    expect(readWriteOptions([])).toEqual(["rw"]);
    expect(readWriteOptions(["rw"])).toBeUndefined();
  });

  it("uses the first /sys/fs/cgroup mount, keeping its source and type", () => {
    const first = Mount.fromPartial({ destination: CGROUPS_MOUNT, type: "cgroup2", source: "none", options: ["ro"] });
    expect(adjust(on, [Mount.fromPartial({ destination: "/data" }), first, ro])?.mounts[0]).toEqual(
      Mount.fromPartial({ destination: CGROUPS_MOUNT, type: "cgroup2", source: "none", options: ["rw"] }),
    );
  });

  it("gives an adjustment, nothing, or the one CgroupMountError, for any annotations and mounts", () => {
    const options = fc.array(fc.constantFrom("ro", "rw", "nosuid", "nodev", "noexec", "nsdelegate", ""), {
      maxLength: 5,
    });
    const mount = fc.record({
      destination: fc.constantFrom(CGROUPS_MOUNT, "/data", "/sys/fs/cgroup/"),
      type: fc.string(),
      source: fc.string(),
      options,
    });
    const key = fc.constantFrom(
      WRITABLE_CGROUPS_ANNOTATION,
      `${WRITABLE_CGROUPS_ANNOTATION}/pod`,
      `${WRITABLE_CGROUPS_ANNOTATION}/container.app`,
      "x",
    );
    fc.assert(
      fc.property(
        fc.dictionary(key, fc.oneof(fc.constant("true"), fc.string())),
        fc.array(mount, { maxLength: 3 }),
        fc.boolean(),
        (annotations, mounts, ns) => {
          try {
            const result = adjust(
              annotations,
              mounts.map((m) => Mount.fromPartial(m)),
              ns,
            );
            if (result !== undefined)
              expect(result.mounts.map((m) => m.destination)).toEqual([CGROUPS_MOUNT, `-${CGROUPS_MOUNT}`]);
          } catch (error) {
            expect(error).toBeInstanceOf(CgroupMountError);
          }
        },
      ),
    );
  });
});
