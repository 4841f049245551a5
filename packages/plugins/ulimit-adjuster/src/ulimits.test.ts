import { ContainerAdjustment, POSIXRlimit } from "@nri-ts/api";
import { describe, expect, it } from "vitest";
import { adjustUlimits, parseUlimits, type Ulimit, UlimitError } from "./ulimits.js";

const key = "ulimits.noderesource.dev/container.web";

function rlimits(...limits: [type: string, hard: number, soft: number][]): Ulimit[] {
  return limits.map(([type, hard, soft]) => ({ type, hard: BigInt(hard), soft: BigInt(soft) }));
}

// The ten parse cases of the Go plugin's tests, with our own inputs.
describe("parseUlimits", () => {
  it("finds nothing without annotations", () => {
    expect(parseUlimits("web", {})).toEqual([]);
  });

  it("ignores annotations it does not own", () => {
    expect(
      parseUlimits("web", { "example.com/other": "x", "ulimits.noderesource.dev/container.db": "- type: nofile" }),
    ).toEqual([]);
  });

  it("reads one limit", () => {
    expect(parseUlimits("web", { [key]: "- type: RLIMIT_NOFILE\n  soft: 1024\n  hard: 4096\n" })).toEqual(
      rlimits(["RLIMIT_NOFILE", 4096, 1024]),
    );
  });

  it("reads several limits, in order", () => {
    const value = "- {type: RLIMIT_NOFILE, soft: 1024, hard: 4096}\n- {type: RLIMIT_NPROC, soft: 200, hard: 300}\n";
    expect(parseUlimits("web", { [key]: value })).toEqual(
      rlimits(["RLIMIT_NOFILE", 4096, 1024], ["RLIMIT_NPROC", 300, 200]),
    );
  });

  it("adds the RLIMIT_ prefix where it is missing", () => {
    expect(parseUlimits("web", { [key]: "- {type: STACK, soft: 8, hard: 16}" })).toEqual(
      rlimits(["RLIMIT_STACK", 16, 8]),
    );
  });

  it("takes a prefixed type in lower case", () => {
    expect(parseUlimits("web", { [key]: "- {type: rlimit_memlock, soft: 64, hard: 128}" })).toEqual(
      rlimits(["RLIMIT_MEMLOCK", 128, 64]),
    );
  });

  it("takes a bare type in lower case", () => {
    expect(parseUlimits("web", { [key]: "- {type: nice, soft: 1, hard: 2}" })).toEqual(rlimits(["RLIMIT_NICE", 2, 1]));
  });

  it("refuses another prefix, quoting the type as written", () => {
    expect(() => parseUlimits("web", { [key]: "- {type: ULIMIT_CORE, soft: 1, hard: 2}" })).toThrow(
      new UlimitError('failed to parse type: "ULIMIT_CORE"'),
    );
  });

  it("refuses an unknown resource", () => {
    expect(() => parseUlimits("web", { [key]: "- {type: RLIMIT_FILES, soft: 1, hard: 2}" })).toThrow(
      new UlimitError('failed to parse type: "RLIMIT_FILES"'),
    );
  });

  it("refuses the whole list for one bad entry", () => {
    const value = "- {type: RLIMIT_CPU, soft: 10, hard: 20}\n- {type: rlimit_disk, soft: 1, hard: 2}\n";
    expect(() => parseUlimits("web", { [key]: value })).toThrow(new UlimitError('failed to parse type: "rlimit_disk"'));
  });
});

// The five adjust cases of the Go plugin's tests.
describe("adjustUlimits", () => {
  it("gives an empty adjustment for no limits", () => {
    expect(adjustUlimits([])).toEqual(ContainerAdjustment.fromPartial({}));
  });

  it("refuses a hard limit below the soft one", () => {
    expect(() => adjustUlimits(rlimits(["RLIMIT_CORE", 0, 1]))).toThrow(
      new UlimitError('ulimit "RLIMIT_CORE" must have hard limit >= soft limit'),
    );
  });

  it("sets one limit", () => {
    expect(adjustUlimits(rlimits(["RLIMIT_NOFILE", 4096, 1024])).rlimits).toEqual([
      POSIXRlimit.fromPartial({ type: "RLIMIT_NOFILE", hard: 4096n, soft: 1024n }),
    ]);
  });

  it("refuses all limits for one bad one", () => {
    expect(() => adjustUlimits(rlimits(["RLIMIT_NOFILE", 4096, 1024], ["RLIMIT_AS", 5, 6]))).toThrow(
      new UlimitError('ulimit "RLIMIT_AS" must have hard limit >= soft limit'),
    );
  });

  it("sets several limits in order, a soft limit of 0 included", () => {
    expect(adjustUlimits(rlimits(["RLIMIT_NPROC", 300, 200], ["RLIMIT_RTPRIO", 5, 0])).rlimits).toEqual([
      POSIXRlimit.fromPartial({ type: "RLIMIT_NPROC", hard: 300n, soft: 200n }),
      POSIXRlimit.fromPartial({ type: "RLIMIT_RTPRIO", hard: 5n, soft: 0n }),
    ]);
  });
});

describe("which annotation counts", () => {
  const legacy = "ulimits.nri.containerd.io/container.web";

  it("reads the legacy key when the current one is absent", () => {
    expect(parseUlimits("web", { [legacy]: "- {type: nofile, hard: 10}" })).toEqual(rlimits(["RLIMIT_NOFILE", 10, 0]));
  });

  it("prefers the current key, even when it is empty", () => {
    expect(parseUlimits("web", { [key]: "- {type: cpu, hard: 1}", [legacy]: "- {type: nofile, hard: 10}" })).toEqual(
      rlimits(["RLIMIT_CPU", 1, 0]),
    );
    expect(parseUlimits("web", { [key]: "", [legacy]: "- {type: nofile, hard: 10}" })).toEqual([]);
  });

  it("keeps duplicates and upper-cases as Go does", () => {
    expect(parseUlimits("web", { [key]: "- {type: nofile, hard: 1}\n- {type: NoFile, hard: 2}" })).toEqual(
      rlimits(["RLIMIT_NOFILE", 1, 0], ["RLIMIT_NOFILE", 2, 0]),
    );
    // JavaScript would turn the ligature into "FI"; Go's ToUpper leaves it alone
    expect(() => parseUlimits("web", { [key]: "- {type: no\ufb01le}" })).toThrow('failed to parse type: "no\ufb01le"');
  });

  it("logs what it does at debug level", () => {
    const lines: unknown[][] = [];
    const logger = { debug: (...args: unknown[]) => lines.push(args) };
    adjustUlimits(parseUlimits("web", { [key]: "- {type: nofile, soft: 1, hard: 2}" }, logger), logger);
    parseUlimits("db", {}, logger);
    expect(lines).toEqual([
      [{ type: "RLIMIT_NOFILE", hard: 2n, soft: 1n }, "adjust rlimit"],
      ["no annotations found with keys [ulimits.noderesource.dev/container.db ulimits.nri.containerd.io/container.db]"],
    ]);
  });
});
