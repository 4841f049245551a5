import { readFile } from "node:fs/promises";
import { join } from "node:path";
import { moduleDir } from "./go.js";

/** One message as the Go reference encodes it (see cmd/golden). */
export interface GoldenVector {
  readonly name: string;
  /** Full proto name, e.g. `nri.pkg.api.v1alpha1.Container`. */
  readonly type: string;
  /** Whether a populated map occurs in the message (entry order is not fixed on the wire). */
  readonly hasMaps: boolean;
  /** Go's `proto.MarshalOptions{Deterministic: true}` bytes, as hex. */
  readonly hex: string;
  /** Go's protojson rendering, for people reading the file. */
  readonly json: unknown;
}

export interface GoldenFile {
  readonly comment: string;
  /** The Go module and version that produced the vectors. */
  readonly module: string;
  readonly vectors: readonly GoldenVector[];
}

/** The checked-in vectors, regenerated with `npm run golden`. */
export const vectorsPath = join(moduleDir, "vectors", "api.json");

function isVector(value: unknown): value is GoldenVector {
  if (typeof value !== "object" || value === null) return false;
  const v = value as Record<string, unknown>;
  return (
    typeof v.name === "string" &&
    typeof v.type === "string" &&
    typeof v.hasMaps === "boolean" &&
    typeof v.hex === "string" &&
    /^(?:[0-9a-f]{2})*$/.test(v.hex) &&
    "json" in v
  );
}

/** Parses a vectors file, refusing anything not shaped like cmd/golden's output. */
export function parseVectors(text: string): GoldenFile {
  const file: unknown = JSON.parse(text);
  if (typeof file !== "object" || file === null) throw new Error("golden vectors: not a JSON object");
  const { comment, module, vectors } = file as Record<string, unknown>;
  if (typeof comment !== "string" || typeof module !== "string" || !Array.isArray(vectors)) {
    throw new Error("golden vectors: expected {comment, module, vectors[]}");
  }
  const bad = vectors.findIndex((v) => !isVector(v));
  if (bad >= 0) throw new Error(`golden vectors: entry ${bad} is not {name, type, hasMaps, hex, json}`);
  return { comment, module, vectors: vectors as GoldenVector[] };
}

/** Reads and parses the checked-in vectors. */
export async function readVectors(): Promise<GoldenFile> {
  return parseVectors(await readFile(vectorsPath, "utf8"));
}
