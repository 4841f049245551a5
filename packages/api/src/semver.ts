/**
 * Semantic versions as Go's golang.org/x/mod/semver reads them, which is what
 * the Go reference uses to match runtime versions: a leading `v` is
 * required, `v1` and `v1.2` are short for `v1.0.0` and `v1.2.0`, and an
 * invalid version sorts before every valid one.
 */

export interface SemVer {
  major: bigint;
  minor: bigint;
  patch: bigint;
  /** With its leading `-`, or "". */
  prerelease: string;
  /** With its leading `+`, or "". */
  build: string;
}

const NUMBER = "(0|[1-9][0-9]*)";
const IDENTS = "[0-9A-Za-z-]+(?:\\.[0-9A-Za-z-]+)*";
const SEMVER = new RegExp(`^v${NUMBER}(?:\\.${NUMBER}(?:\\.${NUMBER}(-${IDENTS})?(\\+${IDENTS})?)?)?$`);

/** A numeric identifier with a leading zero, which semver forbids in prereleases. */
function isBadNumber(ident: string): boolean {
  return /^0[0-9]+$/.test(ident);
}

export function parseSemVer(version: string): SemVer | undefined {
  const match = SEMVER.exec(version);
  if (!match) return undefined;
  const [, major, minor = "0", patch = "0", prerelease = "", build = ""] = match;
  if (prerelease.slice(1).split(".").some(isBadNumber)) return undefined;
  return { major: BigInt(major!), minor: BigInt(minor), patch: BigInt(patch), prerelease, build };
}

function sign(x: bigint): number {
  return x < 0n ? -1 : x > 0n ? 1 : 0;
}

function compareIdent(a: string, b: string): number {
  const aNumeric = /^[0-9]+$/.test(a);
  const bNumeric = /^[0-9]+$/.test(b);
  if (aNumeric && bNumeric) return sign(BigInt(a) - BigInt(b));
  if (aNumeric !== bNumeric) return aNumeric ? -1 : 1;
  return a < b ? -1 : a > b ? 1 : 0;
}

function comparePrerelease(a: string, b: string): number {
  if (a === b) return 0;
  if (a === "") return 1;
  if (b === "") return -1;
  const as = a.slice(1).split(".");
  const bs = b.slice(1).split(".");
  for (let i = 0; i < Math.min(as.length, bs.length); i++) {
    const c = compareIdent(as[i]!, bs[i]!);
    if (c !== 0) return c;
  }
  return sign(BigInt(as.length - bs.length));
}

/** -1, 0 or 1, ignoring build metadata; invalid versions are equal to each other and below valid ones. */
export function compareSemVer(a: string, b: string): number {
  const pa = parseSemVer(a);
  const pb = parseSemVer(b);
  if (!pa || !pb) return pa ? 1 : pb ? -1 : 0;
  return (
    sign(pa.major - pb.major) ||
    sign(pa.minor - pb.minor) ||
    sign(pa.patch - pb.patch) ||
    comparePrerelease(pa.prerelease, pb.prerelease)
  );
}
