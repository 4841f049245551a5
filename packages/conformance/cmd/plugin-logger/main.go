// Command plugin-logger is the Go logger of github.com/containerd/nri
// (plugins/logger, the same from v0.12.2 to v0.12.5), restated for the
// conformance suite. The upstream plugin is a separate Go module that the
// module proxy does not serve, and a main package cannot be imported, so
// this program does what it does, on the same libraries: the upstream stub
// (pkg/stub), the pkg/api adjustment helpers, logrus with the same text
// formatter, and sigs.k8s.io/yaml v1.3.0 (the version the upstream module
// pins) for its configuration and for the YAML dumps of every request.
//
// It takes the upstream flags (-idx, -socket-path, -events, -log-file,
// -add-annotation, -set-annotation, -add-env, -set-env) and the upstream
// configuration keys.
package main

import (
	"context"
	"flag"
	"fmt"
	"os"
	"strings"

	"github.com/sirupsen/logrus"
	"sigs.k8s.io/yaml"

	"github.com/containerd/nri/pkg/api"
	"github.com/containerd/nri/pkg/stub"
)

// config has the upstream logger's keys; the runtime's configuration is
// decoded over the values the flags set.
type config struct {
	LogFile       string   `json:"logFile"`
	Events        []string `json:"events"`
	AddAnnotation string   `json:"addAnnotation"`
	SetAnnotation string   `json:"setAnnotation"`
	AddEnv        string   `json:"addEnv"`
	SetEnv        string   `json:"setEnv"`
}

type plugin struct {
	mask stub.EventMask
}

var (
	cfg config
	log *logrus.Logger
)

// dump logs each (tag, object) pair as YAML, one line per YAML line, under
// "<prefix>: <tag>:"; the upstream helper also takes a call without a
// prefix, which the logger never makes.
func dump(prefix string, pairs ...interface{}) {
	for i := 0; i+1 < len(pairs); i += 2 {
		tag, obj := pairs[i], pairs[i+1]
		out, err := yaml.Marshal(obj)
		if err != nil {
			log.Infof("%s: %s: failed to dump object: %v", prefix, tag, err)
			continue
		}
		log.Infof("%s: %s:", prefix, tag)
		for _, line := range strings.Split(strings.TrimSpace(string(out)), "\n") {
			log.Infof("%s:    %s", prefix, line)
		}
	}
}

func openLog(path string) (*os.File, error) {
	return os.OpenFile(path, os.O_APPEND|os.O_CREATE|os.O_WRONLY, 0644)
}

func (p *plugin) Configure(_ context.Context, data, runtime, version string) (stub.EventMask, error) {
	log.Infof("got configuration data: %q from runtime %s %s", data, runtime, version)
	if data == "" {
		return p.mask, nil
	}
	previous := cfg
	if err := yaml.Unmarshal([]byte(data), &cfg); err != nil {
		return 0, fmt.Errorf("failed to parse provided configuration: %w", err)
	}
	mask, err := api.ParseEventMask(cfg.Events...)
	if err != nil {
		return 0, fmt.Errorf("failed to parse events in configuration: %w", err)
	}
	p.mask = mask
	if cfg.LogFile != previous.LogFile {
		f, err := openLog(cfg.LogFile)
		if err != nil {
			log.Errorf("failed to open log file %q: %v", cfg.LogFile, err)
			return 0, fmt.Errorf("failed to open log file %q: %w", cfg.LogFile, err)
		}
		log.SetOutput(f)
	}
	return p.mask, nil
}

func (p *plugin) Synchronize(_ context.Context, pods []*api.PodSandbox, containers []*api.Container) ([]*api.ContainerUpdate, error) {
	dump("Synchronize", "pods", pods, "containers", containers)
	return nil, nil
}

func (p *plugin) Shutdown(_ context.Context) {
	dump("Shutdown")
}

func (p *plugin) RunPodSandbox(_ context.Context, pod *api.PodSandbox) error {
	dump("RunPodSandbox", "pod", pod)
	return nil
}

func (p *plugin) UpdatePodSandbox(_ context.Context, pod *api.PodSandbox, overhead, resources *api.LinuxResources) error {
	dump("UpdatePodSandbox", "pod", pod, "overHeadResources", overhead, "resources", resources)
	return nil
}

func (p *plugin) PostUpdatePodSandbox(_ context.Context, pod *api.PodSandbox) error {
	dump("PostUpdatePodSandbox", "pod", pod)
	return nil
}

func (p *plugin) StopPodSandbox(_ context.Context, pod *api.PodSandbox) error {
	dump("StopPodSandbox", "pod", pod)
	return nil
}

func (p *plugin) RemovePodSandbox(_ context.Context, pod *api.PodSandbox) error {
	dump("RemovePodSandbox", "pod", pod)
	return nil
}

