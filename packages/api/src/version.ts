/**
 * NRI versions. Plugins and runtimes tell each other their NRI version
 * (RegisterPluginRequest / ConfigureRequest); nobody rejects a peer over it,
 * but a plugin may adapt, e.g. to runtimes before v0.12.0, which deliver most
 * events only through StateChange. Runtimes that do not report their NRI
 * version get it inferred from their own name and version.
 */
import { compareSemVer, parseSemVer } from "./semver.js";
import { goQuote } from "@nri-ts/common";

/** The NRI protocol version this package speaks (github.com/containerd/nri v0.12.5). */
export const NRI_VERSION = "v0.12.5";
/** What Go reports when it cannot tell its NRI version. */
export const UNKNOWN_NRI_VERSION = "0.0.0-unknown";
/** What Go reports for NRI built from its own repository. */
export const DEVEL_NRI_VERSION = "(devel)";

/** The first NRI version whose runtimes apply a plugin's FailurePolicy (ConfigureResponse field 3). */
export const FAILURE_POLICY_NRI_VERSION = "v0.12.4";

/**
 * Whether a runtime of this NRI version applies failure policies; false for
 * older ones (which skip the field) and for versions that are not semver.
 */
export function runtimeAppliesFailurePolicy(nriVersion: string): boolean {
  return compareSemVer(nriVersion, FAILURE_POLICY_NRI_VERSION) >= 0;
}

export class VersionInferenceError extends Error {
  override readonly name = "VersionInferenceError";
}

/** Whether a reported NRI version says nothing, so that it is worth inferring one. */
export function isUnknownNriVersion(version: string): boolean {
  return version === "" || version === DEVEL_NRI_VERSION || version === UNKNOWN_NRI_VERSION;
}

type Releases = readonly (readonly [series: string, firstPatch: number, lastPatch: number, nri: string])[];

const CRIO_NRI_0_3_1 = "v0.3.1-0.20230504231226-94185418e253";
const CRIO_NRI_0_9_1 = "v0.9.1-0.20250219030224-e597e7849f24";

/** Which NRI each runtime release ships, per the Go reference's table (v0.12.5, unchanged since v0.12.2). */
const RUNTIME_RELEASES: Readonly<Record<string, Releases>> = {
  containerd: [
    ["v1.7", 0, 6, "v0.3.0"],
    ["v1.7", 7, 13, "v0.4.0"],
    ["v1.7", 14, 15, "v0.6.0"],
    ["v1.7", 16, 25, "v0.6.1"],
    ["v1.7", 26, 30, "v0.8.0"],
    ["v2.0", 0, 7, "v0.8.0"],
    ["v2.1", 0, 6, "v0.8.0"],
    ["v2.2", 0, 0, "v0.10.0"],
    ["v2.2", 1, 1, "v0.11.0"],
  ],
  "cri-o": [
    ["v1.26", 0, 1, "v0.2.0"],
    ["v1.26", 2, 3, "v0.3.0"],
    ["v1.26", 4, 4, CRIO_NRI_0_3_1],
    ["v1.27", 0, 0, "v0.3.0"],
    ["v1.27", 1, 8, CRIO_NRI_0_3_1],
    ["v1.28", 0, 11, CRIO_NRI_0_3_1],
    ["v1.29", 0, 1, "v0.5.0"],
    ["v1.29", 2, 13, "v0.6.0"],
    ["v1.30", 0, 14, "v0.6.0"],
    ["v1.31", 0, 13, "v0.6.1"],
    ["v1.32", 0, 12, "v0.9.0"],
    ["v1.33", 0, 8, CRIO_NRI_0_9_1],
    ["v1.34", 0, 4, "v0.10.0"],
    ["v1.35", 0, 0, "v0.11.0"],
  ],
};

/** Whether Go's strconv.ParseUint(text, radix, 64) accepts the text: digits only, no sign, at most 2^64 - 1. */
function isUint64(text: string, radix: 10 | 16): boolean {
  const digits = radix === 10 ? /^[0-9]+$/ : /^[0-9a-fA-F]+$/;
  return digits.test(text) && BigInt((radix === 16 ? "0x" : "") + text) < 1n << 64n;
}

/**
 * Drops a `git describe` suffix (`v2.2.0-225-ge9dc15b7a.m` → `v2.2.0`), which
 * semver would otherwise read as a prerelease older than v2.2.0. Like Go
 * (v0.12.5), it leaves versions with build metadata alone and wants the
 * commit count and the hash to be unsigned numbers that fit 64 bits.
 */
function stripGitDescribeSuffix(version: string): string {
  const semver = parseSemVer(version);
  if (semver?.build !== "" || semver.prerelease === "") return version;
  const [commits, hash] = splitOnce(semver.prerelease.slice(1), "-");
  if (hash === undefined || !hash.startsWith("g") || !isUint64(commits, 10)) return version;
  if (!isUint64(splitOnce(hash.slice(1), ".")[0], 16)) return version;
  return version.slice(0, -semver.prerelease.length);
}

function splitOnce(text: string, separator: string): [string, string | undefined] {
  const at = text.indexOf(separator);
  return at < 0 ? [text, undefined] : [text.slice(0, at), text.slice(at + separator.length)];
}

/**
 * The NRI version a runtime release ships: that of the newest listed release
 * not newer than `runtimeVersion`. Runtime names are `containerd` and `cri-o`;
 * versions need their leading `v` (Go semver rules).
 * @throws VersionInferenceError for an unknown runtime, or a version older than any listed or not semver
 */
export function inferRuntimeNriVersion(runtimeName: string, runtimeVersion: string): string {
  const releases = Object.hasOwn(RUNTIME_RELEASES, runtimeName) ? RUNTIME_RELEASES[runtimeName] : undefined;
  if (!releases) {
    throw new VersionInferenceError(`can't infer version for unknown runtime ${goQuote(runtimeName)}`);
  }
  const version = stripGitDescribeSuffix(runtimeVersion);
  let best: { release: string; nri: string } | undefined;
  for (const [series, firstPatch, lastPatch, nri] of releases) {
    for (let patch = firstPatch; patch <= lastPatch; patch++) {
      const release = `${series}.${patch}`;
      if (compareSemVer(release, version) <= 0 && (!best || compareSemVer(release, best.release) > 0)) {
        best = { release, nri };
      }
    }
  }
  if (!best) throw new VersionInferenceError(`failed to find latest version for ${goQuote(runtimeVersion)}`);
  return best.nri;
}
