import { describe, expect, it } from "vitest";
import { isGoIP } from "./go-ip.js";

describe("isGoIP: Go's net.ParseIP", () => {
  it("takes what Go takes", () => {
    for (const text of [
      "0.0.0.0",
      "192.168.2.2",
      "255.255.255.255",
      "::",
      "::1",
      "fd00::1",
      "1:2:3:4:5:6:7:8",
      "1::8",
      "::ffff:1.2.3.4",
      "1:2:3:4:5:6:1.2.3.4",
      "1::1.2.3.4",
      "ABCD:ef01::",
    ]) {
      expect(isGoIP(text), text).toBe(true);
    }
  });

  it("refuses what Go refuses", () => {
    for (const text of [
      "",
      "x",
      "1.2.3",
      "1.2.3.4.5",
      "256.1.1.1",
      "01.2.3.4",
      "1..2.3",
      "1.2.3.4 ",
      " 1.2.3.4",
      "1.2.3.-4",
      ":",
      ":::",
      "1:2:3:4:5:6:7:8:9",
      "1::2::3",
      "12345::",
      "1:2:3:4:5:6:7::8",
      "1:2:3:4:5:6:7:8::",
      "::1%eth0",
      "fe80::1%",
      "1:2:3:4:5:1.2.3.4",
      "1:2:3:4:5:6:7:1.2.3.4",
      "::1.2.3",
      "1:",
      "g::",
      "%1",
      "1.2.3.4/24",
    ]) {
      expect(isGoIP(text), text).toBe(false);
    }
  });
});
