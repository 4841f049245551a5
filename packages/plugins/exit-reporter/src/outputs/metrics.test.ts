import parsePrometheusTextFormat from "parse-prometheus-text-format";
import { afterEach, describe, expect, it } from "vitest";
import { ExitRecord } from "../gen/nri_ts/exit_reporter/v1/exit_reporter.js";
import { codeClass, PrometheusOutput } from "./metrics.js";

function exit(fields: Partial<ExitRecord>): ExitRecord {
  return ExitRecord.fromPartial({
    pod: { namespace: "shop", name: "web" },
    container: { id: "c1" },
    reason: "Error",
    ...fields,
  });
}

describe("codeClass", () => {
  it.each<[Partial<ExitRecord>, string]>([
    [{ exitCode: 0 }, "success"],
    [{ exitCode: 1 }, "error"],
    [{ exitCode: 125 }, "error"],
    [{ exitCode: 126 }, "not-executable"],
    [{ exitCode: 127 }, "not-found"],
    [{ exitCode: 128, flags: ["never-started", "start-error"] }, "start-error"],
    [{ exitCode: 128 }, "error"],
    [{ exitCode: 137 }, "signal"],
    [{ exitCode: 192 }, "signal"],
    [{ exitCode: 255 }, "other"],
    [{ exitCode: -1 }, "other"],
    [{}, "unknown"],
  ])("%o is %s", (fields, expected) => {
    expect(codeClass(exit(fields))).toBe(expected);
  });
});

describe("the Prometheus output", () => {
  let output: PrometheusOutput | undefined;
  afterEach(() => output?.close());

  async function scrape(path = "/metrics"): Promise<{ status: number; type: string | null; text: string }> {
    const response = await fetch(`http://127.0.0.1:${output!.port}${path}`);
    return { status: response.status, type: response.headers.get("content-type"), text: await response.text() };
  }

  function exitsSeries(text: string): [Record<string, string> | undefined, number][] {
    const family = parsePrometheusTextFormat(text).find((f) => f.name === "nri_container_exits_total");
    return family!.metrics.map((sample) => [sample.labels, Number(sample.value)]);
  }

  it("bounds namespaces and reasons, and never labels by container", async () => {
    output = await PrometheusOutput.start({ host: "127.0.0.1", port: 0, maxNamespaces: 2, reasons: ["HookFailed"] });
    output.publish(exit({ exitCode: 1, pod: { namespace: "a", name: "p", uid: "" } }));
    output.publish(exit({ exitCode: 1, pod: { namespace: "b", name: "p", uid: "" } }));
    output.publish(exit({ exitCode: 1, pod: { namespace: "c", name: "p", uid: "" } }));
    output.publish(exit({ exitCode: 1, pod: { namespace: "d", name: "p", uid: "" }, reason: "HookFailed" }));
    output.publish(exit({ exitCode: 1, pod: { namespace: "a", name: "p", uid: "" }, reason: "MadeUpByAPlugin" }));
    output.publish(exit({ exitCode: 163, signal: "signal 35", reason: "" }));
    const { status, type, text } = await scrape();
    expect(status).toBe(200);
    expect(type).toBe("text/plain; version=0.0.4; charset=utf-8");
    expect(exitsSeries(text)).toEqual([
      [{ namespace: "a", reason: "Error", code_class: "error", signal: "" }, 1],
      [{ namespace: "b", reason: "Error", code_class: "error", signal: "" }, 1],
      [{ namespace: "_other", reason: "Error", code_class: "error", signal: "" }, 1],
      [{ namespace: "_other", reason: "HookFailed", code_class: "error", signal: "" }, 1],
      [{ namespace: "a", reason: "Other", code_class: "error", signal: "" }, 1],
      [{ namespace: "_other", reason: "Unknown", code_class: "signal", signal: "realtime" }, 1],
    ]);
    expect(text).not.toContain("c1");
  });

  it("counts what other outputs lost", async () => {
    output = await PrometheusOutput.start({ host: "127.0.0.1", port: 0 });
    output.countDropped("json-lines", 3);
    const family = parsePrometheusTextFormat((await scrape()).text).find(
      (f) => f.name === "nri_exit_reporter_dropped_records_total",
    );
    expect(family?.metrics).toEqual([{ labels: { output: "json-lines" }, value: "3" }]);
  });

  it("answers 404 elsewhere, and refuses a port in use", async () => {
    output = await PrometheusOutput.start({ host: "127.0.0.1", port: 0 });
    expect(await scrape("/")).toMatchObject({ status: 404, text: "not found: metrics are at /metrics\n" });
    await expect(PrometheusOutput.start({ host: "127.0.0.1", port: output.port })).rejects.toThrow(/EADDRINUSE/);
  });
});
