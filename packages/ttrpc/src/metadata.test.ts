import fc from "fast-check";
import { Metadata } from "nice-grpc-common";
import { describe, expect, it } from "vitest";
import { metadataFromPairs, metadataToPairs } from "./metadata.js";

describe("metadata", () => {
  it("sends one pair per value, binary values in base64", () => {
    const metadata = Metadata({ a: "1", "x-bin": Uint8Array.of(0, 255) });
    metadata.append("x-bin", Uint8Array.of(7));
    expect(metadataToPairs(metadata)).toEqual([
      { key: "a", value: "1" },
      { key: "x-bin", value: "AP8=" },
      { key: "x-bin", value: "Bw==" },
    ]);
    expect(metadataToPairs(undefined)).toEqual([]);
  });

  it("reads pairs with Metadata's rules: keys lower-cased, string values of a key joined", () => {
    const metadata = metadataFromPairs([
      { key: "Key", value: "1" },
      { key: "key", value: "2" },
      { key: "x-bin", value: "AP8=" },
    ]);
    expect(metadata.getAll("key")).toEqual(["1, 2"]);
    expect(metadata.get("x-bin")).toEqual(Buffer.from([0, 255]));
  });

  it("never throws on what a peer sends, leaving out what Metadata cannot hold", () => {
    fc.assert(
      fc.property(fc.array(fc.record({ key: fc.string(), value: fc.string() })), (pairs) => {
        const metadata = metadataFromPairs(pairs);
        for (const [key] of metadata) expect(key).toMatch(/^[0-9a-z_.-]+$/);
      }),
    );
  });

  it("round-trips printable values", () => {
    const key = fc.stringMatching(/^[a-z][0-9a-z_.-]{0,10}$/).filter((k) => !k.endsWith("-bin"));
    fc.assert(
      fc.property(fc.dictionary(key, fc.stringMatching(/^[ -~]{0,20}$/)), (record) => {
        const back = metadataFromPairs(metadataToPairs(Metadata(record)));
        for (const [k, v] of Object.entries(record)) expect(back.get(k)).toBe(v);
      }),
    );
  });
});
