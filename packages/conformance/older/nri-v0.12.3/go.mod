// The conformance programs (../../cmd/...) built against NRI v0.12.3 with ttrpc v1.2.9, as
// containerd 2.4.2 embeds them.
// Build them from here: go build -tags nri_before_policies
// github.com/nri-ts/nri-ts/packages/conformance/cmd/<name>. The replace of
// github.com/containerd/nri decides the version for the whole build; the
// require line shows the parent's version only because go computes it so.
module github.com/nri-ts/nri-ts/packages/conformance/older/nri-v0.12.3

go 1.25.0

require (
	github.com/containerd/nri v0.12.5
	github.com/containerd/ttrpc v1.2.9
	github.com/nri-ts/nri-ts/packages/conformance v0.0.0
)

require golang.org/x/mod v0.32.0 // indirect

replace github.com/nri-ts/nri-ts/packages/conformance => ../..

replace github.com/containerd/nri => github.com/containerd/nri v0.12.3
