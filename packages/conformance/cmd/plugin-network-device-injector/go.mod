// The Go twin of the network-device-injector is a module of its own, as the
// upstream plugin is: it pins sigs.k8s.io/yaml v1.4.0 (the other twins pin
// v1.3.0) and needs netlink and the CNI plugins' namespace helpers. Keep
// github.com/containerd/nri at the version ../../go.mod pins.
module github.com/nri-ts/nri-ts/packages/conformance/cmd/plugin-network-device-injector

go 1.24.0

require (
	github.com/containerd/nri v0.12.5
	github.com/containernetworking/plugins v1.4.1
	github.com/sirupsen/logrus v1.9.4
	github.com/vishvananda/netlink v1.2.1-beta.2
	sigs.k8s.io/yaml v1.4.0
)

require (
	github.com/containerd/log v0.1.0 // indirect
	github.com/containerd/ttrpc v1.2.7 // indirect
	github.com/knqyf263/go-plugin v0.9.0 // indirect
	github.com/opencontainers/runtime-spec v1.3.0 // indirect
	github.com/tetratelabs/wazero v1.11.0 // indirect
	github.com/vishvananda/netns v0.0.4 // indirect
	golang.org/x/sys v0.39.0 // indirect
	google.golang.org/genproto/googleapis/rpc v0.0.0-20240528184218-531527333157 // indirect
	google.golang.org/grpc v1.65.1 // indirect
	google.golang.org/protobuf v1.34.1 // indirect
)
