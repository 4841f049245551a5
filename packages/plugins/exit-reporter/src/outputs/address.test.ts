import { describe, expect, it } from "vitest";
import { AddressError, formatAddress, grpcTarget, parseAddress } from "./address.js";

describe("addresses", () => {
  it.each([
    ["unix:///run/exits.sock", { kind: "unix", path: "/run/exits.sock" }, "unix:///run/exits.sock"],
    ["unix:/run/exits.sock", { kind: "unix", path: "/run/exits.sock" }, "unix:///run/exits.sock"],
    ["/run/exits.sock", { kind: "unix", path: "/run/exits.sock" }, "unix:///run/exits.sock"],
    ["tcp://127.0.0.1:50051", { kind: "tcp", host: "127.0.0.1", port: 50051 }, "127.0.0.1:50051"],
    ["localhost:50051", { kind: "tcp", host: "localhost", port: 50051 }, "localhost:50051"],
    [":9309", { kind: "tcp", host: "", port: 9309 }, "localhost:9309"],
    ["[::1]:9309", { kind: "tcp", host: "::1", port: 9309 }, "[::1]:9309"],
  ])("%s", (text, address, target) => {
    expect(parseAddress(text)).toEqual(address);
    expect(grpcTarget(parseAddress(text))).toBe(target);
  });

  it("listens on every interface for :port", () => {
    expect(grpcTarget(parseAddress(":9309"), true)).toBe("0.0.0.0:9309");
    expect(formatAddress(parseAddress(":9309"))).toBe("0.0.0.0:9309");
  });

  it.each(["exits.sock", "unix:exits.sock", "localhost", "localhost:65536", "http://x:1", ""])("refuses %j", (text) => {
    expect(() => parseAddress(text)).toThrow(AddressError);
  });
});
