// Command adaptation-plugin is a Go NRI plugin built on the upstream stub
// (github.com/containerd/nri/pkg/stub) for the @nri-ts/adaptation
// conformance tests: the same plugin runs against the Go adaptation and
// against ours, and the tests compare what each runtime makes of it.
//
// The upstream sample plugins are programs of their own modules, not
// importable packages, so their behaviour is written again here, in modes:
//
//	logger           every event, written as a JSON line (to -log, else stdout),
//	                 with the traceparent of its ttrpc metadata when it has one
//	noop             subscribes to CreateContainer and asks for nothing
//	device-injector  devices and mounts from the pod annotations
//	                 devices.noderesource.dev/container.<name> and
//	                 mounts.noderesource.dev/container.<name> (JSON lists)
//	ulimit-adjuster  rlimits from ulimits.noderesource.dev/container.<name>
//	annotator        annotates and sets an env var on every container; with
//	                 -shared it also sets the annotation "shared" (two such
//	                 plugins conflict), with -takeover it removes it first;
//	                 a container named "forbidden" gets the annotation
//	                 "forbidden"
//	updater          updates other containers' CPU shares on creation and
//	                 stop, the requested container's memory limit on update
//	validator        rejects adjustments with the annotation "forbidden"
//
// Flags: -mode a,b (default: the plugin's name, as when launched), -name,
// -idx, -socket-path (default: NRI_PLUGIN_SOCKET or the default socket),
// -log FILE, -events a,b (the logger's subscription, default every event; a
// runtime before NRI v0.10 refuses events it does not know). A launched
// plugin may instead get {"log": FILE} as its config.
package main

import (
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"os"
	"strings"
	"sync"

	"github.com/containerd/nri/pkg/api"
	"github.com/containerd/nri/pkg/stub"
	"github.com/containerd/ttrpc"
)

type plugin struct {
	name   string
	idx    string
	events api.EventMask
	modes  map[string]bool
	shared bool
	take   bool

	mu      sync.Mutex
	log     *os.File
	known   []string
	encoder *json.Encoder
}

func main() {
	var (
		modes      = flag.String("mode", "", "comma-separated modes (default: the plugin name)")
		name       = flag.String("name", "", "plugin name")
		idx        = flag.String("idx", "", "plugin index")
		socketPath = flag.String("socket-path", "", "adaptation socket")
		logFile    = flag.String("log", "", "where the logger writes events")
		shared     = flag.Bool("shared", false, "annotator: also set the annotation \"shared\"")
		takeover   = flag.Bool("takeover", false, "annotator: remove \"shared\" before setting it")
		events     = flag.String("events", "", "logger: comma-separated events to subscribe to (default all)")
	)
	flag.Parse()

	p := &plugin{name: *name, idx: *idx, modes: map[string]bool{}, shared: *shared || *takeover, take: *takeover}
	p.events = api.ValidEvents
	if *events != "" {
		mask, err := api.ParseEventMask(*events)
		if err != nil {
			fmt.Fprintf(os.Stderr, "invalid -events: %v\n", err)
			os.Exit(2)
		}
		p.events = mask
	}
	if p.name == "" {
		p.name = os.Getenv(api.PluginNameEnvVar)
	}
	if p.idx == "" {
		p.idx = os.Getenv(api.PluginIdxEnvVar)
	}
	if *modes == "" {
		*modes = p.name
	}
	for _, mode := range strings.Split(*modes, ",") {
		p.modes[mode] = true
	}
	if *logFile != "" {
		p.openLog(*logFile)
	}

	opts := []stub.Option{stub.WithOnClose(func() { os.Exit(0) })}
	if *name != "" {
		opts = append(opts, stub.WithPluginName(*name))
	}
	if *idx != "" {
		opts = append(opts, stub.WithPluginIdx(*idx))
	}
	if *socketPath != "" {
		opts = append(opts, stub.WithSocketPath(*socketPath))
	}
	s, err := stub.New(p, opts...)
	if err != nil {
		fmt.Fprintf(os.Stderr, "failed to create plugin stub: %v\n", err)
		os.Exit(1)
	}
	if err := s.Run(context.Background()); err != nil {
		fmt.Fprintf(os.Stderr, "plugin exited: %v\n", err)
		os.Exit(1)
	}
}

func (p *plugin) openLog(path string) {
	f, err := os.OpenFile(path, os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o644)
	if err != nil {
		fmt.Fprintf(os.Stderr, "failed to open log %s: %v\n", path, err)
		os.Exit(1)
	}
	p.log = f
}

// Configure subscribes to what the modes need.
func (p *plugin) Configure(ctx context.Context, config, runtime, version string) (stub.EventMask, error) {
	if config != "" {
		var cfg struct {
			Log string `json:"log"`
		}
		if err := json.Unmarshal([]byte(config), &cfg); err != nil {
			return 0, fmt.Errorf("invalid config %q: %w", config, err)
		}
		if cfg.Log != "" && p.log == nil {
			p.openLog(cfg.Log)
		}
	}
	p.event(ctx, "Configure", map[string]any{"runtime": runtime, "version": version})

	var mask api.EventMask
	if p.modes["logger"] {
		mask = p.events
	}
	if p.modes["noop"] || p.modes["device-injector"] || p.modes["ulimit-adjuster"] || p.modes["annotator"] {
		mask.Set(api.Event_CREATE_CONTAINER)
	}
	if p.modes["updater"] {
		mask.Set(api.Event_CREATE_CONTAINER, api.Event_UPDATE_CONTAINER, api.Event_STOP_CONTAINER)
	}
	if p.modes["validator"] {
		mask.Set(api.Event_VALIDATE_CONTAINER_ADJUSTMENT)
	}
	return mask, nil
}

// event writes one JSON line for the logger.
// event logs a request: its name, its fields, and the W3C traceparent of
// its ttrpc metadata when the runtime sent one (our traced adaptation does;
// the Go adaptation does not), so that a test sees what arrived.
func (p *plugin) event(ctx context.Context, name string, fields map[string]any) {
	if !p.modes["logger"] {
		return
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.encoder == nil {
		out := os.Stdout
		if p.log != nil {
			out = p.log
		}
		p.encoder = json.NewEncoder(out)
	}
	line := map[string]any{"plugin": p.idx + "-" + p.name, "event": name}
	if traceparent, ok := ttrpc.GetMetadataValue(ctx, "traceparent"); ok {
		line["traceparent"] = traceparent
	}
	for k, v := range fields {
		line[k] = v
	}
	_ = p.encoder.Encode(line)
}

func podFields(pod *api.PodSandbox) map[string]any {
	return map[string]any{"pod": pod.GetId()}
}

func containerFields(pod *api.PodSandbox, ctr *api.Container) map[string]any {
	return map[string]any{
		"pod":           pod.GetId(),
		"container":     ctr.GetId(),
		"state":         ctr.GetState().String(),
		"createdAt":     ctr.GetCreatedAt(),
		"startedAt":     ctr.GetStartedAt(),
		"finishedAt":    ctr.GetFinishedAt(),
		"exitCode":      ctr.GetExitCode(),
		"statusReason":  ctr.GetStatusReason(),
		"statusMessage": ctr.GetStatusMessage(),
	}
}
