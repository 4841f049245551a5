/**
 * Makes the screenshot of packages/adaptation/README.md's "Tracing": one
 * nri-sim step (`create nginx`) traced across three plugin processes (the
 * logger, the ulimit-adjuster, the device-injector), as Jaeger's UI shows
 * it, taken in headless Chromium.
 *
 *   JAEGER_UI=<a built Jaeger UI> npx tsx src/jaeger-screenshot.ts [out.png]
 *
 * Jaeger's Go module ships no UI: JAEGER_UI is the `build` directory of
 * github.com/jaegertracing/jaeger-ui at the version of Jaeger's (v1.75.0;
 * `npm ci`, then its `npm run build`, with Node.js 24). Needs Debian's
 * `chromium`; `pngquant`, if installed, makes the picture smaller.
 */
import { execFile } from "node:child_process";
import { mkdtemp, rm, stat, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { setTimeout as sleep } from "node:timers/promises";
import { promisify } from "node:util";
import type { SimReport } from "@nri-ts/sim";
import { moduleDir } from "./go.js";
import { Jaeger, jaegerBinary } from "./jaeger.js";

const run = promisify(execFile);
const packages = join(moduleDir, "..");
const out = resolve(process.argv[2] ?? join(packages, "adaptation", "jaeger-trace.png"));
const ui = process.env.JAEGER_UI;
if (!ui) {
  console.error("JAEGER_UI: the build directory of a Jaeger UI (see this file's comment)");
  process.exit(2);
}

const scenario = `
name: tracing demo
pods:
  - name: web
    namespace: storefront
    annotations:
      ulimits.noderesource.dev/container.nginx: '[{type: nofile, hard: 4096, soft: 1024}]'
      devices.noderesource.dev/container.nginx: '[{path: /dev/nri-null, type: c, major: 1, minor: 3}]'
containers:
  - {name: nginx, pod: web, image: docker.io/library/nginx:1.27}
steps:
  - run-pod: web
  - create: nginx
`;

const dir = await mkdtemp(join(tmpdir(), "nri-jaeger-screenshot-"));
const jaeger = await Jaeger.start(await jaegerBinary(), dir, { ui: resolve(ui) });
try {
  const file = join(dir, "scenario.yaml");
  await writeFile(file, scenario);
  const plugin = (name: string) => join(packages, "plugins", name, "src", "index.ts");
  const { stdout } = await run(
    process.execPath,
    [
      "--conditions=@nri-ts/source",
      "--import",
      "tsx",
      join(packages, "sim", "src", "cli.ts"),
      "run",
      file,
      "--plugin",
      `10-logger=${plugin("logger")}`,
      "--plugin",
      `20-ulimit-adjuster=${plugin("ulimit-adjuster")}`,
      "--plugin",
      `30-device-injector=${plugin("device-injector")}`,
      "--trace",
      "--json",
      "--otlp",
      jaeger.otlpUrl,
    ],
    { maxBuffer: 64 << 20 },
  );
  const report = JSON.parse(stdout) as SimReport;
  const traceId = report.steps.find((step) => step.step === "create nginx")!.trace!.traceId;
  while ((await jaeger.trace(traceId)) === undefined) await sleep(200);
  const profile = join(dir, "chromium");
  await run("chromium", [
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    `--user-data-dir=${profile}`,
    "--hide-scrollbars",
    "--window-size=1600,600",
    "--virtual-time-budget=20000",
    `--screenshot=${out}`,
    `${jaeger.queryUrl}/trace/${traceId}?uiEmbed=v0`,
  ]);
  await run("pngquant", ["--force", "--skip-if-larger", "--output", out, "24", out]).catch(() => undefined);
  console.log(`${out}: trace ${traceId}, ${(await stat(out)).size} bytes`);
} finally {
  await jaeger.stop();
  await rm(dir, { recursive: true, force: true });
}
