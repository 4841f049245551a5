package main

import (
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"sync"
	"time"

	"github.com/containerd/nri/pkg/adaptation"
	"github.com/containerd/nri/pkg/log"
	"google.golang.org/protobuf/encoding/protojson"
	"google.golang.org/protobuf/proto"
)

// command is one line of stdin.
type command struct {
	ID         any               `json:"id"`
	Op         string            `json:"op"`
	Count      int               `json:"count"`
	Request    json.RawMessage   `json:"request"`
	Pods       []json.RawMessage `json:"pods"`
	Containers []json.RawMessage `json:"containers"`
	IDs        []string          `json:"ids"`
	// DeadlineMs gives a relayed request the runtime's own deadline (its ctx).
	DeadlineMs int `json:"deadlineMs"`
	// TimeoutMs is the plugin request timeout of "request-timeout".
	TimeoutMs int `json:"timeoutMs"`
}

// host is the adaptation and the runtime state it reports to plugins.
type host struct {
	adaptation *adaptation.Adaptation

	mu     sync.Mutex
	synced *sync.Cond
	// syncs counts the plugins synchronized after Start (those Start
	// launches are synchronized, and added, before it returns)
	syncs      int
	starting   bool
	pods       []*adaptation.PodSandbox
	containers []*adaptation.Container
	failing    map[string]bool
	// plugins is the adaptation's last UpdatePluginCount: the plugins still
	// registered after a request
	plugins int
}

// pluginCounter is the adaptation's Metrics: only the plugin count matters here.
type pluginCounter struct{ h *host }

func (pluginCounter) RecordPluginInvocation(string, string, error)      {}
func (pluginCounter) RecordPluginLatency(string, string, time.Duration) {}
func (pluginCounter) RecordPluginAdjustments(string, string, *adaptation.ContainerAdjustment, int, int) {
}
func (c pluginCounter) UpdatePluginCount(count int) {
	c.h.mu.Lock()
	c.h.plugins = count
	c.h.mu.Unlock()
}

func newHost(args []string) (*host, error) {
	flags := flag.NewFlagSet("stub-host", flag.ContinueOnError)
	socket := flags.String("socket", "", "listen for external plugins on this socket")
	pluginPath := flags.String("plugin-path", "", "launch the plugins in this directory")
	configPath := flags.String("plugin-config-path", "", "configuration of launched plugins")
	requestTimeout := flags.Duration("request-timeout", adaptation.DefaultPluginRequestTimeout, "plugin request timeout")
	registrationTimeout := flags.Duration("registration-timeout", adaptation.DefaultPluginRegistrationTimeout, "plugin registration timeout")
	runtimeName := flags.String("runtime-name", "stub-host", "runtime name sent in Configure")
	runtimeVersion := flags.String("runtime-version", "v0.0.0", "runtime version sent in Configure")
	if err := flags.Parse(args); err != nil {
		return nil, err
	}

	log.Set(closeReporter{log.Get()})
	adaptation.SetPluginRequestTimeout(*requestTimeout)
	adaptation.SetPluginRegistrationTimeout(*registrationTimeout)

	h := &host{failing: map[string]bool{}}
	h.synced = sync.NewCond(&h.mu)

	options := []adaptation.Option{adaptation.WithMetrics(pluginCounter{h})}
	if *socket != "" {
		options = append(options, adaptation.WithSocketPath(*socket))
	} else {
		options = append(options, adaptation.WithDisabledExternalConnections())
	}
	// an empty plugin path still means the default /opt/nri/plugins: point it nowhere instead
	path := *pluginPath
	if path == "" {
		path = "/nonexistent/stub-host/plugins"
	}
	options = append(options, adaptation.WithPluginPath(path))
	if *configPath != "" {
		options = append(options, adaptation.WithPluginConfigPath(*configPath))
	}

	a, err := adaptation.New(*runtimeName, *runtimeVersion, h.sync, h.update, options...)
	if err != nil {
		return nil, err
	}
	h.adaptation = a
	return h, nil
}

// sync is the runtime's SyncFn: it hands a new plugin the current state.
func (h *host) sync(ctx context.Context, cb adaptation.SyncCB) error {
	h.mu.Lock()
	pods, containers := h.pods, h.containers
	h.mu.Unlock()

	updates, err := cb(ctx, pods, containers)
	report := line{"event": "synced", "updates": toJSONList(updates)}
	if err != nil {
		report["error"] = err.Error()
	}
	emit(report)

	h.mu.Lock()
	if !h.starting {
		h.syncs++
		h.synced.Broadcast()
	}
	h.mu.Unlock()
	return err
}

