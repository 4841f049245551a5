import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { decodeConfig, defaultConfig, ExitReporterConfigError } from "./config.js";

/** The error decodeConfig refuses `text` with, if it does. */
function refusal(text: string): ExitReporterConfigError | undefined {
  try {
    decodeConfig(text);
    return undefined;
  } catch (error) {
    if (!(error instanceof ExitReporterConfigError)) throw error;
    return error;
  }
}

/** The mistakes decodeConfig finds in `text`, each as `field: message`. */
function mistakes(text: string): string[] {
  return (refusal(text)?.issues ?? []).map((issue) => `${issue.path ? `${issue.path}: ` : ""}${issue.message}`);
}

describe("decodeConfig", () => {
  it("gives the defaults for an empty document: JSON lines on stdout, gRPC on the default socket, no metrics", () => {
    expect(decodeConfig("")).toEqual(defaultConfig());
    expect(defaultConfig()).toMatchObject({
      jsonLines: { path: "-", maxBytes: 10 * 1024 * 1024, keep: 3 },
      prometheus: false,
      grpc: { listen: { kind: "unix", path: "/var/run/nri/exit-reporter.sock" }, recent: 1000, subscriberBuffer: 1000 },
      oom: { check: true, cgroupRoot: "", kernelLog: "/dev/kmsg" },
      causes: { ttlSeconds: 600, maxContainers: 10_000 },
    });
  });

  it("reads every setting", () => {
    const config = decodeConfig(`
commandWrappers: ["tini --", [/usr/bin/dumb-init, --single-child, --]]
exitCodes: {3: the queue is unreachable, "42": lost the election}
oom: {check: false, cgroupRoot: /host/sys/fs/cgroup, kernelLog: /host/dev/kmsg}
causes: {ttlSeconds: 60, maxContainers: 5}
jsonLines: {path: /var/log/nri-exits.jsonl, maxBytes: 4096, keep: 0}
prometheus: {listen: "127.0.0.1:9400", maxNamespaces: 20, reasons: [Evicted, HookFailed]}
grpc: {listen: "tcp://0.0.0.0:50051", recent: 50, subscriberBuffer: 10}
`);
    expect(config).toEqual({
      commandWrappers: [
        ["tini", "--"],
        ["/usr/bin/dumb-init", "--single-child", "--"],
      ],
      exitCodes: new Map([
        [3, "the queue is unreachable"],
        [42, "lost the election"],
      ]),
      oom: { check: false, cgroupRoot: "/host/sys/fs/cgroup", kernelLog: "/host/dev/kmsg" },
      causes: { ttlSeconds: 60, maxContainers: 5 },
      jsonLines: { path: "/var/log/nri-exits.jsonl", maxBytes: 4096, keep: 0 },
      prometheus: {
        listen: { kind: "tcp", host: "127.0.0.1", port: 9400 },
        maxNamespaces: 20,
        reasons: ["Evicted", "HookFailed"],
      },
      grpc: { listen: { kind: "tcp", host: "0.0.0.0", port: 50051 }, recent: 50, subscriberBuffer: 10 },
      rules: [],
      kubernetes: false,
    });
  });

  it("turns outputs on with their defaults and off with false", () => {
    expect(decodeConfig("prometheus: true\njsonLines: false\ngrpc: false\n")).toMatchObject({
      prometheus: { listen: { kind: "tcp", host: "", port: 9309 } },
      jsonLines: false,
      grpc: false,
    });
    expect(decodeConfig("prometheus:\n").prometheus).toMatchObject({ listen: { port: 9309 } });
    expect(decodeConfig("oom: {kernelLog: false}\n").oom.kernelLog).toBe("");
    expect(decodeConfig("oom: {kernelLog: true}\n").oom.kernelLog).toBe("/dev/kmsg");
    expect(decodeConfig("grpc: {recent: 5}\n").grpc).toMatchObject({
      listen: { kind: "unix", path: "/var/run/nri/exit-reporter.sock" },
      recent: 5,
    });
  });

  it.each([
    [
      "jsonLine: {path: x}",
      "jsonLine: unknown field (known: commandWrappers, exitCodes, rules, oom, causes, jsonLines, prometheus, grpc, kubernetes)",
    ],
    ["jsonLines: {file: x}", "jsonLines.file: unknown field (known: path, maxBytes, keep)"],
    ["jsonLines: {maxBytes: 10Mi}", 'jsonLines.maxBytes: expected a whole number from 1024, got "10Mi"'],
    ["jsonLines: {keep: -1}", "jsonLines.keep: expected a whole number from 0 to 100, got -1"],
    ["jsonLines: stdout", 'jsonLines: expected a mapping, got "stdout"'],
    ["prometheus: {listen: 9309}", "prometheus.listen: expected a text, got 9309"],
    [
      "prometheus: {listen: /run/metrics.sock}",
      'prometheus.listen: expected [host]:port (Prometheus scrapes over TCP), got "/run/metrics.sock"',
    ],
    [
      "prometheus: {listen: 'localhost:99999'}",
      'prometheus.listen: expected unix:///path/to.sock, an absolute socket path, or [host]:port, got "localhost:99999"',
    ],
    ["prometheus: {reasons: Evicted}", 'prometheus.reasons: expected a list of reasons, got "Evicted"'],
    [
      "grpc: {listen: exits.sock}",
      'grpc.listen: expected unix:///path/to.sock, an absolute socket path, or [host]:port, got "exits.sock"',
    ],
    ["grpc: {recent: 0}", "grpc.recent: expected a whole number from 1 to 1000000, got 0"],
    ["oom: {check: yes}", 'oom.check: expected true or false, got "yes"'],
    ["oom: {kernelLog: 1}", "oom.kernelLog: expected true or false, got 1"],
    ["causes: {ttlSeconds: 1.5}", "causes.ttlSeconds: expected a whole number from 1 to 86400, got 1.5"],
    ["commandWrappers: tini --", 'commandWrappers: expected a list of prefixes such as "tini --", got "tini --"'],
    ["commandWrappers: ['... --']", 'commandWrappers[0]: a wrapper prefix starts with its program, not "..."'],
    ["commandWrappers: [[tini, 3]]", "commandWrappers[0][1]: expected a text, got 3"],
    ["exitCodes: {three: x}", "exitCodes.three: expected a whole number as exit code"],
    [
      "exitCodes: [3]",
      'exitCodes: expected a mapping of exit codes to texts, e.g. {3: "the configuration file is missing"}',
    ],
    ["- a", "expected a mapping, got a list"],
    ["a: [", "not YAML: Flow sequence in block collection must be sufficiently indented and end with a ]"],
  ])("refuses %j", (text, message) => {
    expect(mistakes(text)).toEqual([message]);
  });

  it("names every bad entry of exitCodes, each at its line and column", () => {
    const text = [
      "exitCodes:",
      "  3: the configuration file is missing",
      "  three: x",
      '  4: ""',
      "  1.5: half",
      "",
    ].join("\n");
    expect(refusal(text)?.issues).toEqual([
      { line: 3, column: 3, path: "exitCodes.three", message: "expected a whole number as exit code" },
      { line: 4, column: 6, path: "exitCodes.4", message: "expected a text saying what the code means" },
      { line: 5, column: 3, path: "exitCodes.1.5", message: "expected a whole number as exit code" },
    ]);
  });

  it("lists every mistake at once, each with its line and column, in the order of the text", () => {
    const text = [
      "jsonLine: {path: x}",
      "grpc:",
      "  recent: 0",
      "  listen: here",
      "commandWrappers: [tini --, [tini, 3], '... --']",
      "oom: {check: yes, kernelLogs: /dev/kmsg}",
      "",
    ].join("\n");
    const error = refusal(text);
    expect(error?.issues).toEqual([
      {
        line: 1,
        column: 1,
        path: "jsonLine",
        message:
          "unknown field (known: commandWrappers, exitCodes, rules, oom, causes, jsonLines, prometheus, grpc, kubernetes)",
      },
      { line: 3, column: 11, path: "grpc.recent", message: "expected a whole number from 1 to 1000000, got 0" },
      {
        line: 4,
        column: 11,
        path: "grpc.listen",
        message: 'expected unix:///path/to.sock, an absolute socket path, or [host]:port, got "here"',
      },
      { line: 5, column: 35, path: "commandWrappers[1][1]", message: "expected a text, got 3" },
      {
        line: 5,
        column: 39,
        path: "commandWrappers[2]",
        message: 'a wrapper prefix starts with its program, not "..."',
      },
      { line: 6, column: 14, path: "oom.check", message: 'expected true or false, got "yes"' },
      { line: 6, column: 19, path: "oom.kernelLogs", message: "unknown field (known: check, cgroupRoot, kernelLog)" },
    ]);
    expect(error?.message).toBe(
      "invalid configuration (7 mistakes): " +
        "line 1, column 1: jsonLine: unknown field (known: commandWrappers, exitCodes, rules, oom, causes, jsonLines, prometheus, grpc, kubernetes); " +
        "line 3, column 11: grpc.recent: expected a whole number from 1 to 1000000, got 0; " +
        'line 4, column 11: grpc.listen: expected unix:///path/to.sock, an absolute socket path, or [host]:port, got "here"; ' +
        "line 5, column 35: commandWrappers[1][1]: expected a text, got 3; " +
        'line 5, column 39: commandWrappers[2]: a wrapper prefix starts with its program, not "..."; ' +
        'line 6, column 14: oom.check: expected true or false, got "yes"; ' +
        "line 6, column 19: oom.kernelLogs: unknown field (known: check, cgroupRoot, kernelLog)",
    );
    expect(() => decodeConfig("grpc: {recent: 0}\n")).toThrow(
      new ExitReporterConfigError([
        { line: 1, column: 16, path: "grpc.recent", message: "expected a whole number from 1 to 1000000, got 0" },
      ]),
    );
    expect(() => decodeConfig("grpc: {recent: 0}\n")).toThrow(
      "invalid configuration: line 1, column 16: grpc.recent: expected a whole number from 1 to 1000000, got 0",
    );
  });

  it("reads the DaemonSet's configuration (deploy/kustomize/base/config.yaml)", () => {
    const text = readFileSync(new URL("../deploy/kustomize/base/config.yaml", import.meta.url), "utf8");
    expect(decodeConfig(text)).toMatchObject({
      jsonLines: { path: "-" },
      prometheus: { listen: { kind: "tcp", host: "", port: 9309 } },
      grpc: { listen: { kind: "unix", path: "/host/var/run/nri/exit-reporter.sock" } },
      oom: { check: true, cgroupRoot: "/host/sys/fs/cgroup", kernelLog: "" },
    });
  });

  it("refuses YAML nested too deep before parsing it", () => {
    expect(() => decodeConfig(`a: ${"[".repeat(5000)}`)).toThrow(
      "invalid configuration: line 1, column 303: nested deeper than 300 levels",
    );
  });
});
