import { describe, expect, it } from "vitest";
import { parseCdiDevices, parseDevices, parseMounts } from "./parse.js";

/**
 * The seven situations upstream's tests cover for devices, CDI devices and
 * mounts, for each kind: which key wins. Losing keys hold broken YAML, so a
 * key read when it should not be fails the test.
 */
const BROKEN = "- {{";

function precedenceCases<T>(prefix: string, legacy: string, first: [string, T[]], second: [string, T[]]) {
  const [one, oneValue] = first;
  const [two, twoValue] = second;
  return [
    ["no annotation of its own", { foo: "bar" }, []],
    ["one or more entries for the container", { [`${prefix}/container.ctr0`]: one }, oneValue],
    ["several entries", { [`${prefix}/container.ctr0`]: `${one}\n${two}` }, [...oneValue, ...twoValue]],
    ["another container's key is ignored", { [`${prefix}/container.ctr1`]: one }, []],
    [
      "the current prefix beats the legacy one at the same level",
      { [`${prefix}/container.ctr0`]: one, [`${legacy}/container.ctr0`]: BROKEN },
      oneValue,
    ],
    [
      "the container's key beats the pod's",
      { [`${prefix}/container.ctr0`]: one, [`${prefix}/pod`]: BROKEN, [prefix]: BROKEN },
      oneValue,
    ],
    [
      "a legacy container key beats a current pod key",
      { [`${legacy}/container.ctr0`]: two, [`${prefix}/pod`]: BROKEN, [prefix]: BROKEN, [legacy]: BROKEN },
      twoValue,
    ],
  ] as [string, Record<string, string>, T[]][];
}

const device = (path: string, minor: bigint) => ({ path, type: "c", major: 1n, minor, file_mode: 0, uid: 0, gid: 0 });
const mount = (source: string, destination: string) => ({ source, destination, type: "bind", options: ["bind", "ro"] });

describe("parseDevices", () => {
  it.each(
    precedenceCases(
      "devices.noderesource.dev",
      "devices.nri.io",
      ["- path: /dev/test-null\n  type: c\n  major: 1\n  minor: 3", [device("/dev/test-null", 3n)]],
      ["- {path: /dev/test-zero, type: c, major: 1, minor: 5}", [device("/dev/test-zero", 5n)]],
    ),
  )("%s", (_name, annotations, expected) => {
    expect(parseDevices("ctr0", annotations)).toEqual(expected);
  });

  it("reads modes, owners and numbers as Go does (octal 0644, keys in any case)", () => {
    expect(
      parseDevices("c", {
        "devices.noderesource.dev/pod": "- {Path: /dev/x, major: 0x10, minor: 1_0, file_mode: 0644, UID: 1000, gid: 5}",
      }),
    ).toEqual([{ path: "/dev/x", type: "", major: 16n, minor: 10n, file_mode: 420, uid: 1000, gid: 5 }]);
  });

  it("fails with the Go plugin's text, quoting the annotation", () => {
    expect(() => parseDevices("c", { "devices.noderesource.dev": "- {path: /dev/x, uid: -1}" })).toThrow(
      'invalid device annotation "- {path: /dev/x, uid: -1}": error unmarshaling JSON: while decoding JSON: json: cannot unmarshal number -1 into Go struct field device.uid of type uint32',
    );
  });
});

describe("parseCdiDevices", () => {
  it.each(
    precedenceCases(
      "cdi-devices.noderesource.dev",
      "cdi-devices.nri.io",
      ["- vendor0.com/dev=dev0", ["vendor0.com/dev=dev0"]],
      ["- vendor1.com/dev=dev1", ["vendor1.com/dev=dev1"]],
    ),
  )("%s", (_name, annotations, expected) => {
    expect(parseCdiDevices("ctr0", annotations)).toEqual(expected);
  });
});

describe("parseMounts", () => {
  it.each(
    precedenceCases(
      "mounts.noderesource.dev",
      "mounts.nri.io",
      [
        "- source: /home\n  destination: /host-home\n  type: bind\n  options: [bind, ro]",
        [mount("/home", "/host-home")],
      ],
      ["- {source: /srv, destination: /data, type: bind, options: [bind, ro]}", [mount("/srv", "/data")]],
    ),
  )("%s", (_name, annotations, expected) => {
    expect(parseMounts("ctr0", annotations)).toEqual(expected);
  });

  it("takes an empty value as no mounts, and the bare prefix as the least specific key", () => {
    expect(parseMounts("c", { "mounts.noderesource.dev/container.c": "", "mounts.noderesource.dev": BROKEN })).toEqual(
      [],
    );
    expect(parseMounts("c", { "mounts.nri.io": "- {source: /a, destination: /b}" })).toEqual([
      { source: "/a", destination: "/b", type: "", options: [] },
    ]);
  });
});
