// The Go twin of the differ is a module of its own, as the upstream plugin
// is: its diff libraries need other versions of shared modules than the
// twins of the other plugins pin. Keep github.com/containerd/nri at the
// version ../../go.mod pins.
module github.com/nri-ts/nri-ts/packages/conformance/cmd/plugin-differ

go 1.24.2

require (
	github.com/containerd/nri v0.12.5
	github.com/r3labs/diff/v3 v3.0.2
	github.com/sirupsen/logrus v1.9.4
	github.com/sters/yaml-diff v0.4.0
	sigs.k8s.io/yaml v1.5.0
)

require (
	github.com/containerd/log v0.1.0 // indirect
	github.com/containerd/ttrpc v1.2.7 // indirect
	github.com/fatih/color v1.12.0 // indirect
	github.com/goccy/go-yaml v1.8.10 // indirect
	github.com/google/go-cmp v0.7.0 // indirect
	github.com/knqyf263/go-plugin v0.9.0 // indirect
	github.com/mattn/go-colorable v0.1.8 // indirect
	github.com/mattn/go-isatty v0.0.13 // indirect
	github.com/opencontainers/runtime-spec v1.3.0 // indirect
	github.com/tetratelabs/wazero v1.11.0 // indirect
	github.com/vmihailenco/msgpack/v5 v5.4.1 // indirect
	github.com/vmihailenco/tagparser/v2 v2.0.0 // indirect
	go.yaml.in/yaml/v2 v2.4.2 // indirect
	golang.org/x/sys v0.39.0 // indirect
	golang.org/x/xerrors v0.0.0-20200804184101-5ec99f83aff1 // indirect
	google.golang.org/genproto/googleapis/rpc v0.0.0-20240528184218-531527333157 // indirect
	google.golang.org/grpc v1.65.1 // indirect
	google.golang.org/protobuf v1.34.1 // indirect
)
