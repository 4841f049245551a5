import { Container } from "@nri-ts/api";
import { describe, expect, it } from "vitest";
import { diffMessages } from "./go-diff.js";
import type { Message } from "./go-struct.js";

/** A container (given as for fromPartial) as a stub hands it to a plugin: decoded. */
const container = (partial: object) =>
  Container.decode(Container.encode(Container.fromPartial(partial)).finish()) as unknown as Message;
const lines = (a: Message, b: Message) =>
  diffMessages(a, b).map(({ type, path, from, to }) => `${type}: [${path.join(" ")}]: From: ${from} -> To: ${to}`);

// The expected lines are what r3labs/diff v3.0.2 lists for the Go structs (packages/conformance runs both differs on the same events).
describe("diffMessages: changes as r3labs/diff lists them for the Go structs", () => {
  it("finds no changes between equal messages", () => {
    const base = {
      name: "app",
      annotations: { a: "1" },
      env: ["A=1"],
      linux: { resources: { memory: { limit: { value: 1n } } } },
    };
    expect(diffMessages(container(base), container(base))).toEqual([]);
  });

  it("updates scalars and enums, names Go fields", () => {
    expect(
      lines(
        container({ name: "a", state: 1, podSandboxId: "p", exitCode: 0 }),
        container({ name: "b", state: 4, podSandboxId: "p", exitCode: 137 }),
      ),
    ).toEqual([
      "update: [Name]: From: a -> To: b",
      "update: [State]: From: CONTAINER_CREATED -> To: CONTAINER_STOPPED",
      "update: [ExitCode]: From: 0 -> To: 137",
    ]);
  });

  // Go ranges over the maps in random order; ours takes the old map's keys in byte order, then the new ones.
  it("creates, updates and deletes map entries", () => {
    expect(
      lines(
        container({ annotations: { gone: "x", kept: "1", changed: "a" } }),
        container({ annotations: { kept: "1", changed: "b", added: "" } }),
      ),
    ).toEqual([
      "update: [Annotations changed]: From: a -> To: b",
      "delete: [Annotations gone]: From: x -> To: <nil>",
      "create: [Annotations added]: From: <nil> -> To: ",
    ]);
  });

  it("compares slices as multisets and pairs what is left by index", () => {
    expect(lines(container({ env: ["A=1", "B=2"] }), container({ env: ["B=2", "A=1"] }))).toEqual([]);
    expect(lines(container({ env: ["A=1", "B=2"] }), container({ env: ["B=2", "C=3", "D=4"] }))).toEqual([
      "delete: [Env 0]: From: A=1 -> To: <nil>",
      "create: [Env 1]: From: <nil> -> To: C=3",
      "create: [Env 2]: From: <nil> -> To: D=4",
    ]);
    expect(lines(container({ args: ["x", "y"] }), container({ args: ["x"] }))).toEqual([
      "delete: [Args 1]: From: y -> To: <nil>",
    ]);
  });

  it("holds a message that appears or goes whole, in the text format", () => {
    expect(
      lines(
        container({ linux: { resources: {} } }),
        container({ linux: { resources: { memory: { limit: { value: 536870912n } } } } }),
      ),
    ).toEqual(["update: [Linux Resources Memory]: From: <nil> -> To: limit:{value:536870912}"]);
    expect(
      lines(
        container({ linux: { resources: { memory: { limit: { value: 1n } } } } }),
        container({ linux: { resources: { memory: {} } } }),
      ),
    ).toEqual(["update: [Linux Resources Memory Limit]: From: value:1 -> To: <nil>"]);
  });

  it("lists each set field of an element or map value on one side only, and nothing for its zero fields", () => {
    const before = container({ mounts: [{ destination: "/data", source: "/src", type: "bind" }] });
    const after = container({
      mounts: [
        { destination: "/data", source: "/src", type: "bind" },
        { destination: "/home", options: ["ro"] },
      ],
      linux: { netDevices: { eth1: { name: "net1" } }, devices: [{ path: "/dev/x", fileMode: { value: 438 } }] },
    });
    expect(lines(before, after)).toEqual([
      "create: [Mounts 1 Destination]: From: <nil> -> To: /home",
      "create: [Mounts 1 Options 0]: From: <nil> -> To: ro",
      'update: [Linux]: From: <nil> -> To: devices:{path:"/dev/x" file_mode:{value:438}} net_devices:{key:"eth1" value:{name:"net1"}}',
    ]);
    expect(lines(after, before).slice(0, 2)).toEqual([
      "delete: [Mounts 1 Destination]: From: /home -> To: <nil>",
      "delete: [Mounts 1 Options 0]: From: ro -> To: <nil>",
    ]);
    const withDevices = container({ linux: { devices: [] } });
    expect(
      lines(withDevices, container({ linux: { devices: [{ path: "/dev/x", major: 1n, uid: { value: 0 } }] } })),
    ).toEqual([
      "create: [Linux Devices 0 Path]: From: <nil> -> To: /dev/x",
      "create: [Linux Devices 0 Major]: From: <nil> -> To: 1",
      "create: [Linux Devices 0 Uid]: From: <nil> -> To: ",
    ]);
  });
});
