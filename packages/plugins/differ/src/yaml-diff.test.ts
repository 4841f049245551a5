import { Container } from "@nri-ts/api";
import { describe, expect, it } from "vitest";
import type { Message } from "./go-struct.js";
import { yamlDiff } from "./yaml-diff.js";

/** A container (given as for fromPartial) as a stub hands it to a plugin: decoded. */
const container = (partial: object) =>
  Container.decode(Container.encode(Container.fromPartial(partial)).finish()) as unknown as Message;

// The layouts are go-cmp's, as the Go differ logged them for the same containers (with regular spaces).
describe("yamlDiff", () => {
  it("is empty for the same objects", () => {
    expect(yamlDiff(container({ name: "app", env: ["A=1"] }), container({ name: "app", env: ["A=1"] }))).toBe("");
  });

  it("marks inserted entries, aligns one-line records, opens changed lists and counts long identical runs", () => {
    const base = {
      id: "c1",
      name: "app",
      podSandboxId: "p",
      args: ["nginx"],
      env: ["MODE=prod"],
      hooks: {},
      image: { name: "nginx" },
      labels: { a: "1" },
      pid: 7,
      state: 2,
      createdAt: 5n,
    };
    const after = container({ ...base, annotations: { seen: "yes" }, env: ["MODE=prod", "SEEN=yes"] });
    expect(yamlDiff(container(base), after)).toBe(
      [
        "  map[String]any{",
        '+ \t"annotations": map[String]any{"seen": String("yes")},',
        '  \t"args":        []any{String("nginx")},',
        '  \t"created_at":  Number(5),',
        '  \t"env": []any{',
        '  \t\tString("MODE=prod"),',
        '+ \t\tString("SEEN=yes"),',
        "  \t},",
        '  \t"hooks": map[String]any{},',
        '  \t"id":    String("c1"),',
        "  \t... // 6 identical entries",
        "  }",
        "",
      ].join("\n"),
    );
  });

  it("writes an inserted or removed value over several lines when its contents pass 80 columns", () => {
    const mount = { destination: "/host-home", source: "/home", type: "bind", options: ["bind", "ro"] };
    const text = yamlDiff(container({ name: "app" }), container({ name: "app", mounts: [mount] }));
    expect(text).toBe(
      [
        "  map[String]any{",
        '+ \t"mounts": []any{',
        "+ \t\tmap[String]any{",
        '+ \t\t\t"destination": String("/host-home"),',
        '+ \t\t\t"options":     []any{String("bind"), String("ro")},',
        '+ \t\t\t"source":      String("/home"),',
        '+ \t\t\t"type":        String("bind"),',
        "+ \t\t},",
        "+ \t},",
        '  \t"name": String("app"),',
        "  }",
        "",
      ].join("\n"),
    );
  });

  it("shows a changed scalar as the old and the new value, text raw where quoting would escape", () => {
    expect(yamlDiff(container({ name: 'say "hi"' }), container({ name: "b" }))).toBe(
      ["  map[String]any{", '- \t"name": String(`say "hi"`),', '+ \t"name": String("b"),', "  }", ""].join("\n"),
    );
  });

  it("gives nothing where sigs.k8s.io/yaml cannot write an object, as the Go differ logs nothing then", () => {
    expect(yamlDiff(container({ name: "a" }), container({ name: "a\u007f" }))).toBeUndefined();
  });
});
