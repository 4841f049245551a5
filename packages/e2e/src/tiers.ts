/**
 * The suite's tiers: `containerd` (our plugins under a private containerd,
 * driven through CRI: every file of src/) and `k8s` (a Kubernetes node
 * with a kubelet over that containerd: src/k8s/). `NRI_E2E_TIER` picks one
 * (`NRI_E2E_TIER=k8s npm run e2e`); default both.
 */
export type Tier = "containerd" | "k8s";

export const TIERS: readonly Tier[] = ["containerd", "k8s"];

export function selectedTiers(): readonly Tier[] {
  const wanted = (process.env.NRI_E2E_TIER ?? "")
    .split(",")
    .map((tier) => tier.trim())
    .filter(Boolean);
  if (wanted.length === 0) return TIERS;
  const unknown = wanted.filter((tier) => !TIERS.includes(tier as Tier));
  if (unknown.length > 0) {
    throw new Error(`NRI_E2E_TIER names unknown tiers ${unknown.join(", ")} (known: ${TIERS.join(", ")})`);
  }
  return TIERS.filter((tier) => wanted.includes(tier));
}

/** The test files of the selected tiers, for vitest's `include`. */
export function tierFiles(tiers: readonly Tier[] = selectedTiers()): string[] {
  return tiers.map((tier) => (tier === "k8s" ? "src/k8s/**/*.test.ts" : "src/*.test.ts"));
}
