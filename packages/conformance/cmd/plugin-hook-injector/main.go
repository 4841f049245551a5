// Command plugin-hook-injector is the Go hook-injector of
// github.com/containerd/nri (plugins/hook-injector), restated for the
// conformance suite. The upstream plugin is a separate Go module that the
// module proxy does not serve, and a main package cannot be imported, so
// this program does what it does, on the same libraries: the upstream stub
// (pkg/stub), the hooks library of go.podman.io/common v0.66.1 (the version
// the upstream module pins) for reading, watching and matching hook files,
// and api.FromOCIHooks/AddHooks for the adjustment, with the same messages.
//
// As a plugin it takes the upstream flags (-idx, -socket-path, -verbose,
// -disableWatch) and -hooks-dirs, which the upstream plugin lacks (its
// directories are fixed): a comma-separated list, lowest precedence first.
//
// With -oracle it is a test oracle instead: it reads JSON lines
// {"dirs": [...], "pod": {...}, "container": {...}} on stdin (pod and
// container as api.PodSandbox and api.Container in protojson) and writes
// one JSON line per request: {"setupError": "..."} when hooks.New fails,
// else {"hooks": <api.Hooks in protojson, or null>} or {"error": "..."}.
package main

import (
	"bufio"
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"os"
	"strings"

	rspec "github.com/opencontainers/runtime-spec/specs-go"
	"github.com/sirupsen/logrus"
	"go.podman.io/common/pkg/hooks"
	"google.golang.org/protobuf/encoding/protojson"

	"github.com/containerd/nri/pkg/api"
	"github.com/containerd/nri/pkg/stub"
)

var log = logrus.StandardLogger()

type plugin struct {
	mgr *hooks.Manager
}

func (p *plugin) CreateContainer(_ context.Context, pod *api.PodSandbox, container *api.Container) (*api.ContainerAdjustment, []*api.ContainerUpdate, error) {
	ctrName := container.Name
	if pod != nil {
		ctrName = pod.Name + "/" + container.Name
	}

	annotations := map[string]string{}
	for k, v := range container.Annotations {
		annotations[k] = v
	}
	for k, v := range pod.Annotations {
		annotations[k] = v
	}
	hasBindMounts := len(container.Mounts) > 0
	spec := &rspec.Spec{Process: &rspec.Process{Args: container.Args}}

	if _, err := p.mgr.Hooks(spec, annotations, hasBindMounts); err != nil {
		log.Errorf("%s: failed to generate hooks: %v", ctrName, err)
		return nil, nil, fmt.Errorf("hook generation failed: %w", err)
	}
	if spec.Hooks == nil {
		log.Infof("%s: no hooks to inject, ignoring", ctrName)
		return nil, nil, nil
	}

	adjust := &api.ContainerAdjustment{}
	adjust.AddHooks(api.FromOCIHooks(spec.Hooks))
	log.Infof("%s: OCI hooks injected", ctrName)
	return adjust, nil, nil
}

type request struct {
	Dirs      []string        `json:"dirs"`
	Pod       json.RawMessage `json:"pod"`
	Container json.RawMessage `json:"container"`
}

type answer struct {
	SetupError string          `json:"setupError,omitempty"`
	Hooks      json.RawMessage `json:"hooks,omitempty"`
	Error      string          `json:"error,omitempty"`
}

func oracle() error {
	in := bufio.NewScanner(os.Stdin)
	in.Buffer(make([]byte, 1<<20), 16<<20)
	out := json.NewEncoder(os.Stdout)
	for in.Scan() {
		var req request
		if err := json.Unmarshal(in.Bytes(), &req); err != nil {
			return err
		}
		pod, container := &api.PodSandbox{}, &api.Container{}
		if err := protojson.Unmarshal(req.Pod, pod); err != nil {
			return err
		}
		if err := protojson.Unmarshal(req.Container, container); err != nil {
			return err
		}
		var a answer
		mgr, err := hooks.New(context.Background(), req.Dirs, []string{})
		if err != nil {
			a.SetupError = err.Error()
		} else if adjust, _, err := (&plugin{mgr}).CreateContainer(context.Background(), pod, container); err != nil {
			a.Error = err.Error()
		} else if adjust == nil {
			a.Hooks = json.RawMessage("null")
		} else if a.Hooks, err = protojson.Marshal(adjust.Hooks); err != nil {
			return err
		}
		if err := out.Encode(a); err != nil {
			return err
		}
	}
	return in.Err()
}

func main() {
	var (
		pluginIdx, socketPath, dirList string
		verbose, disableWatch, test    bool
	)
	flag.StringVar(&pluginIdx, "idx", "", "plugin index to register to NRI")
	flag.StringVar(&socketPath, "socket-path", "", "path of the NRI socket file")
	flag.BoolVar(&verbose, "verbose", false, "enable (more) verbose logging")
	flag.BoolVar(&disableWatch, "disableWatch", false, "disable watching hook directories for new hooks")
	flag.StringVar(&dirList, "hooks-dirs", hooks.DefaultDir+","+hooks.OverrideDir, "comma-separated hook directories, lowest precedence first")
	flag.BoolVar(&test, "oracle", false, "answer requests from stdin instead of running as a plugin")
	flag.Parse()

	log.SetFormatter(&logrus.TextFormatter{PadLevelText: true})
	if test {
		log.SetOutput(io.Discard)
		if err := oracle(); err != nil {
			fmt.Fprintln(os.Stderr, err)
			os.Exit(1)
		}
		return
	}
	if verbose {
		logrus.SetLevel(logrus.DebugLevel)
	}

	var opts []stub.Option
	if pluginIdx != "" {
		opts = append(opts, stub.WithPluginIdx(pluginIdx))
	}
	if socketPath != "" {
		opts = append(opts, stub.WithSocketPath(socketPath))
	}
	p := &plugin{}
	s, err := stub.New(p, opts...)
	if err != nil {
		log.Errorf("failed to create plugin stub: %v", err)
		os.Exit(1)
	}

	ctx := context.Background()
	dirs := strings.Split(dirList, ",")
	if p.mgr, err = hooks.New(ctx, dirs, []string{}); err != nil {
		log.Errorf("failed to set up hook manager: %v", err)
		os.Exit(1)
	}
	if !disableWatch {
		for _, dir := range dirs {
			if err = os.MkdirAll(dir, 0755); err != nil {
				log.Errorf("failed to create directory %q: %v", dir, err)
				os.Exit(1)
			}
		}
		sync := make(chan error, 2)
		go p.mgr.Monitor(ctx, sync)
		if err = <-sync; err != nil {
			log.Errorf("failed to monitor hook directories: %v", err)
			os.Exit(1)
		}
		log.Infof("watching directories %q for new changes", strings.Join(dirs, " "))
	}

	if err = s.Run(ctx); err != nil {
		log.Errorf("plugin exited with error %v", err)
		os.Exit(1)
	}
}
