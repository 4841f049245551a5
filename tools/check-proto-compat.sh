#!/usr/bin/env bash
# Proves that our api.proto and upstream's (github.com/containerd/nri, the
# version pinned in packages/conformance/go.mod) are the same on the wire,
# checking `buf breaking` (WIRE_JSON rules: wire and JSON names) in both directions.
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
export PATH="$root/node_modules/.bin:$PATH"
upstream_dir="$(cd "$root/packages/conformance" && go mod download -json github.com/containerd/nri | sed -n 's/^[[:space:]]*"Dir": "\(.*\)",$/\1/p')"
ours="$root/packages/api/proto"
rel="nri/pkg/api/v1alpha1/api.proto"

# Lay upstream's file out at our path so that buf compares types, not file names.
scratch="$(mktemp -d)"
trap 'rm -rf "$scratch"' EXIT
mkdir -p "$scratch/$(dirname "$rel")"
cp "$upstream_dir/pkg/api/api.proto" "$scratch/$rel"
chmod u+w "$scratch/$rel"

cd "$root/packages/api"
buf breaking "$ours" --against "$scratch" --config '{"version":"v2","breaking":{"use":["WIRE_JSON"]}}'
buf breaking "$scratch" --against "$ours" --config '{"version":"v2","breaking":{"use":["WIRE_JSON"]}}'
echo "api.proto: wire-identical to $(basename "$upstream_dir") in both directions"
