import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { decodeConfig, defaultConfig, ExitReporterConfigError } from "./config.js";

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
      "invalid configuration: jsonLine: unknown field (known: commandWrappers, exitCodes, oom, causes, jsonLines, prometheus, grpc)",
    ],
    ["jsonLines: {file: x}", "invalid configuration: jsonLines.file: unknown field (known: path, maxBytes, keep)"],
    [
      "jsonLines: {maxBytes: 10Mi}",
      'invalid configuration: jsonLines.maxBytes: expected a whole number from 1024, got "10Mi"',
    ],
    ["jsonLines: {keep: -1}", "invalid configuration: jsonLines.keep: expected a whole number from 0 to 100, got -1"],
    ["jsonLines: stdout", 'invalid configuration: jsonLines: expected a mapping, got "stdout"'],
    ["prometheus: {listen: 9309}", "invalid configuration: prometheus.listen: expected a text, got 9309"],
    [
      "prometheus: {listen: /run/metrics.sock}",
      'invalid configuration: prometheus.listen: expected [host]:port (Prometheus scrapes over TCP), got "/run/metrics.sock"',
    ],
    [
      "prometheus: {listen: 'localhost:99999'}",
      'invalid configuration: prometheus.listen: expected unix:///path/to.sock, an absolute socket path, or [host]:port, got "localhost:99999"',
    ],
    [
      "prometheus: {reasons: Evicted}",
      'invalid configuration: prometheus.reasons: expected a list of reasons, got "Evicted"',
    ],
    [
      "grpc: {listen: exits.sock}",
      'invalid configuration: grpc.listen: expected unix:///path/to.sock, an absolute socket path, or [host]:port, got "exits.sock"',
    ],
    ["grpc: {recent: 0}", "invalid configuration: grpc.recent: expected a whole number from 1 to 1000000, got 0"],
    ["oom: {check: yes}", 'invalid configuration: oom.check: expected true or false, got "yes"'],
    ["oom: {kernelLog: 1}", "invalid configuration: oom.kernelLog: expected true or false, got 1"],
    [
      "causes: {ttlSeconds: 1.5}",
      "invalid configuration: causes.ttlSeconds: expected a whole number from 1 to 86400, got 1.5",
    ],
    [
      "commandWrappers: tini --",
      'invalid configuration: commandWrappers: expected a list of prefixes such as "tini --", got "tini --"',
    ],
    [
      "commandWrappers: ['... --']",
      'invalid configuration: commandWrappers[0]: a wrapper prefix starts with its program, not "..."',
    ],
    ["commandWrappers: [[tini, 3]]", "invalid configuration: commandWrappers[0][1]: expected a text, got 3"],
    ["exitCodes: {three: x}", "invalid configuration: exitCodes: three: expected a whole number as exit code"],
    [
      "exitCodes: [3]",
      'invalid configuration: exitCodes: expected a mapping of exit codes to texts, e.g. {3: "the configuration file is missing"}',
    ],
    ["- a", "invalid configuration: expected a mapping, got a list"],
    [
      "a: [",
      "invalid configuration: not YAML: Flow sequence in block collection must be sufficiently indented and end with a ] at line 1, column 5:",
    ],
  ])("refuses %j", (text, message) => {
    expect(() => decodeConfig(text)).toThrow(new ExitReporterConfigError(message));
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
      "invalid configuration: nested deeper than 300 levels",
    );
  });
});
