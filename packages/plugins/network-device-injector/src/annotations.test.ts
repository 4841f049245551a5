import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { ANNOTATION_KEYS, NetDeviceAnnotationError, netDeviceAnnotation, parseNetDevices } from "./annotations.js";

describe("the network device annotation", () => {
  it("is the first of the four keys the pod has, the pod-scoped and the current ones first", () => {
    const all = Object.fromEntries(ANNOTATION_KEYS.map((key, i) => [key, `v${i}`]));
    expect(netDeviceAnnotation(all)).toEqual({ key: "netdevice.noderesource.dev/pod", value: "v0" });
    const { "netdevice.noderesource.dev/pod": _, ...rest } = all;
    expect(netDeviceAnnotation(rest)).toEqual({ key: "netdevices.nri.containerd.io/pod", value: "v1" });
    expect(netDeviceAnnotation({ "netdevices.nri.containerd.io": "v3", "netdevice.noderesource.dev": "v2" })?.key).toBe(
      "netdevice.noderesource.dev",
    );
    // the key upstream's README shows, which its code never reads
    expect(netDeviceAnnotation({ "netdevices.noderesource.dev": "- name: x" })).toBeUndefined();
    expect(netDeviceAnnotation({ "netdevice.noderesource.dev/container.c0": "- name: x" })).toBeUndefined();
  });

  it("decodes as sigs.k8s.io/yaml into the Go plugin's type: any key case, numbers into strings, unknown keys ignored", () => {
    expect(
      parseNetDevices({
        "netdevice.noderesource.dev":
          "- name: dummy0\n  new_name: eth33\n  address: 192.168.2.2\n  prefix: 24\n  mtu: 1500\n- {NAME: 12, New_Name: yes, other: x}",
      }),
    ).toEqual([
      { name: "dummy0", new_name: "eth33", address: "192.168.2.2", prefix: 24n, mtu: 1500n },
      { name: "12", new_name: "true", address: "", prefix: 0n, mtu: 0n },
    ]);
    expect(parseNetDevices({})).toEqual([]);
    expect(parseNetDevices({ "netdevice.noderesource.dev": "" })).toEqual([]);
    expect(parseNetDevices({ "netdevice.noderesource.dev": "~" })).toEqual([]);
  });

  it("does not default new_name or prefix, as the Go plugin's defaults are lost", () => {
    expect(parseNetDevices({ "netdevice.noderesource.dev": "- {name: a, address: 'fd00::1'}" })).toEqual([
      { name: "a", new_name: "", address: "fd00::1", prefix: 0n, mtu: 0n },
    ]);
  });

  it("fails with the Go plugin's errors, naming the key", () => {
    const fails = (value: string) => () => parseNetDevices({ "netdevices.nri.containerd.io": value });
    expect(fails("name: x")).toThrow(
      new NetDeviceAnnotationError(
        'invalid device annotation "netdevices.nri.containerd.io": error unmarshaling JSON: while decoding JSON: json: cannot unmarshal object into Go value of type []main.netdevice',
      ),
    );
    expect(fails("- {name: x, mtu: 1.5}")).toThrow(
      'invalid device annotation "netdevices.nri.containerd.io": error unmarshaling JSON: while decoding JSON: json: cannot unmarshal number 1.5 into Go struct field netdevice.mtu of type int',
    );
    expect(fails("- {name: x, address: 10.0.0.01}")).toThrow(
      new NetDeviceAnnotationError("error parsing address 10.0.0.01"),
    );
    expect(fails("- [")).toThrow(
      /^invalid device annotation "netdevices.nri.containerd.io": error converting YAML to JSON: yaml: line \d+: /,
    );
  });

  it("never crashes on arbitrary values: devices, or a NetDeviceAnnotationError", () => {
    const value = fc.oneof(
      fc.string(),
      fc.stringMatching(/^[-:{}[\]&*!<>|"'#,.~ \n\ta-z0-9_+%]{0,60}$/),
      fc
        .array(
          fc.tuple(
            fc.constantFrom("name", "new_name", "address", "prefix", "mtu", "Name", "x"),
            fc.constantFrom("a", "1", "-1", "1e3", "::1", "1.2.3.4", "[1]", "{}", "~", "0x10", "yes"),
          ),
          { maxLength: 5 },
        )
        .map((pairs) => `- {${pairs.map(([k, v]) => `${k}: ${v}`).join(", ")}}`),
    );
    fc.assert(
      fc.property(fc.constantFrom(...ANNOTATION_KEYS), value, (key, text) => {
        try {
          const devices = parseNetDevices({ [key]: text });
          for (const device of devices) expect(typeof device.name).toBe("string");
        } catch (error) {
          expect(error).toBeInstanceOf(NetDeviceAnnotationError);
        }
      }),
      { numRuns: 2000 },
    );
  });
});
