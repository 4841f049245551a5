import { expect, test } from "vitest";
import { comparePlugins } from "./plugin-order.js";

test("plugins are ordered by index, then name, then when they were taken on", () => {
  const plugins = [
    { index: "99", name: "a", sequence: 0 },
    { index: "10", name: "b", sequence: 1 },
    { index: "10", name: "a", sequence: 5 },
    { index: "00", name: "z", sequence: 3 },
    { index: "10", name: "a", sequence: 2 },
  ];
  expect(plugins.sort(comparePlugins).map(({ index, name, sequence }) => `${index}-${name}#${sequence}`)).toEqual([
    "00-z#3",
    "10-a#2",
    "10-a#5",
    "10-b#1",
    "99-a#0",
  ]);
});
