// The Go twin of the hook-injector is a module of its own, as the upstream
// plugin is: the hooks library it is built on (go.podman.io/common) needs
// newer versions of shared modules (sigs.k8s.io/yaml among them) than the
// twins of the other plugins pin. Keep github.com/containerd/nri at the
// version ../../go.mod pins.
module github.com/nri-ts/nri-ts/packages/conformance/cmd/plugin-hook-injector

go 1.24.2

require (
	github.com/containerd/nri v0.12.5
	github.com/opencontainers/runtime-spec v1.3.0
	github.com/sirupsen/logrus v1.9.4
	go.podman.io/common v0.66.1
	google.golang.org/protobuf v1.36.9
)

require (
	github.com/containerd/log v0.1.0 // indirect
	github.com/containerd/ttrpc v1.2.7 // indirect
	github.com/fsnotify/fsnotify v1.9.0 // indirect
	github.com/knqyf263/go-plugin v0.9.0 // indirect
	github.com/tetratelabs/wazero v1.11.0 // indirect
	go.podman.io/storage v1.61.0 // indirect
	golang.org/x/sys v0.39.0 // indirect
	google.golang.org/genproto/googleapis/rpc v0.0.0-20250414145226-207652e42e2e // indirect
	google.golang.org/grpc v1.72.2 // indirect
)
