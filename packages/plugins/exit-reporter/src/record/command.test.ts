import { describe, expect, it } from "vitest";
import { formatCommand, stripWrapper, wrapperPrefixProblem } from "./command.js";

describe("stripWrapper", () => {
  const tini = [["tini", "--"]];

  it("strips a prefix whose program matches by path or base name", () => {
    expect(stripWrapper(["/sbin/tini", "--", "nginx", "-g", "daemon off;"], tini)).toEqual({
      command: ["nginx", "-g", "daemon off;"],
      wrapper: ["/sbin/tini", "--"],
    });
    expect(stripWrapper(["tini", "--", "nginx"], [["/usr/bin/tini", "--"]])).toEqual({
      command: ["tini", "--", "nginx"],
      wrapper: [],
    });
    expect(stripWrapper(["/usr/bin/tini", "--", "nginx"], [["/usr/bin/tini", "--"]]).command).toEqual(["nginx"]);
  });

  it("leaves commands that do not start with a wrapper alone", () => {
    expect(stripWrapper(["nginx", "tini", "--"], tini)).toEqual({ command: ["nginx", "tini", "--"], wrapper: [] });
    expect(stripWrapper(["/sbin/tini", "-s", "--", "nginx"], tini).wrapper).toEqual([]);
    expect(stripWrapper([], tini)).toEqual({ command: [], wrapper: [] });
  });

  it("skips any options with ...", () => {
    expect(stripWrapper(["/sbin/tini", "-s", "-g", "--", "app"], [["tini", "...", "--"]])).toEqual({
      command: ["app"],
      wrapper: ["/sbin/tini", "-s", "-g", "--"],
    });
    expect(stripWrapper(["/sbin/tini", "-s", "app"], [["tini", "...", "--"]]).wrapper).toEqual([]);
  });

  it("strips stacked wrappers, the longest match first", () => {
    const prefixes = [["dumb-init"], ["tini", "--"], ["tini", "--", "entrypoint.sh"]];
    expect(stripWrapper(["dumb-init", "tini", "--", "entrypoint.sh", "app"], prefixes)).toEqual({
      command: ["app"],
      wrapper: ["dumb-init", "tini", "--", "entrypoint.sh"],
    });
  });

  it("keeps a wrapper that is the whole command (then it is the command)", () => {
    expect(stripWrapper(["/sbin/tini", "--"], tini)).toEqual({ command: ["/sbin/tini", "--"], wrapper: [] });
  });
});

describe("wrapperPrefixProblem", () => {
  it.each([
    [[], "a wrapper prefix needs at least a program"],
    [[""], "a wrapper prefix needs at least a program"],
    [["...", "--"], 'a wrapper prefix starts with its program, not "..."'],
    [["tini", "..."], '"..." must be followed by the word that ends it (e.g. "tini ... --")'],
    [["tini", "...", "...", "--"], '"..." must be followed by the word that ends it (e.g. "tini ... --")'],
    [["tini", "--", "..."], '"..." must be followed by the word that ends it (e.g. "tini ... --")'],
  ])("%j: %s", (prefix, problem) => {
    expect(wrapperPrefixProblem(prefix)).toBe(problem);
  });

  it("accepts good prefixes", () => {
    expect(wrapperPrefixProblem(["tini", "--"])).toBeUndefined();
    expect(wrapperPrefixProblem(["tini", "...", "--"])).toBeUndefined();
  });
});

it("formats a command as a shell would read it back", () => {
  expect(formatCommand(["sh", "-c", "migrate-db --all", "it's", ""])).toBe(`sh -c 'migrate-db --all' 'it'\\''s' ''`);
  expect(formatCommand(["/usr/bin/app", "--port=8080", "a,b"])).toBe("/usr/bin/app --port=8080 a,b");
});