// update is the runtime's UpdateFn: unsolicited updates from plugins.
func (h *host) update(_ context.Context, updates []*adaptation.ContainerUpdate) ([]*adaptation.ContainerUpdate, error) {
	emit(line{"event": "update", "updates": toJSONList(updates)})
	h.mu.Lock()
	defer h.mu.Unlock()
	var failed []*adaptation.ContainerUpdate
	for _, u := range updates {
		if h.failing[u.ContainerId] {
			failed = append(failed, u)
		}
	}
	return failed, nil
}

func (h *host) do(cmd *command) (any, error) {
	ctx := context.Background()
	a := h.adaptation
	switch cmd.Op {
	case "start":
		h.mu.Lock()
		h.starting = true
		h.mu.Unlock()
		err := a.Start()
		h.mu.Lock()
		h.starting = false
		h.mu.Unlock()
		return nil, err
	case "stop":
		a.Stop()
		return nil, nil
	case "wait-sync":
		h.mu.Lock()
		for h.syncs < cmd.Count {
			h.synced.Wait()
		}
		h.mu.Unlock()
		// The plugin is added to the adaptation after SyncFn returns, under
		// the lock that BlockPluginSync waits for.
		a.BlockPluginSync().Unblock()
		return nil, nil
	case "state":
		pods, err := decodeList(cmd.Pods, func() *adaptation.PodSandbox { return &adaptation.PodSandbox{} })
		if err != nil {
			return nil, err
		}
		containers, err := decodeList(cmd.Containers, func() *adaptation.Container { return &adaptation.Container{} })
		if err != nil {
			return nil, err
		}
		h.mu.Lock()
		h.pods, h.containers = pods, containers
		h.mu.Unlock()
		return nil, nil
	case "fail-updates":
		h.mu.Lock()
		h.failing = map[string]bool{}
		for _, id := range cmd.IDs {
			h.failing[id] = true
		}
		h.mu.Unlock()
		return nil, nil
	case "request-timeout":
		if cmd.TimeoutMs <= 0 {
			return nil, fmt.Errorf("request-timeout: timeoutMs must be positive, not %d", cmd.TimeoutMs)
		}
		adaptation.SetPluginRequestTimeout(time.Duration(cmd.TimeoutMs) * time.Millisecond)
		return nil, nil
	case "plugins":
		h.mu.Lock()
		defer h.mu.Unlock()
		return map[string]int{"count": h.plugins}, nil
	case "bench":
		return h.bench(ctx, cmd)
	}

	relay, ok := relays[cmd.Op]
	if !ok {
		return nil, fmt.Errorf("unknown op %q", cmd.Op)
	}
	if cmd.DeadlineMs > 0 {
		var cancel context.CancelFunc
		ctx, cancel = context.WithTimeout(ctx, time.Duration(cmd.DeadlineMs)*time.Millisecond)
		defer cancel()
	}
	return relay(ctx, a, cmd.Request)
}

// bench times CreateContainer round trips through every plugin.
func (h *host) bench(ctx context.Context, cmd *command) (any, error) {
	req := &adaptation.CreateContainerRequest{}
	if err := unmarshal(cmd.Request, req); err != nil {
		return nil, err
	}
	ns := make([]int64, 0, cmd.Count)
	for i := 0; i < cmd.Count; i++ {
		start := time.Now()
		if _, err := h.adaptation.CreateContainer(ctx, req); err != nil {
			return nil, fmt.Errorf("call %d: %w", i, err)
		}
		ns = append(ns, time.Since(start).Nanoseconds())
	}
	return map[string]any{"ns": ns}, nil
}

func unmarshal(raw json.RawMessage, msg proto.Message) error {
	if len(raw) == 0 {
		return nil
	}
	if err := protojson.Unmarshal(raw, msg); err != nil {
		return fmt.Errorf("bad request: %w", err)
	}
	return nil
}

func decodeList[T proto.Message](raws []json.RawMessage, newMsg func() T) ([]T, error) {
	list := make([]T, 0, len(raws))
	for _, raw := range raws {
		msg := newMsg()
		if err := unmarshal(raw, msg); err != nil {
			return nil, err
		}
		list = append(list, msg)
	}
	return list, nil
}

// toJSON renders a message as protojson; nil stays nil.
func toJSON(msg proto.Message) json.RawMessage {
	if msg == nil || !msg.ProtoReflect().IsValid() {
		return nil
	}
	raw, err := protojson.Marshal(msg)
	if err != nil {
		return json.RawMessage(fmt.Sprintf("%q", err.Error()))
	}
	return raw
}

func toJSONList[T proto.Message](msgs []T) []json.RawMessage {
	list := make([]json.RawMessage, 0, len(msgs))
	for _, msg := range msgs {
		list = append(list, toJSON(msg))
	}
	return list
}
