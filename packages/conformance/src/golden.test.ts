import { execFile } from "node:child_process";
import { readFile } from "node:fs/promises";
import { promisify } from "node:util";
import { Container } from "@nri-ts/api";
import { beforeAll, describe, expect, it } from "vitest";
import { expectations, type Expectation } from "./golden-values.js";
import { describeWithGo, goCommand, pinnedNriModule, runWithInput } from "./go.js";
import { parseVectors, readVectors, vectorsPath, type GoldenVector } from "./vectors.js";

const run = promisify(execFile);
const golden = await readVectors();

const fromHex = (hex: string): Uint8Array => new Uint8Array(Buffer.from(hex, "hex"));
const toHex = (bytes: Uint8Array): string => Buffer.from(bytes).toString("hex");

function expectationFor(vector: GoldenVector): Expectation {
  const expected = expectations.get(vector.name);
  if (!expected) throw new Error(`no TypeScript expectation for Go vector ${vector.name}`);
  return expected;
}

function vectorNamed(name: string): GoldenVector {
  const vector = golden.vectors.find((v) => v.name === name);
  if (!vector) throw new Error(`no Go vector named ${name}`);
  return vector;
}

/** Every bigint and number anywhere in a decoded message. */
function numbersIn(value: unknown): (bigint | number)[] {
  if (typeof value === "bigint" || typeof value === "number") return [value];
  if (typeof value !== "object" || value === null) return [];
  return Object.values(value).flatMap(numbersIn);
}

/**
 * Where ts-proto's JSON knowingly differs from Go's protojson: an enum number
 * without a name is "UNRECOGNIZED" to ts-proto, while protojson keeps 42.
 */
const jsonDivergences = new Map<string, unknown>([
  ["container-unknown-state", { id: "ctr-future", state: "UNRECOGNIZED" }],
]);

describe("golden vectors from the Go reference", () => {
  it("were made with the pinned NRI module", async () => {
    expect(golden.module).toBe(await pinnedNriModule());
  });

  it("pair one to one with the TypeScript expectations", () => {
    const goNames = golden.vectors.map((v) => v.name).sort();
    expect(new Set(goNames).size).toBe(goNames.length);
    expect(goNames).toEqual([...expectations.keys()].sort());
  });

  it("cover int64 beyond ±2^53, uint64 beyond 2^63 and negative int32", () => {
    const numbers = golden.vectors.flatMap((v) => numbersIn(expectationFor(v).decode(fromHex(v.hex))));
    const limit = 2n ** 53n;
    expect(numbers.some((n) => typeof n === "bigint" && n > limit)).toBe(true);
    expect(numbers.some((n) => typeof n === "bigint" && n < -limit)).toBe(true);
    expect(numbers.some((n) => typeof n === "bigint" && n > 2n ** 63n)).toBe(true);
    expect(numbers.some((n) => typeof n === "number" && n < 0)).toBe(true);
  });

  it("carry the container status (fields 14 to 19) exactly", () => {
    const full = Container.decode(fromHex(vectorNamed("container-full").hex));
    expect(full.createdAt).toBe(1767323045123456789n);
    expect(full.startedAt).toBe(1767323046000000001n);
    expect(full.finishedAt).toBe(1773500966535897932n);
    expect(full.exitCode).toBe(137);
    expect(full.statusReason).toBe("OOMKilled");
    expect(full.statusMessage).toBe("内存不足 — container exceeded its 512 MiB limit 🚫");

    const extremes = Container.decode(fromHex(vectorNamed("container-extremes").hex));
    expect(extremes.createdAt).toBe(9223372036854775807n);
    expect(extremes.startedAt).toBe(-1n);
    expect(extremes.finishedAt).toBe(-9223372036854775808n);
    expect(extremes.exitCode).toBe(-2147483648);
    expect(extremes.pid).toBe(4294967295);
  });

  describe.each(golden.vectors)("$name", (vector) => {
    it("decodes Go's bytes to the expected message", () => {
      const expected = expectationFor(vector);
      expect(vector.type).toBe(expected.type);
      expect(expected.decode(fromHex(vector.hex))).toStrictEqual(expected.value);
    });

    it("renders the JSON Go's protojson renders", () => {
      const json: unknown = JSON.parse(JSON.stringify(expectationFor(vector).toJSON()));
      expect(json).toStrictEqual(jsonDivergences.get(vector.name) ?? vector.json);
    });

    if (vector.hasMaps) {
      // Map entries have no fixed order on the wire (Go's ttrpc codec marshals
      // maps in random order), so these bytes are compared after decoding.
      it("encodes to bytes that decode to the same message", () => {
        const expected = expectationFor(vector);
        expect(expected.decode(expected.encode())).toStrictEqual(expected.decode(fromHex(vector.hex)));
      });
    } else {
      it("encodes to Go's exact bytes", () => {
        expect(toHex(expectationFor(vector).encode())).toBe(vector.hex);
      });
    }
  });
});

describeWithGo("golden vectors against a fresh Go build", () => {
  let bin: string;
  beforeAll(async () => {
    bin = await goCommand("golden");
  });

  it("are up to date with cmd/golden (if not, run `npm run golden`)", async () => {
    const { stdout } = await run(bin, [], { maxBuffer: 64 << 20 });
    expect(parseVectors(stdout)).toEqual(golden);
    expect(stdout).toBe(await readFile(vectorsPath, "utf8"));
  });

  it("read our encodings back as the same messages in Go, maps included", async () => {
    const ours = Object.fromEntries(golden.vectors.map((v) => [v.name, toHex(expectationFor(v).encode())]));
    const report = await runWithInput(bin, ["-check"], JSON.stringify(ours));
    expect(JSON.parse(report)).toEqual([]);
  });
});
