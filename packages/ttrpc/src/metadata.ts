import type { Metadata } from "nice-grpc-common";
import { CallMetadata } from "./call-metadata.js";
import type { KeyValue } from "./gen/ttrpc/request.js";

/*
 * ttrpc carries metadata as repeated {key, value} string pairs, a key
 * repeating for several values. Binary values (keys ending in "-bin") travel
 * base64-encoded, as gRPC sends them in HTTP/2 headers.
 */

const NO_PAIRS: readonly KeyValue[] = Object.freeze([]);

/** The wire pairs for `metadata`, in its order; no metadata gives none. */
export function metadataToPairs(metadata: Metadata | undefined): readonly KeyValue[] {
  if (metadata === undefined) return NO_PAIRS;
  const pairs: KeyValue[] = [];
  for (const [key, values] of metadata) {
    for (const value of values) {
      pairs.push({ key, value: typeof value === "string" ? value : Buffer.from(value).toString("base64") });
    }
  }
  return pairs;
}

/**
 * Metadata from wire pairs. Keys are lower-cased and the string values of one
 * key joined with ", " (nice-grpc's Metadata rules). A pair that Metadata
 * cannot hold (a key outside [0-9a-z_.-], a value outside printable ASCII)
 * is left out rather than failing the call.
 */
export function metadataFromPairs(pairs: readonly KeyValue[]): Metadata {
  const metadata = new CallMetadata();
  for (const { key, value } of pairs) {
    try {
      if (key.toLowerCase().endsWith("-bin")) metadata.append(key, Buffer.from(value, "base64"));
      else metadata.append(key, value);
    } catch {
      // not representable in Metadata: skipped, as documented above
    }
  }
  return metadata;
}
