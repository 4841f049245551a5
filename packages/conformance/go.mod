module github.com/nri-ts/nri-ts/packages/conformance

go 1.24.0

require (
	github.com/containerd/log v0.1.0
	github.com/containerd/nri v0.12.5
	github.com/containerd/ttrpc v1.2.7
	github.com/moby/sys/mountinfo v0.7.2
	github.com/sirupsen/logrus v1.9.4
	go.yaml.in/yaml/v3 v3.0.5
	google.golang.org/grpc v1.65.1
	google.golang.org/protobuf v1.34.1
	sigs.k8s.io/yaml v1.3.0
)

require (
	github.com/knqyf263/go-plugin v0.9.0 // indirect
	github.com/opencontainers/runtime-spec v1.3.0 // indirect
	github.com/tetratelabs/wazero v1.11.0 // indirect
	golang.org/x/sys v0.39.0 // indirect
	google.golang.org/genproto/googleapis/rpc v0.0.0-20240528184218-531527333157 // indirect
	gopkg.in/yaml.v2 v2.4.0 // indirect
)
