import {
  ContainerState,
  LinuxContainer,
  LinuxMemory,
  LinuxScheduler,
  LinuxSchedulerFlag,
  LinuxSchedulerPolicy,
} from "@nri-ts/api";
import { describe, expect, it } from "vitest";
import { printScalar, textFormat, textString } from "./go-print.js";
import type { Message } from "./go-struct.js";

const decoded = <T>(fns: { encode(m: T): { finish(): Uint8Array }; decode(b: Uint8Array): T }, message: T) =>
  fns.decode(fns.encode(message).finish()) as unknown as Message;

describe("textFormat: a message as protobuf-go's String method writes it", () => {
  it("writes set fields in order on one line, nested messages in braces, zero scalars left out", () => {
    expect(
      textFormat(decoded(LinuxMemory, LinuxMemory.fromPartial({ limit: { value: 536870912n }, swap: { value: 0n } }))),
    ).toBe("limit:{value:536870912} swap:{}");
    expect(textFormat(decoded(LinuxMemory, LinuxMemory.fromPartial({})))).toBe("");
  });

  it("writes enums by name, unknown ones by number, and each item of a repeated field", () => {
    const scheduler = decoded(
      LinuxScheduler,
      LinuxScheduler.fromPartial({
        policy: LinuxSchedulerPolicy.SCHED_FIFO,
        priority: 10,
        flags: [LinuxSchedulerFlag.SCHED_FLAG_RESET_ON_FORK, 42],
      }),
    );
    expect(textFormat(scheduler)).toBe("policy:SCHED_FIFO priority:10 flags:SCHED_FLAG_RESET_ON_FORK flags:42");
  });

  it("writes map entries sorted by key, as key and value", () => {
    const linux = decoded(
      LinuxContainer,
      LinuxContainer.fromPartial({ sysctl: { "net.b": "2", "net.a": "" }, netDevices: { eth1: { name: "net1" } } }),
    );
    expect(textFormat(linux)).toBe(
      'sysctl:{key:"net.a" value:""} sysctl:{key:"net.b" value:"2"} net_devices:{key:"eth1" value:{name:"net1"}}',
    );
  });

  it("escapes strings as the text format does", () => {
    expect(textString("a\"b\\c\n\r\t\u0001\u007f\u0085é😀'")).toBe('"a\\"b\\\\c\\n\\r\\t\\x01\\x7f\\u0085é😀\'"');
  });
});

describe("printScalar", () => {
  it("prints enums by name as Go's %v does, and other scalars as they are", () => {
    const state = { of: "enum", names: ContainerState } as const;
    expect([
      printScalar(ContainerState.CONTAINER_RUNNING, state),
      printScalar(9, state),
      printScalar(5n, { of: "scalar" }),
      printScalar(true, { of: "scalar" }),
    ]).toEqual(["CONTAINER_RUNNING", "9", "5", "true"]);
  });
});
