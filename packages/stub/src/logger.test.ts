import { describe, expect, it } from "vitest";
import { StubError } from "./errors.js";
import { bindLogger, createLogger, type Logger } from "./logger.js";

function capture(level?: "debug" | "info" | "warn" | "error" | "silent") {
  const lines: string[] = [];
  const logger = createLogger({
    level,
    stream: {
      write: (chunk: string) => {
        lines.push(chunk);
        return true;
      },
    } as never,
    now: () => new Date("2026-01-02T03:04:05.678Z"),
  });
  return { logger, lines };
}

describe("createLogger", () => {
  it("writes one JSON object per line: time, level, msg, then the fields", () => {
    const { logger, lines } = capture();
    logger.info({ container: "c1", count: 2 }, "adjusted");
    logger.warn("plain message");
    expect(lines).toEqual([
      '{"time":"2026-01-02T03:04:05.678Z","level":"info","msg":"adjusted","container":"c1","count":2}\n',
      '{"time":"2026-01-02T03:04:05.678Z","level":"warn","msg":"plain message"}\n',
    ]);
  });

  it("drops lines below its level (info by default)", () => {
    const info = capture();
    info.logger.debug("hidden");
    info.logger.error("shown");
    expect(info.lines.map((l) => JSON.parse(l).msg)).toEqual(["shown"]);
    const debug = capture("debug");
    debug.logger.debug("shown");
    expect(debug.lines).toHaveLength(1);
    const silent = capture("silent");
    silent.logger.error("hidden");
    expect(silent.lines).toHaveLength(0);
  });

  it("writes errors and bigints readably", () => {
    const { logger, lines } = capture();
    logger.error({ err: new StubError("ERR_STUB_CONNECT", "no socket"), limit: 1n << 62n }, "failed");
    expect(JSON.parse(lines[0])).toMatchObject({
      err: { name: "StubError", message: "no socket", code: "ERR_STUB_CONNECT" },
      limit: "4611686018427387904",
    });
  });

  it("keeps a line whose fields cannot be written", () => {
    const { logger, lines } = capture();
    const cycle: Record<string, unknown> = {};
    cycle.self = cycle;
    logger.info({ cycle }, "still here");
    expect(JSON.parse(lines[0])).toMatchObject({ level: "info", msg: "still here", logError: expect.any(String) });
  });

  it("binds fields with child", () => {
    const { logger, lines } = capture();
    bindLogger(logger, { plugin: "10-x" }).info({ a: 1 }, "m");
    expect(JSON.parse(lines[0])).toMatchObject({ plugin: "10-x", a: 1, msg: "m" });
  });
});

describe("bindLogger", () => {
  it("uses a logger without child as it is", () => {
    const calls: unknown[][] = [];
    const record = (...args: unknown[]) => void calls.push(args);
    const logger: Logger = { debug: record, info: record, warn: record, error: record };
    expect(bindLogger(logger, { plugin: "10-x" })).toBe(logger);
  });
});

describe("createLogger with format: text, as logrus writes Go plugins' lines", () => {
  function text(isTTY: boolean) {
    const lines: string[] = [];
    let now = new Date("2026-01-02T03:04:05.678Z").getTime();
    const stream = {
      isTTY,
      write: (chunk: string) => {
        lines.push(chunk);
        return true;
      },
    } as never;
    return { logger: createLogger({ format: "text", stream, now: () => new Date((now += 1500)) }), lines };
  }

  it("writes time, level, msg, then the fields sorted, quoting where Go's %q is needed", () => {
    const { logger, lines } = text(false);
    logger.info({ pod: "web", ips: ["10.0.0.1", "fd00::1"], count: 2 }, "Started pod default/web");
    logger.warn({ "a key": "tab\there", empty: "" }, "plain-word");
    logger.error({ err: new Error("boom"), msg: "clash" }, "");
    expect(lines).toEqual([
      'time="2026-01-02T03:04:08Z" level=info msg="Started pod default/web" count=2 ips="[10.0.0.1 fd00::1]" pod=web\n',
      'time="2026-01-02T03:04:10Z" level=warning msg=plain-word a key="tab\\there" empty=\n',
      'time="2026-01-02T03:04:11Z" level=error err=boom fields.msg=clash\n',
    ]);
  });

  it("lays lines out for a terminal: padded level, seconds since start, padded message, then the fields", () => {
    const { logger, lines } = text(true);
    bindLogger(logger, { plugin: "10-x" }).info("hello");
    logger.debug("hidden");
    logger.warn({ z: 1 }, "careful\n");
    expect(lines).toEqual([
      "INFO   [0001] hello                                         plugin=10-x\n",
      `WARNING[0003] ${"careful".padEnd(44)}  z=1\n`,
    ]);
  });
});
