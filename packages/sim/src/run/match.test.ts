import { describe, expect, it } from "vitest";
import { mismatches } from "./match.js";

describe("mismatches", () => {
  it("ignores keys the author did not write", () => {
    expect(mismatches({ a: 1 }, { a: 1, b: 2 }, "x")).toEqual([]);
  });

  it("names the path, what was expected and what was found", () => {
    expect(mismatches({ env: { A: "1" } }, { env: { A: "2" } }, "container")).toEqual([
      'container.env.A: expected "1", got "2"',
    ]);
  });

  it("compares lists item by item and by length", () => {
    expect(mismatches([{ k: 1 }], [{ k: 1 }, { k: 2 }], "l")).toEqual([
      'l: expected 1 item(s), got 2: [{"k":1},{"k":2}]',
    ]);
    expect(mismatches([1, 2], [1, 3], "l")).toEqual(["l[1]: expected 2, got 3"]);
  });

  it("reads quantities and numbers written as text", () => {
    expect(mismatches({ limit: "512Mi" }, { limit: 536870912 }, "m")).toEqual([]);
    expect(mismatches({ ts: 1767225601000000000 }, { ts: "1767225601000000000" }, "m")).toEqual([]);
    expect(mismatches({ limit: "512Mi" }, { limit: 1 }, "m")).toEqual(['m.limit: expected "512Mi", got 1']);
  });

  it("does not read quantities when both sides are text", () => {
    expect(mismatches("1Ki", "1024", "s")).toEqual(['s: expected "1Ki", got "1024"']);
  });

  it("lets defaults match a missing value, and null expect nothing", () => {
    expect(mismatches({ exitCode: 0, reason: "", ok: false }, {}, "c")).toEqual([]);
    expect(mismatches({ env: null }, { env: {} }, "c")).toEqual([]);
    expect(mismatches({ env: null }, { env: { A: "1" } }, "c")).toEqual(['c.env: expected nothing, got {"A":"1"}']);
    expect(mismatches({ exitCode: 1 }, {}, "c")).toEqual(["c.exitCode: expected 1, got nothing"]);
  });
});