func (p *plugin) CreateContainer(_ context.Context, pod *api.PodSandbox, ctr *api.Container) (*api.ContainerAdjustment, []*api.ContainerUpdate, error) {
	dump("CreateContainer", "pod", pod, "container", ctr)
	value := fmt.Sprintf("logger-pid-%d", os.Getpid())
	adjust := &api.ContainerAdjustment{}
	if cfg.AddAnnotation != "" {
		adjust.AddAnnotation(cfg.AddAnnotation, value)
	}
	if cfg.SetAnnotation != "" {
		adjust.RemoveAnnotation(cfg.SetAnnotation)
		adjust.AddAnnotation(cfg.SetAnnotation, value)
	}
	if cfg.AddEnv != "" {
		adjust.AddEnv(cfg.AddEnv, value)
	}
	if cfg.SetEnv != "" {
		adjust.RemoveEnv(cfg.SetEnv)
		adjust.AddEnv(cfg.SetEnv, value)
	}
	return adjust, nil, nil
}

func (p *plugin) PostCreateContainer(_ context.Context, pod *api.PodSandbox, ctr *api.Container) error {
	dump("PostCreateContainer", "pod", pod, "container", ctr)
	return nil
}

func (p *plugin) StartContainer(_ context.Context, pod *api.PodSandbox, ctr *api.Container) error {
	dump("StartContainer", "pod", pod, "container", ctr)
	return nil
}

func (p *plugin) PostStartContainer(_ context.Context, pod *api.PodSandbox, ctr *api.Container) error {
	dump("PostStartContainer", "pod", pod, "container", ctr)
	return nil
}

func (p *plugin) UpdateContainer(_ context.Context, pod *api.PodSandbox, ctr *api.Container, resources *api.LinuxResources) ([]*api.ContainerUpdate, error) {
	dump("UpdateContainer", "pod", pod, "container", ctr, "resources", resources)
	return nil, nil
}

func (p *plugin) PostUpdateContainer(_ context.Context, pod *api.PodSandbox, ctr *api.Container) error {
	dump("PostUpdateContainer", "pod", pod, "container", ctr)
	return nil
}

func (p *plugin) StopContainer(_ context.Context, pod *api.PodSandbox, ctr *api.Container) ([]*api.ContainerUpdate, error) {
	dump("StopContainer", "pod", pod, "container", ctr)
	return nil, nil
}

func (p *plugin) RemoveContainer(_ context.Context, pod *api.PodSandbox, ctr *api.Container) error {
	dump("RemoveContainer", "pod", pod, "container", ctr)
	return nil
}

func (p *plugin) ValidateContainerAdjustment(_ context.Context, req *api.ValidateContainerAdjustmentRequest) error {
	dump("ValidateContainerAdjustment", "request", req)
	return nil
}

func main() {
	var idx, socketPath, events string

	log = logrus.StandardLogger()
	log.SetFormatter(&logrus.TextFormatter{PadLevelText: true})

	flag.StringVar(&idx, "idx", "", "plugin index to register to NRI")
	flag.StringVar(&socketPath, "socket-path", "", "path of the NRI socket file")
	flag.StringVar(&events, "events", "", "comma-separated list of events to subscribe for")
	flag.StringVar(&cfg.LogFile, "log-file", "", "logfile name, if logging to a file")
	flag.StringVar(&cfg.AddAnnotation, "add-annotation", "", "add this annotation to containers")
	flag.StringVar(&cfg.SetAnnotation, "set-annotation", "", "set this annotation on containers")
	flag.StringVar(&cfg.AddEnv, "add-env", "", "add this environment variable for containers")
	flag.StringVar(&cfg.SetEnv, "set-env", "", "set this environment variable for containers")
	flag.Parse()

	if cfg.LogFile != "" {
		f, err := openLog(cfg.LogFile)
		if err != nil {
			log.Fatalf("failed to open log file %q: %v", cfg.LogFile, err)
		}
		log.SetOutput(f)
	}

	p := &plugin{}
	if events != "" {
		mask, err := api.ParseEventMask(events)
		if err != nil {
			log.Fatalf("failed to parse events: %v", err)
		}
		p.mask = mask
	}
	// As upstream: an empty -events is remembered as one empty event name.
	cfg.Events = strings.Split(events, ",")

	opts := []stub.Option{stub.WithOnClose(func() {
		log.Infof("Connection to the runtime lost, exiting...")
		os.Exit(1)
	})}
	if idx != "" {
		opts = append(opts, stub.WithPluginIdx(idx))
	}
	if socketPath != "" {
		opts = append(opts, stub.WithSocketPath(socketPath))
	}
	s, err := stub.New(p, opts...)
	if err != nil {
		log.Fatalf("failed to create plugin stub: %v", err)
	}
	if err := s.Run(context.Background()); err != nil {
		log.Errorf("plugin exited with error %v", err)
		os.Exit(1)
	}
}
