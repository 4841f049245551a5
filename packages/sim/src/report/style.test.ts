import { describe, expect, it } from "vitest";
import { colorWanted, makeStyle } from "./style.js";

describe("colorWanted", () => {
  const tty = { isTTY: true };
  const pipe = { isTTY: false };

  it("follows the terminal", () => {
    expect(colorWanted(tty, {})).toBe(true);
    expect(colorWanted(pipe, {})).toBe(false);
    expect(colorWanted(tty, { TERM: "dumb" })).toBe(false);
  });

  it("obeys NO_COLOR, then FORCE_COLOR", () => {
    expect(colorWanted(tty, { NO_COLOR: "1" })).toBe(false);
    expect(colorWanted(tty, { NO_COLOR: "" })).toBe(true);
    expect(colorWanted(pipe, { FORCE_COLOR: "1" })).toBe(true);
    expect(colorWanted(pipe, { FORCE_COLOR: "" })).toBe(true);
    expect(colorWanted(tty, { FORCE_COLOR: "0" })).toBe(false);
    expect(colorWanted(pipe, { NO_COLOR: "1", FORCE_COLOR: "1" })).toBe(false);
  });
});

describe("makeStyle", () => {
  it("writes ANSI codes only when asked", () => {
    expect(makeStyle(true).red("x")).toBe("\x1b[31mx\x1b[39m");
    expect(makeStyle(true).bold("")).toBe("");
    expect(makeStyle(false).red("x")).toBe("x");
  });
});
