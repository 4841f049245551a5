/**
 * The hook-injector under a real containerd, on each line: the OCI hooks a
 * hook file gives the annotated containers run, with the container's
 * state, where the runtime runs them. A createRuntime hook (run by runc in
 * the runtime's namespaces, on the host) receives the container's state on
 * stdin; a startContainer hook runs inside the container, in its mount
 * namespace, before the container's own process, which finds its mark. A
 * container the hook file does not match gets neither.
 */
import { mkdtemp, readdir, readFile, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, expect, it } from "vitest";
import { describeEachLine } from "./context.js";
import { observed, observing } from "./observe.js";
import { hookInjector } from "./our-plugins.js";
import type { ExternalPlugin } from "./plugins.js";
import { Runtime } from "./runtime.js";

describeEachLine("hook-injector", (line) => {
  let runtime: Runtime;
  let injector: ExternalPlugin;
  let hooksDir: string;
  let states: string;

  beforeAll(async () => {
    hooksDir = await mkdtemp(join(tmpdir(), "nri-e2e-hooks-"));
    states = await mkdtemp(join(tmpdir(), "nri-e2e-hook-states-"));
    const when = { annotations: { "^e2e\\.nri-ts\\.dev/hooks$": "^on$" } };
    await writeFile(
      join(hooksDir, "10-state.json"),
      JSON.stringify({
        version: "1.0.0",
        hook: { path: "/bin/sh", args: ["sh", "-c", `cat > "$(mktemp ${states}/state.XXXXXX)"`] },
        when,
        stages: ["createRuntime"],
      }),
    );
    await writeFile(
      join(hooksDir, "20-mark.json"),
      JSON.stringify({
        hook: "/bin/sh",
        arguments: ["-c", "echo hook ran before the container > /hook-mark"],
        stage: ["startContainer"],
        annotation: ["^on$"],
      }),
    );
    runtime = await Runtime.start({ label: "hook-injector", line });
    injector = await runtime.startPlugin(hookInjector(runtime, "30", hooksDir));
  });
  afterAll(async () => {
    await runtime?.teardown();
    await rm(hooksDir, { recursive: true, force: true });
    await rm(states, { recursive: true, force: true });
  });

  it("runs the matching hooks of both schemas where the runtime runs each stage, and none for others", async () => {
    const pod = await runtime.runPod({
      annotations: { "e2e.nri-ts.dev/hooks": "on" },
      containers: [{ name: "app", ...observing({ files: ["/hook-mark"] }) }],
    });
    const other = await runtime.runPod({
      containers: [{ name: "plain", ...observing({ files: ["/hook-mark"] }) }],
    });
    expect(injector.name).toBe("30-hook-injector");

    // startContainer: inside the container, before its process
    expect(observed(pod.containers.app).files["/hook-mark"]).toBe("hook ran before the container");
    expect(observed(other.containers.plain).files["/hook-mark"]).toBeUndefined();

    // createRuntime: on the host, with the container's OCI state on stdin, once, for the matching container only
    const files = await readdir(states);
    expect(files).toHaveLength(1);
    const state = JSON.parse(await readFile(join(states, files[0]), "utf8")) as { id: string; status: string };
    expect(state.id).toBe(pod.containers.app.id);
    expect(state.status).toBe("creating");
  });
});
