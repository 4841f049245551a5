/**
 * Identifiers the simulated runtime makes up. They derive from the scenario's
 * names, so two runs of a scenario report the same ids.
 */
import { createHash } from "node:crypto";

function digest(kind: string, name: string): string {
  return createHash("sha256").update(`nri-sim/${kind}/${name}`).digest("hex");
}

/** A 64-hex-digit id like containerd's, e.g. for pod `web` or container `web/app`. */
export function simulatedId(kind: "pod" | "container", name: string): string {
  return digest(kind, name);
}

/** A UUID-shaped pod uid (version 4 layout, deterministic). */
export function simulatedUid(podName: string): string {
  const hex = digest("uid", podName);
  const variant = ((parseInt(hex[16], 16) & 0x3) | 0x8).toString(16);
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-4${hex.slice(13, 16)}-${variant}${hex.slice(17, 20)}-${hex.slice(20, 32)}`;
}
