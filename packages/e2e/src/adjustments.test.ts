/**
 * Adjustments from our plugins reach real containers, on each containerd
 * line: environment and mounts as the container sees them from inside,
 * annotations as `crictl inspect` shows them. The plugins run the ways
 * containerd runs plugins: external on the socket (the logger, a mount
 * fixture), and pre-installed from `plugin_path` (the logger with its
 * config from `plugin_config_path`, and the root README's plugin as
 * written there). Rlimits: ulimit-adjuster.test.ts.
 */
import { mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { stringify } from "yaml";
import { describeEachLine } from "./context.js";
import { observed, observing } from "./observe.js";
import { tsLogger } from "./our-plugins.js";
import { repoDir } from "./paths.js";
import { type ExternalPlugin, fixturePlugin, fixturesDir, nodePlugin, type PreinstalledPlugin } from "./plugins.js";
import { Runtime } from "./runtime.js";
import { tsLoggerEvents } from "./seen-events.js";
import { everyEventOf } from "./versions.js";

describe("the README plugin fixture", () => {
  it("is the root README's code, word for word", () => {
    const readme = readFileSync(join(repoDir, "README.md"), "utf8");
    expect(readme).toContain(readFileSync(join(fixturesDir, "readme-plugin", "annotate.ts"), "utf8"));
  });
});

describeEachLine("adjustments", (line) => {
  let runtime: Runtime;
  let logger: ExternalPlugin;

  beforeAll(async () => {
    const events = everyEventOf(line);
    const preinstalled: PreinstalledPlugin[] = [
      { index: "10", name: "annotate", program: fixturePlugin("readme-annotate", "readme-plugin/10-annotate.ts") },
      {
        index: "30",
        name: "logger",
        program: nodePlugin("pre-logger", "plugins/logger", []),
        config: (layout) =>
          stringify({
            logFile: join(layout.logs, "pre-logger.events"),
            addEnv: "PRE_LOGGER",
            ...(events && { events: events.split(",") }),
          }),
      },
    ];
    runtime = await Runtime.start({ label: "adjustments", line, preinstalled });
    const shared = join(runtime.layout.base, "shared");
    mkdirSync(shared);
    writeFileSync(join(shared, "hello.txt"), "hello from the host\n");
    await runtime.startPlugin(fixturePlugin("mounter", "mounter.ts", [runtime.layout.nriSocket, "25", shared]));
    logger = await runtime.startPlugin(
      tsLogger(runtime, "40", ["-add-env", "LOGGER_ENV", "-add-annotation", "e2e.nri-ts.io/logger"]),
    );
  });
  afterAll(() => runtime?.teardown());

  it("env, mounts and annotations arrive in the container", async () => {
    const pod = await runtime.runPod({
      containers: [{ name: "app", ...observing({ files: ["/nri/mounted/hello.txt"] }) }],
    });
    const app = pod.containers.app;
    const saw = observed(app);

    expect(logger.name).toBe("40-logger");
    expect(saw.env.LOGGER_ENV).toBe(`logger-pid-${logger.pid}`);
    expect(saw.env.POD_NAME).toBe(pod.name);
    expect(saw.env.PRE_LOGGER).toMatch(/^logger-pid-\d+$/);

    expect(saw.files["/nri/mounted/hello.txt"]).toBe("hello from the host");
    expect(saw.mounts.find((mount) => mount.path === "/nri/mounted")?.options).toContain("ro");

    const annotations = app.inspect.info?.runtimeSpec?.annotations ?? {};
    expect(annotations["e2e.nri-ts.io/logger"]).toBe(`logger-pid-${logger.pid}`);
    expect(annotations["example.com/seen-by"]).toBe("annotate");

    // the pre-installed logger logs where its config file told it to
    const events = tsLoggerEvents(readFileSync(join(runtime.layout.logs, "pre-logger.events"), "utf8"));
    expect(events.some((e) => e.event === "CreateContainer" && e.container === app.id)).toBe(true);
  });
});
